#pragma once
/// KernelTS run centrally on an X-armed problem's global objective for a budget of T rounds
/// (Fed-PNE figure 2: one evaluation of the global objective per round, noisy as a pull is:
/// f(x) + U[-noise, noise]). Posterior draws from RandomStream(seed, "kernel_ts.sample"),
/// reward noise from RandomStream(seed, "kernel_ts.noise"). Same config, same records, bit
/// for bit.
#include <cstdint>
#include <vector>

#include "engine/baselines/evaluation_record.hpp"
#include "engine/baselines/kernel_ts.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::baselines {

struct KernelTsRunConfig {
  KernelTsParams params;
  std::int64_t budget = 10000;  ///< T rounds (evaluations)
  std::uint64_t seed = 1;
  /// Throws std::invalid_argument naming the parameter.
  void validate() const;
};

struct KernelTsRunResult {
  std::vector<EvaluationRecord> records;  ///< one per round
  double cumulative_regret = 0.0;
  int factor_rank = 0;  ///< r of the candidate prior factor
};

KernelTsRunResult run_kernel_ts(const KernelTsRunConfig& config,
                                const xarmed::FederatedProblem& problem);

}  // namespace fedsim::baselines
