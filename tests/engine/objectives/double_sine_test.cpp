#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "engine/objectives/double_sine.hpp"

namespace {
double at(const fedsim::DoubleSine& f, double x) {
  return f.value(Eigen::VectorXd::Constant(1, x));
}
}  // namespace

TEST_CASE("double sine: f(0) = f(1) = -1, f(1/2) = 0 and values computed by hand",
          "[xarmed][objectives]") {
  const fedsim::DoubleSine f;  // rho_1 = 0.3, rho_2 = 0.8
  CHECK(at(f, 0.0) == Approx(-1.0).epsilon(1e-14));
  CHECK(at(f, 1.0) == Approx(-1.0).epsilon(1e-14));
  CHECK(at(f, 0.5) == 0.0);
  CHECK(f.optimum_value() == 0.0);
  CHECK(f.optimum_location()(0) == 0.5);
  // u = 1/2: s(-1/2) = 1/2, u^a = 0.8, u^b = 0.3 -> 0.5 (0.8 - 0.3) - 0.8 = -0.55.
  CHECK(at(f, 0.75) == Approx(-0.55).epsilon(1e-13));
  CHECK(at(f, 0.25) == Approx(-0.55).epsilon(1e-13));
  // u = 1/4: s(-1) = 1/2, u^a = 0.64, u^b = 0.09 -> -0.365.
  CHECK(at(f, 0.625) == Approx(-0.365).epsilon(1e-13));
  // u = 2^-1.5: s = 1, f = -u^b = -0.3^1.5 (the upper envelope).
  CHECK(at(f, 0.5 + std::pow(2.0, -1.5) / 2) == Approx(-std::pow(0.3, 1.5)).epsilon(1e-12));
}

TEST_CASE("double sine: between its envelopes, symmetric, maximum 0 only at 1/2",
          "[xarmed][objectives]") {
  const fedsim::DoubleSine f;
  const double a = -std::log2(0.8), b = -std::log2(0.3);
  const int n = 100000;
  for (int i = 0; i <= n; ++i) {
    const double x = static_cast<double>(i) / n;
    const double u = 2 * std::abs(x - 0.5);
    const double v = at(f, x);
    if (u == 0.0) continue;
    REQUIRE(v < 0.0);
    REQUIRE(v >= -std::pow(u, a) - 1e-14);
    REQUIRE(v <= -std::pow(u, b) + 1e-14);
    REQUIRE(v == Approx(at(f, 1.0 - x)).margin(1e-12));
  }
  CHECK_THROWS_AS(fedsim::DoubleSine(0.8, 0.3), std::invalid_argument);
  CHECK_THROWS_AS(fedsim::DoubleSine(0.3, 1.0), std::invalid_argument);
}
