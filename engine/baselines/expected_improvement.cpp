#include "engine/baselines/expected_improvement.hpp"

#include <cmath>

namespace fedsim::baselines {

namespace {
constexpr double inv_sqrt_2pi = 0.39894228040143267794;
constexpr double sd_floor = 1e-10;
}  // namespace

double normal_pdf(double z) { return inv_sqrt_2pi * std::exp(-0.5 * z * z); }

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double log_normal_cdf(double z, double* derivative) {
  if (z > -30.0) {
    const double cdf = normal_cdf(z);
    if (derivative) *derivative = normal_pdf(z) / cdf;
    return std::log(cdf);
  }
  // Phi(z) = phi(z) / (-z) (1 - 1/z^2 + 3/z^4 - 15/z^6 + ...), relative error < 2e-10 here.
  const double w = 1.0 / (z * z);
  const double series = 1.0 - w + 3.0 * w * w - 15.0 * w * w * w;
  if (derivative) *derivative = -z / series;
  return -0.5 * z * z - std::log(-z) + std::log(inv_sqrt_2pi) + std::log(series);
}

ExpectedImprovement expected_improvement(double mean, double sd, double best, double xi) {
  const bool floored = !(sd >= sd_floor);
  const double s = floored ? sd_floor : sd;
  const double u = (mean - best - xi) / s;
  const double cdf = normal_cdf(u), pdf = normal_pdf(u);
  return {s * (u * cdf + pdf), cdf, floored ? 0.0 : pdf};
}

VarianceExpectedImprovement expected_improvement_of_variance(double mean, double variance,
                                                             double incumbent) {
  VarianceExpectedImprovement ei;
  const double gain = mean - incumbent;
  if (!(variance > 0)) {
    ei.value = gain > 0 ? gain : 0.0;
    ei.d_mean = gain > 0 ? 1.0 : 0.0;
    return ei;
  }
  const double sd = std::sqrt(variance);
  const double z = gain / sd;
  const double cdf = normal_cdf(z), pdf = normal_pdf(z);
  ei.value = gain * cdf + sd * pdf;
  ei.d_mean = cdf;
  ei.d_variance = pdf / (2.0 * sd);
  return ei;
}

}  // namespace fedsim::baselines
