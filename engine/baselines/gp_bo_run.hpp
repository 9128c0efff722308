#pragma once
/// GP-BO / batched BO run centrally on an X-armed problem (Fed-PNE appendix E.1.6-E.1.7) for a
/// budget of rounds: each round proposes batch_size points (1 for GP-BO), evaluates each, noisy
/// as a pull is (f(x) + U[-noise, noise]), and observes them in batch order. By default every
/// point is evaluated on the global objective; with `on_locals` point j of a round is evaluated
/// on client j's local objective (batch_size must equal M), as the paper ran its batched BO
/// ("the function values of the local objectives as if they are from one objective"). Regret is
/// always measured on the global objective. Proposals (initial design, fits, acquisition
/// maximisation) draw from RandomStream(seed, "gp_bo.propose"), reward noise from
/// RandomStream(seed, "gp_bo.noise").
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/baselines/evaluation_record.hpp"
#include "engine/baselines/gp_bo.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::baselines {

struct GpBoRunConfig {
  GpBoParams params;
  std::int64_t budget = 100;  ///< rounds; evaluations = budget x batch_size
  std::uint64_t seed = 1;
  bool on_locals = false;
  /// Called with (rounds done, round_regret_curve's value then) after every hundredth of the
  /// budget and after the last round, when set (a progress line: `fedsim run --driver loop`).
  std::function<void(std::int64_t, double)> on_progress;
  /// Throws std::invalid_argument naming the parameter.
  void validate() const;
};

struct GpBoRunResult {
  std::vector<EvaluationRecord> records;  ///< one per evaluation, in round then batch order
  double cumulative_regret = 0.0;
  /// After each round: cumulative regret / batch_size (with on_locals, the average cumulative
  /// regret per client the paper plots for federated algorithms).
  std::vector<double> round_regret_curve;
};

GpBoRunResult run_gp_bo(const GpBoRunConfig& config, const xarmed::FederatedProblem& problem);

}  // namespace fedsim::baselines
