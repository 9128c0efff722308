#include "engine/stats.hpp"

#include <cmath>
#include <limits>

namespace fedsim {

MeanSe mean_se(const std::vector<double>& values) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto n = static_cast<double>(values.size());
  if (values.empty()) return {nan, nan};
  double mean = 0.0;
  for (const double v : values) mean += v;
  mean /= n;
  if (values.size() < 2) return {mean, nan};
  double ss = 0.0;
  for (const double v : values) ss += (v - mean) * (v - mean);
  return {mean, std::sqrt(ss / (n - 1.0) / n)};
}

}  // namespace fedsim
