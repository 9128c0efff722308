#include "engine/baselines/gp_bo_run.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/rng.hpp"

namespace fedsim::baselines {

void GpBoRunConfig::validate() const {
  params.validate();
  if (budget < 1) throw std::invalid_argument("gp_bo: budget must be an integer >= 1");
}

GpBoRunResult run_gp_bo(const GpBoRunConfig& config, const xarmed::FederatedProblem& problem) {
  config.validate();
  if (!problem.global) throw std::invalid_argument("gp_bo: the problem has no global objective");
  const int q = config.params.batch_size;
  if (config.on_locals && problem.clients() != q)
    throw std::invalid_argument("gp_bo: on_locals needs batch_size equal to the clients M (" +
                                std::to_string(problem.clients()) + ")");
  GpBo bo(config.params, problem.domain);
  RandomStream propose(config.seed, "gp_bo.propose");
  RandomStream noise(config.seed, "gp_bo.noise");
  const Objective& f = *problem.global;
  const double f_star = f.optimum_value();
  GpBoRunResult result;
  double total = 0.0;
  const std::int64_t every = std::max<std::int64_t>(1, config.budget / 100);
  for (std::int64_t t = 0; t < config.budget; ++t) {
    const Eigen::MatrixXd batch = bo.propose_batch(propose);
    for (int j = 0; j < q; ++j) {
      EvaluationRecord r;
      r.round = t;
      r.slot = j;
      r.query = batch.row(j).transpose();
      const Objective& source = config.on_locals ? *problem.locals[j] : f;
      r.outcome = source.value(r.query) + noise.uniform(-problem.noise, problem.noise);
      r.regret = f_star - f.value(r.query);
      total += r.regret;
      r.cumulative_regret = total;
      result.records.push_back(std::move(r));
    }
    for (int j = 0; j < q; ++j) {
      const EvaluationRecord& r = result.records[result.records.size() - q + j];
      bo.observe(r.query, r.outcome);
    }
    result.round_regret_curve.push_back(total / q);
    if (config.on_progress && ((t + 1) % every == 0 || t + 1 == config.budget))
      config.on_progress(t + 1, result.round_regret_curve.back());
  }
  result.cumulative_regret = total;
  return result;
}

}  // namespace fedsim::baselines
