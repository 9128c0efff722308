#include "engine/dp/analytic_gaussian.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace fedsim::dp;

namespace {
// Slower exact method: delta(eps) = E[(1 - e^(eps - L))_+] with the Gaussian mechanism's
// privacy loss L ~ N(1/(2 s^2), 1/s^2), by the trapezoid rule on +-40 sd (200001 points).
double delta_by_quadrature(double eps, double s) {
  const double mean = 1 / (2 * s * s), sd = 1 / s;
  const int n = 200000;
  const double lo = mean - 40 * sd, h = 80 * sd / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double l = lo + i * h;
    if (l <= eps) continue;
    const double w = (i == n) ? 0.5 : 1.0;
    sum += w * h * std::exp(-0.5 * std::pow((l - mean) / sd, 2)) / (sd * std::sqrt(2 * M_PI)) *
           -std::expm1(eps - l);
  }
  return sum;
}
}  // namespace

TEST_CASE("analytic Gaussian delta: hand value and the privacy-loss integral", "[dp][gaussian]") {
  // sigma = 1, eps = 1: Phi(-0.5) - e Phi(-1.5) = 0.3085375387 - 2.718281828 * 0.0668072013.
  CHECK(gaussian_delta(1.0, 1.0) ==
        Approx(0.3085375387 - 2.718281828 * 0.0668072013).epsilon(1e-9));
  for (double s : {0.2, 1.0, 5.0})
    for (double eps : {0.0, 0.5, 2.0, 8.0}) {
      INFO("sigma = " << s << ", eps = " << eps);
      const double exact = delta_by_quadrature(eps, s);
      // The kink at l = eps costs the rule O(h^2); 1e-8 absolute is plenty.
      CHECK(gaussian_delta(eps, s) == Approx(exact).margin(1e-8).epsilon(1e-6));
    }
}

TEST_CASE("analytic Gaussian epsilon inverts delta, also deep in the tails", "[dp][gaussian]") {
  for (double s : {0.01, 0.158, 1.0, 30.0})
    for (double delta : {1e-300, 1e-12, 1e-5, 0.1}) {
      INFO("sigma = " << s << ", delta = " << delta);
      const double eps = gaussian_epsilon(delta, s);
      REQUIRE(std::isfinite(eps));
      if (eps > 0) {
        CHECK(gaussian_delta(eps, s) <= delta * (1 + 1e-9));
        CHECK(gaussian_delta(eps * (1 - 1e-9), s) >= delta * (1 - 1e-6));
      }
    }
  CHECK(gaussian_epsilon(0.5, 30.0) == 0.0);  // delta(0) = 2 Phi(1/60) - 1 = 0.0133 < 0.5
  CHECK_THROWS_AS(gaussian_epsilon(0.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(gaussian_delta(1.0, -1.0), std::invalid_argument);
}
