#include "engine/dp/analytic_gaussian.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/dp/checks.hpp"
#include "engine/dp/log_math.hpp"

namespace fedsim::dp {

double gaussian_delta(double epsilon, double sigma) {
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw std::invalid_argument("sigma must be a finite number > 0");
  if (!(epsilon >= 0.0)) throw std::invalid_argument("epsilon must be >= 0");
  const double a = 0.5 / sigma - epsilon * sigma, b = -0.5 / sigma - epsilon * sigma;
  // delta = Phi(a) (1 - e^(eps + log Phi(b) - log Phi(a))); b < a, so the bracket is in (0, 1].
  const double log_pa = log_normal_cdf(a);
  const double ratio = epsilon + log_normal_cdf(b) - log_pa;
  if (ratio >= 0.0) return 0.0;  // only by rounding: the true value is positive
  return std::exp(log_pa) * -std::expm1(ratio);
}

double gaussian_epsilon(double delta, double sigma) {
  check_delta(delta);
  if (gaussian_delta(0.0, sigma) <= delta) return 0.0;
  double lo = 0.0, hi = 1.0;
  while (gaussian_delta(hi, sigma) > delta) {
    lo = hi;
    hi *= 2.0;
  }
  // delta(eps) is decreasing: keep delta(lo) > delta >= delta(hi).
  while (hi - lo > 1e-13 * hi) {
    const double mid = 0.5 * (lo + hi);
    (gaussian_delta(mid, sigma) > delta ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace fedsim::dp
