#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "engine/objectives/test_functions.hpp"
#include "engine/rng.hpp"

using fedsim::Objective;
using fedsim::RandomStream;

namespace {

Eigen::VectorXd uniform_point(int d, RandomStream& rng) {
  Eigen::VectorXd x(d);
  for (int j = 0; j < d; ++j) x(j) = rng.uniform();
  return x;
}

/// The optimum is not beaten by 20000 random points nor by small moves around the maximiser
/// (steps 1e-3 along each axis, both ways, kept inside the box).
void check_is_maximum(const Objective& f, RandomStream& rng) {
  const double best = f.optimum_value();
  const Eigen::VectorXd x_star = f.optimum_location();
  CHECK(f.value(x_star) == best);
  double sampled = -INFINITY;
  for (int i = 0; i < 20000; ++i) sampled = std::max(sampled, f.value(uniform_point(f.dim(), rng)));
  CHECK(sampled <= best);
  for (int j = 0; j < f.dim(); ++j)
    for (const double step : {-1e-3, 1e-3}) {
      Eigen::VectorXd x = x_star;
      x(j) = std::min(1.0, std::max(0.0, x(j) + step));
      CHECK(f.value(x) <= best);
    }
}

}  // namespace

TEST_CASE("test functions take their published optimum values", "[objectives]") {
  // Published minima of the usual (minimised) forms, negated; the published Hartmann
  // maximisers carry only 6 digits, so they are compared at 1e-5.
  const fedsim::Branin branin;
  CHECK(branin.optimum_value() == Approx(-0.397887357729738).epsilon(1e-12));
  // The two other Branin maximisers, (-pi, 12.275) and (9.42478, 2.475).
  CHECK(branin.value(Eigen::Vector2d((5.0 - M_PI) / 15.0, 12.275 / 15.0)) ==
        Approx(-0.397887).epsilon(1e-6));
  CHECK(branin.value(Eigen::Vector2d((9.42478 + 5.0) / 15.0, 2.475 / 15.0)) ==
        Approx(-0.397887).epsilon(1e-6));
  // A non-optimal point in the usual domain: (0, 0) -> 36 + 10 (1 - 1/(8 pi)) + 10.
  CHECK(branin.value(Eigen::Vector2d(5.0 / 15.0, 0.0)) ==
        Approx(-55.602112642270262).epsilon(1e-12));

  const fedsim::Hartmann3 h3;
  CHECK(h3.optimum_value() == Approx(3.86278).epsilon(1e-5));
  CHECK(h3.value(Eigen::Vector3d(0.114614, 0.555649, 0.852547)) == Approx(3.86278).epsilon(1e-5));
  CHECK(h3.optimum_value() >= h3.value(Eigen::Vector3d(0.114614, 0.555649, 0.852547)));

  const fedsim::Hartmann6 h6;
  CHECK(h6.optimum_value() == Approx(3.32237).epsilon(1e-5));
  Eigen::VectorXd published(6);
  published << 0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573;
  CHECK(h6.value(published) == Approx(3.32237).epsilon(1e-5));
  CHECK(h6.optimum_value() >= h6.value(published));

  for (const int d : {1, 2, 5}) {
    const fedsim::Ackley ackley(d);
    CHECK(ackley.optimum_value() == Approx(0.0).margin(1e-14));
    CHECK(ackley.optimum_location() == Eigen::VectorXd::Constant(d, 0.5));
    // At z = 1 (usual domain) on every axis: -(-20 e^{-0.2} - e + 20 + e) = -3.6253849.
    const Eigen::VectorXd one = Eigen::VectorXd::Constant(d, 0.5 + 0.5 / 32.768);
    CHECK(ackley.value(one) == Approx(-(20.0 - 20.0 * std::exp(-0.2))).epsilon(1e-10));
  }
}

TEST_CASE("no random point beats a test function's optimum", "[objectives]") {
  RandomStream rng(1, "objectives.random");
  check_is_maximum(fedsim::Branin(), rng);
  check_is_maximum(fedsim::Hartmann3(), rng);
  check_is_maximum(fedsim::Hartmann6(), rng);
  check_is_maximum(fedsim::Ackley(3), rng);
}

