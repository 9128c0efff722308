#include "engine/xarmed/metrics.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::xarmed {

MeanSe mean_standard_error(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("mean_standard_error: no values");
  const double n = static_cast<double>(values.size());
  MeanSe out;
  for (const double v : values) out.mean += v;
  out.mean /= n;
  if (values.size() < 2) return out;
  double ss = 0.0;
  for (const double v : values) ss += (v - out.mean) * (v - out.mean);
  out.se = std::sqrt(ss / (n - 1.0) / n);
  return out;
}

std::vector<double> cumulative(const std::vector<double>& per_step, double scale) {
  std::vector<double> out(per_step.size());
  double sum = 0.0;
  for (std::size_t t = 0; t < per_step.size(); ++t) {
    sum += per_step[t];
    out[t] = sum / scale;
  }
  return out;
}

}  // namespace fedsim::xarmed
