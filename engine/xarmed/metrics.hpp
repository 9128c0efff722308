#pragma once
/// Summaries over repeated runs (appendix E: curves are means over 10 runs).
#include <vector>

namespace fedsim::xarmed {

struct MeanSe {
  double mean = 0.0;
  double se = 0.0;  ///< sample standard deviation / sqrt(n); 0 for n < 2
};

/// Mean and standard error of the mean. Throws std::invalid_argument for an empty input.
MeanSe mean_standard_error(const std::vector<double>& values);

/// Cumulative sums of per-step values, divided by `scale` (e.g. M for a per-client average).
std::vector<double> cumulative(const std::vector<double>& per_step, double scale = 1.0);

}  // namespace fedsim::xarmed
