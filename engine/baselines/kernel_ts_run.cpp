#include "engine/baselines/kernel_ts_run.hpp"

#include <stdexcept>

#include "engine/rng.hpp"

namespace fedsim::baselines {

void KernelTsRunConfig::validate() const {
  params.validate();
  if (budget < 1) throw std::invalid_argument("kernel_ts: budget must be an integer >= 1");
}

KernelTsRunResult run_kernel_ts(const KernelTsRunConfig& config,
                                const xarmed::FederatedProblem& problem) {
  config.validate();
  if (!problem.global) throw std::invalid_argument("kernel_ts: the problem has no global objective");
  KernelTs ts(config.params, problem.domain);
  RandomStream sampler(config.seed, "kernel_ts.sample");
  RandomStream noise(config.seed, "kernel_ts.noise");
  const Objective& f = *problem.global;
  const double f_star = f.optimum_value();
  KernelTsRunResult result;
  result.factor_rank = ts.factor_rank();
  result.records.reserve(static_cast<std::size_t>(config.budget));
  double total = 0.0;
  for (std::int64_t t = 0; t < config.budget; ++t) {
    EvaluationRecord r;
    r.round = t;
    r.query = ts.propose(sampler);
    const double value = f.value(r.query);
    r.outcome = value + noise.uniform(-problem.noise, problem.noise);
    r.regret = f_star - value;
    total += r.regret;
    r.cumulative_regret = total;
    ts.observe(r.outcome);
    result.records.push_back(std::move(r));
  }
  result.cumulative_regret = total;
  return result;
}

}  // namespace fedsim::baselines
