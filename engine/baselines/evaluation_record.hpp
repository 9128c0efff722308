#pragma once
/// One evaluation of a centralised baseline on the global objective (KernelTS, GP-BO, batched
/// BO), as the X-armed runs define regret (engine/xarmed/hct_run.*): regret = f* - f(x) on the
/// noise-free global objective, outcome = what the algorithm observed (a noisy reward).
#include <cstdint>

#include <Eigen/Dense>

namespace fedsim::baselines {

struct EvaluationRecord {
  std::int64_t round = 0;          ///< 0-based round (one evaluation, or one batch)
  int slot = 0;                    ///< position in the round's batch (0 for sequential runs)
  Eigen::VectorXd query;           ///< the point evaluated (d)
  double outcome = 0.0;            ///< the observed reward
  double regret = 0.0;             ///< f* - f(query) on the global objective
  double cumulative_regret = 0.0;  ///< sum of regret over this and every earlier evaluation
};

}  // namespace fedsim::baselines
