#include "engine/dp/log_math.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedsim::dp {

double log_add(double a, double b) {
  const double hi = std::max(a, b), lo = std::min(a, b);
  if (lo == -kInf || hi == kInf) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

double log_sub(double a, double b) {
  if (a < b) throw std::domain_error("log_sub: a < b");
  if (b == -kInf) return a;
  if (a == b) return -kInf;
  // log(e^a - e^b) = a + log(1 - e^(b - a)), the log1p form is exact for b << a.
  const double d = b - a;
  return a + (d > -0.693 ? std::log(-std::expm1(d)) : std::log1p(-std::exp(d)));
}

double log_erfc(double x) {
  if (x < 25.0) return std::log(std::erfc(x));
  // Asymptotic series erfc(x) = e^(-x^2) / (x sqrt(pi)) * sum (-1)^n (2n-1)!! / (2x^2)^n;
  // at x >= 25 eight terms leave a relative error below 1e-18.
  const double u = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int n = 1; n < 8; ++n) {
    term *= -(2.0 * n - 1.0) * u;
    sum += term;
  }
  return -x * x - std::log(x) - 0.5 * std::log(M_PI) + std::log(sum);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / M_SQRT2); }

double normal_sf(double x) { return 0.5 * std::erfc(x / M_SQRT2); }

double log_normal_cdf(double x) { return std::log(0.5) + log_erfc(-x / M_SQRT2); }

}  // namespace fedsim::dp
