#include "engine/objectives/tuning_objective.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/data/standardize.hpp"
#include "engine/trainers/kernel_classifier.hpp"
#include "engine/trainers/metrics.hpp"
#include "engine/trainers/mlp.hpp"
#include "engine/trainers/softmax_regression.hpp"

namespace fedsim {

namespace {

using Task = TuningSettings::Task;

/// lo * (hi / lo)^u: a log scale from lo to hi.
double log_scale(double u, double lo, double hi) { return lo * std::pow(hi / lo, u); }

}  // namespace

int TuningSettings::dimension() const { return task == Task::svm ? 2 : 3; }

std::string to_string(TuningSettings::Task task) {
  switch (task) {
    case Task::logistic:
      return "logistic";
    case Task::mlp:
      return "mlp";
    case Task::svm:
      return "svm";
  }
  throw std::logic_error("to_string: not a TuningSettings::Task value");
}

Hyperparameters tuning_hyperparameters(TuningSettings::Task task,
                                       const Eigen::Ref<const Eigen::VectorXd>& x) {
  const auto u = [&](int j) { return std::clamp(x(j), 0.0, 1.0); };
  switch (task) {
    case Task::logistic:
      return {{"batch_size", "l2", "learning_rate"},
              {std::round(128.0 + u(0) * 384.0), log_scale(u(1), 1e-6, 10.0),
               log_scale(u(2), 1e-6, 1.0)}};
    case Task::mlp:
      return {{"learning_rate", "decay", "l2"},
              {log_scale(u(0), 1e-7, 0.02), log_scale(u(1), 1e-7, 0.02),
               log_scale(u(2), 1e-7, 0.02)}};
    case Task::svm:
      return {{"gamma", "penalty"}, {log_scale(u(0), 0.01, 10.0), log_scale(u(1), 1e-4, 10.0)}};
  }
  throw std::logic_error("tuning_hyperparameters: not a TuningSettings::Task value");
}

TuningObjective::TuningObjective(std::shared_ptr<const data::Dataset> dataset,
                                 TuningSettings settings)
    : settings_(std::move(settings)) {
  const data::Dataset& d = *dataset;
  if (settings_.epochs < 1) throw std::invalid_argument("tuning objective: epochs must be >= 1");
  if (!(std::isfinite(settings_.cost_per_sample) && settings_.cost_per_sample >= 0))
    throw std::invalid_argument("tuning objective: cost_per_sample must be a finite number >= 0");
  if (settings_.task == Task::svm &&
      (settings_.positive_class < 0 || settings_.positive_class >= d.classes))
    throw std::invalid_argument("tuning objective: positive_class " +
                                std::to_string(settings_.positive_class) + " is not a class of '" +
                                d.name + "' (0.." + std::to_string(d.classes - 1) + ")");
  classes_ = settings_.task == Task::svm ? 2 : d.classes;
  domain_.box = Box::unit(settings_.dimension());
  // Label skew over the data set's own classes; the svm's binary labels are derived after.
  const std::vector<std::vector<int>> split =
      data::federated_split(d.y, d.classes, settings_.split, settings_.seed);
  shards_.reserve(split.size());
  for (std::size_t n = 0; n < split.size(); ++n) {
    const data::Shard halves = data::halve(split[n], settings_.seed, static_cast<int>(n));
    Shard s;
    auto take = [&](const std::vector<int>& idx, std::vector<int>& labels) {
      Eigen::MatrixXd m(static_cast<Eigen::Index>(idx.size()), d.x.cols());
      for (std::size_t k = 0; k < idx.size(); ++k) {
        m.row(static_cast<Eigen::Index>(k)) = d.x.row(idx[k]).cast<double>();
        const int y = d.y[static_cast<std::size_t>(idx[k])];
        labels.push_back(settings_.task == Task::svm ? (y == settings_.positive_class ? 1 : 0) : y);
      }
      return m;
    };
    const Eigen::MatrixXd t = take(halves.train, s.yt), v = take(halves.validation, s.yv);
    const data::Standardizer st = data::Standardizer::fit(t);
    s.xt = st.apply(t);
    s.xv = st.apply(v);
    shards_.push_back(std::move(s));
  }
}

std::pair<int, int> TuningObjective::shard_sizes(int agent) const {
  const Shard& s = shards_.at(static_cast<std::size_t>(agent));
  return {static_cast<int>(s.yt.size()), static_cast<int>(s.yv.size())};
}

Answer TuningObjective::evaluate(const Query& q, RandomStream&) const {
  const Shard& s = shards_.at(static_cast<std::size_t>(q.agent));
  const Hyperparameters h = tuning_hyperparameters(settings_.task, q.x);
  RandomStream rng(settings_.seed, "objective.train", static_cast<std::uint64_t>(q.agent),
                   static_cast<std::uint64_t>(static_cast<std::int64_t>(q.iteration)));
  double score = 0.0, work = static_cast<double>(s.yt.size());
  switch (settings_.task) {
    case Task::logistic: {
      trainers::SoftmaxSettings t;
      t.batch_size = static_cast<int>(h.values[0]);
      t.l2 = h.values[1];
      t.learning_rate = h.values[2];
      t.epochs = settings_.epochs;
      score = 1.0 - trainers::error_rate(
                        trainers::train_softmax(s.xt, s.yt, classes_, t, rng).predict(s.xv), s.yv);
      work *= settings_.epochs;
      break;
    }
    case Task::mlp: {
      trainers::MlpSettings t;
      t.learning_rate = h.values[0];
      t.decay = h.values[1];
      t.l2 = h.values[2];
      t.epochs = settings_.epochs;
      score = 1.0 - trainers::error_rate(
                        trainers::train_mlp(s.xt, s.yt, classes_, t, rng).predict(s.xv), s.yv);
      work *= settings_.epochs;
      break;
    }
    case Task::svm:
      score = trainers::roc_auc(
          trainers::train_kernel_classifier(s.xt, s.yt, h.values[0], h.values[1]).scores(s.xv),
          s.yv);
      break;
  }
  Answer a;
  a.y = score;
  a.f = score;
  if (settings_.cost_per_sample > 0) a.cost = settings_.cost_per_sample * work;
  return a;
}

}  // namespace fedsim
