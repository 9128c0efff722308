#include "engine/baselines/gaussian_ei.hpp"

#include <cmath>

namespace fedsim::baselines {

ExpectedImprovement expected_improvement(double mean, double variance, double incumbent) {
  ExpectedImprovement ei;
  const double gain = mean - incumbent;
  if (!(variance > 0)) {
    ei.value = gain > 0 ? gain : 0.0;
    ei.d_mean = gain > 0 ? 1.0 : 0.0;
    return ei;
  }
  const double sd = std::sqrt(variance);
  const double z = gain / sd;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
  ei.value = gain * cdf + sd * pdf;
  ei.d_mean = cdf;
  ei.d_variance = pdf / (2.0 * sd);
  return ei;
}

}  // namespace fedsim::baselines
