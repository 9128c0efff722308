#pragma once
/// HCT run centrally on the global objective for a budget of T evaluations (the paper's
/// baseline: one evaluation of the global objective stands for one round of all clients).
/// The partition's axes come from the seed, point draws and reward noise from
/// RandomStream(seed, "hct.run").
#include <cstdint>
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "engine/xarmed/hct.hpp"
#include "engine/xarmed/hct_pyxab.hpp"
#include "engine/xarmed/partition_tree.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::xarmed {

struct HctRunConfig {
  ProblemConfig problem;        ///< objective and seed (M only shapes the SEIR mean)
  std::int64_t budget = 10000;  ///< T evaluations
  HctParams params;
  int k = 2;
  SplitRule split = SplitRule::random_axis;
  PointRule point = PointRule::centre;
  HctVariant variant = HctVariant::azar;
  bool record_curve = true;     ///< keep the per-step cumulative regret curve
  /// Called with (steps done, cumulative regret) after every hundredth of the budget and after
  /// the last step, when set (a progress line: `fedsim run --driver loop`).
  std::function<void(std::int64_t, double)> on_progress;

  /// Throws std::invalid_argument naming the parameter.
  void validate() const;
};

struct HctResult {
  double cumulative_regret = 0.0;     ///< sum_t f* - f(x_t) on the global objective
  std::vector<double> regret_curve;   ///< cumulative regret after each step (if recorded)
  std::size_t tree_size = 0;
  int depth = 0;
  Eigen::VectorXd recommendation;     ///< centre of the most pulled node
  std::int64_t re_expansions = 0;     ///< pyxab: inner nodes expanded again (azar: 0)
};

HctResult run_hct(const HctRunConfig& config, const FederatedProblem& problem);
HctResult run_hct(const HctRunConfig& config);

}  // namespace fedsim::xarmed