TEST_CASE("test functions by name", "[objectives]") {
  CHECK(fedsim::make_test_function("branin")->dim() == 2);
  CHECK(fedsim::make_test_function("hartmann3")->dim() == 3);
  CHECK(fedsim::make_test_function("hartmann6")->dim() == 6);
  CHECK(fedsim::make_test_function("ackley", 4)->dim() == 4);
  CHECK_THROWS_AS(fedsim::make_test_function("rosenbrock"), std::invalid_argument);
  CHECK_THROWS_AS(fedsim::Ackley(0), std::invalid_argument);
  CHECK_THROWS_AS(fedsim::Branin().value(Eigen::VectorXd::Zero(3)), std::invalid_argument);
}

TEST_CASE("agent shifts move the maximiser as documented", "[objectives]") {
  const std::vector<std::string> names{"branin", "hartmann3", "hartmann6", "ackley"};
  for (const auto& name : names) {
    const auto base = fedsim::make_test_function(name, 3);
    const int d = base->dim();
    const Eigen::VectorXd x0 = base->optimum_location();
    for (std::uint64_t agent = 0; agent < 4; ++agent) {
      const double magnitude = 0.2;
      const auto f = fedsim::make_agent_objective(base, 99, agent, magnitude);
      // Recompute the documented shift: uniform draws, then clamped so x0 + shift is in the box.
      RandomStream rng(99, "objective.shift", agent);
      Eigen::VectorXd expected(d);
      for (int j = 0; j < d; ++j) {
        const double s = rng.uniform(-magnitude, magnitude);
        expected(j) = std::min(1.0 - x0(j), std::max(-x0(j), s));
      }
      CHECK((f->shift() - expected).cwiseAbs().maxCoeff() == 0.0);
      CHECK((f->optimum_location() - (x0 + expected)).cwiseAbs().maxCoeff() < 1e-15);
      CHECK(f->optimum_value() == base->optimum_value());
      CHECK(f->value(f->optimum_location()) == Approx(base->optimum_value()).epsilon(1e-14));
      // Inside the box the variant is the base evaluated at x - shift.
      RandomStream points(7, "objectives.shifted", agent);
      double worst_gap = 0.0, sampled = -INFINITY;
      for (int i = 0; i < 200; ++i) {
        const Eigen::VectorXd x = uniform_point(d, points);
        const Eigen::VectorXd z = x - f->shift();
        if ((z.array() >= 0.0).all() && (z.array() <= 1.0).all())
          worst_gap = std::max(worst_gap, std::abs(f->value(x) - base->value(z)));
        sampled = std::max(sampled, f->value(x));
      }
      CHECK(worst_gap == 0.0);
      CHECK(sampled <= f->optimum_value());
    }
    // Different agents get different shifts; magnitude 0 is the base function.
    CHECK(fedsim::make_agent_objective(base, 99, 0, 0.2)->shift() !=
          fedsim::make_agent_objective(base, 99, 1, 0.2)->shift());
    const auto same = fedsim::make_agent_objective(base, 99, 0, 0.0);
    CHECK(same->shift() == Eigen::VectorXd::Zero(d));
    CHECK(same->value(x0) == base->value(x0));
  }
}

TEST_CASE("a shift that would push the maximiser out of the box is clamped", "[objectives]") {
  // Hartmann3's maximiser has x_0 = 0.1146: a shift of -0.5 on that axis is cut to -0.1146.
  const auto base = std::make_shared<const fedsim::Hartmann3>();
  const fedsim::ShiftedObjective f(base, Eigen::Vector3d(-0.5, 0.1, 0.9));
  const Eigen::VectorXd x0 = base->optimum_location();
  CHECK(f.shift()(0) == -x0(0));
  CHECK(f.shift()(1) == 0.1);
  CHECK(f.shift()(2) == 1.0 - x0(2));
  CHECK(f.optimum_location()(0) == 0.0);
  CHECK(f.optimum_location()(2) == Approx(1.0).epsilon(1e-15));
  CHECK(f.value(f.optimum_location()) == Approx(base->optimum_value()).epsilon(1e-14));
  CHECK_THROWS_AS(fedsim::ShiftedObjective(base, Eigen::VectorXd::Zero(2)), std::invalid_argument);
}
