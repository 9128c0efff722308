#include <catch2/catch.hpp>

#include <cmath>

#include "engine/objectives/garland.hpp"

namespace {
double at(const fedsim::Garland& g, double x) { return g.value(Eigen::VectorXd::Constant(1, x)); }
}  // namespace

TEST_CASE("garland: values computed by hand", "[xarmed][objectives]") {
  const fedsim::Garland g;
  CHECK(at(g, 0.0) == 0.0);
  CHECK(at(g, 1.0) == 0.0);
  // 0.25 * 0.75 * (4 - sqrt|sin 15|), sin 15 = 0.650288 -> 0.598799
  CHECK(at(g, 0.25) == Approx(0.5987992001326592).epsilon(1e-13));
  CHECK(at(g, 0.1) == Approx(0.3124262095749004).epsilon(1e-13));
}

TEST_CASE("garland: maximum 4 (pi/6)(1 - pi/6) = 0.99777 at pi/6, checked on a fine grid",
          "[xarmed][objectives]") {
  const fedsim::Garland g;
  CHECK(g.optimum_value() == Approx(0.9977723911610445).epsilon(1e-15));
  CHECK(g.optimum_location()(0) == Approx(M_PI / 6).epsilon(1e-15));
  // At the double nearest pi/6, sin(60x) is ~1e-15, not 0: within 1e-7 of the supremum.
  CHECK(g.value(g.optimum_location()) == Approx(g.optimum_value()).margin(1e-7));
  CHECK(g.value(g.optimum_location()) <= g.optimum_value());
  // The cusp: 1e-4 away the value has dropped by ~0.25 sqrt(60e-4) ~ 0.019.
  CHECK(at(g, M_PI / 6 + 1e-4) == Approx(0.9784321171986893).epsilon(1e-12));
  // The runner-up local maximum, the zero 9 pi/60 of sin 60x.
  CHECK(at(g, 9 * M_PI / 60) == Approx(0.996691187783514).epsilon(1e-12));

  // 2e6 grid points: none exceeds the supremum, the best lies next to pi/6 (the cusp makes
  // the grid's maximum ~0.25 sqrt(60 |x - pi/6|) short of it).
  const int n = 2000000;
  double best = -1.0, best_x = 0.0;
  for (int i = 0; i <= n; ++i) {
    const double x = static_cast<double>(i) / n;
    const double v = at(g, x);
    if (v > best) best = v, best_x = x;
  }
  CHECK(best <= g.optimum_value());
  CHECK(std::abs(best_x - M_PI / 6) <= 0.5 / n);
  CHECK(best >= g.optimum_value() - 0.25 * std::sqrt(60.0 * 0.5 / n) - 1e-6);
}
