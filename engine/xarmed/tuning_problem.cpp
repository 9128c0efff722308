#include "engine/xarmed/tuning_problem.hpp"

#include <limits>
#include <stdexcept>

#include "engine/rng.hpp"

namespace fedsim::xarmed {

TuningClientObjective::TuningClientObjective(std::shared_ptr<const TuningObjective> tuning,
                                             int client)
    : tuning_(std::move(tuning)), client_(client) {
  if (!tuning_) throw std::invalid_argument("TuningClientObjective: null objective");
  if (client_ < 0 || client_ >= tuning_->agents())
    throw std::invalid_argument("TuningClientObjective: no client " + std::to_string(client_));
}

double TuningClientObjective::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return cache_.get(x, [&] {
    Query q;
    q.agent = client_;
    q.iteration = 0;
    q.x = x;
    RandomStream unused(0, "xarmed.tuning.unused");  // the objective draws no noise
    return *tuning_->evaluate(q, unused).f;
  });
}

Eigen::VectorXd TuningClientObjective::optimum_location() const {
  return Eigen::VectorXd::Constant(dim(), std::numeric_limits<double>::quiet_NaN());
}

MeanScoreObjective::MeanScoreObjective(std::vector<std::shared_ptr<const Objective>> clients)
    : clients_(std::move(clients)) {
  if (clients_.empty()) throw std::invalid_argument("MeanScoreObjective: no clients");
}

double MeanScoreObjective::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return cache_.get(x, [&] {
    double sum = 0.0;
    for (const auto& c : clients_) sum += c->value(x);
    return sum / static_cast<double>(clients_.size());
  });
}

Eigen::VectorXd MeanScoreObjective::optimum_location() const {
  return Eigen::VectorXd::Constant(dim(), std::numeric_limits<double>::quiet_NaN());
}

FederatedProblem make_tuning_problem(const ProblemConfig& config,
                                     std::shared_ptr<const data::Dataset> dataset) {
  config.validate();
  if (!config.is_tuning())
    throw std::invalid_argument("make_tuning_problem: the objective is " +
                                to_string(config.objective) + ", not tuning");
  if (!dataset) throw std::invalid_argument("make_tuning_problem: no data set");
  TuningSettings t;
  t.task = config.task;
  t.split.agents = config.clients;
  t.split.alpha = config.label_skew;
  t.split.quantity_sigma = config.quantity_skew;
  t.positive_class = config.positive_class;
  t.epochs = config.epochs;
  t.seed = config.objective_seed != 0 ? config.objective_seed : config.seed;
  const auto tuning = std::make_shared<const TuningObjective>(std::move(dataset), t);
  FederatedProblem p;
  p.domain = Box::unit(t.dimension());
  p.noise = config.effective_noise();
  for (int m = 0; m < config.clients; ++m)
    p.locals.push_back(std::make_shared<TuningClientObjective>(tuning, m));
  p.global = std::make_shared<MeanScoreObjective>(p.locals);
  return p;
}

}  // namespace fedsim::xarmed
