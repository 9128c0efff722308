#pragma once
/// Summaries over repeated runs: one mean and standard error, one convention, for every table
/// and test (the sweep's sweep.csv, the benchmarks, the statistical tests).
#include <vector>

namespace fedsim {

struct MeanSe {
  double mean;  ///< NaN for no values
  double se;    ///< sample standard deviation / sqrt(n); NaN for fewer than two values
};

/// Mean and standard error of the mean of `values`.
MeanSe mean_se(const std::vector<double>& values);

}  // namespace fedsim
