// The arms of the multi-armed baselines (engine/baselines/arm_mesh): Fed-PNE appendix E.1.3's
// mesh, a random start in [lo, lo + w/K) and linspace(lo + w/K, hi, K - 1), per axis, as a
// tensor product.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "engine/baselines/arm_mesh.hpp"

using namespace fedsim;
using fedsim::baselines::make_arm_mesh;

TEST_CASE("arm mesh: on the unit interval with K = 100, a start below 0.01 then linspace(0.01, 1, 99)",
          "[baselines][mesh]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomStream rng(seed, "baselines.mesh");
    const auto mesh = make_arm_mesh(Box::unit(1), 100, rng);
    REQUIRE(mesh.arms() == 100);
    const auto& a = mesh.axes[0];
    CHECK(a[0] >= 0.0);
    CHECK(a[0] < 0.01);
    CHECK(a[1] == 0.01);
    CHECK(a[99] == 1.0);
    for (int i = 1; i <= 98; ++i)
      CHECK(a[static_cast<std::size_t>(i)] == Approx(0.01 + 0.99 * (i - 1) / 98.0).margin(1e-15));
    for (int i = 0; i < 100; ++i) CHECK(mesh.points(i, 0) == a[static_cast<std::size_t>(i)]);
    // The start is the stream's first uniform, scaled.
    RandomStream again(seed, "baselines.mesh");
    CHECK(a[0] == again.uniform(0.0, 0.01));
  }
  // Different seeds move the start only.
  RandomStream r1(1, "m"), r2(2, "m");
  const auto m1 = make_arm_mesh(Box::unit(1), 100, r1), m2 = make_arm_mesh(Box::unit(1), 100, r2);
  CHECK(m1.axes[0][0] != m2.axes[0][0]);
  CHECK(m1.points.bottomRows(99) == m2.points.bottomRows(99));
}

TEST_CASE("arm mesh: a box in 2-D is the tensor product of its axes, axis 0 fastest",
          "[baselines][mesh]") {
  Box box{Eigen::Vector2d(-1.0, 2.0), Eigen::Vector2d(1.0, 5.0)};
  RandomStream rng(7, "baselines.mesh");
  const auto mesh = make_arm_mesh(box, 4, rng);
  REQUIRE(mesh.arms() == 16);
  REQUIRE(mesh.points.cols() == 2);
  // Axis 0: w = 2, start in [-1, -0.5), then -0.5, 0.25, 1. Axis 1: w = 3, start in [2, 2.75),
  // then 2.75, 3.875, 5.
  CHECK(mesh.axes[0][0] >= -1.0);
  CHECK(mesh.axes[0][0] < -0.5);
  CHECK(mesh.axes[0][1] == -0.5);
  CHECK(mesh.axes[0][2] == Approx(0.25));
  CHECK(mesh.axes[0][3] == 1.0);
  CHECK(mesh.axes[1][0] >= 2.0);
  CHECK(mesh.axes[1][0] < 2.75);
  CHECK(mesh.axes[1][1] == 2.75);
  CHECK(mesh.axes[1][2] == Approx(3.875));
  CHECK(mesh.axes[1][3] == 5.0);
  for (int a = 0; a < 16; ++a) {
    CHECK(mesh.points(a, 0) == mesh.axes[0][static_cast<std::size_t>(a % 4)]);
    CHECK(mesh.points(a, 1) == mesh.axes[1][static_cast<std::size_t>(a / 4)]);
  }
}

TEST_CASE("arm mesh: K = 1 and K = 2, and sizes refused naming arms_per_dim", "[baselines][mesh]") {
  RandomStream rng(3, "baselines.mesh");
  const auto one = make_arm_mesh(Box::unit(1), 1, rng);
  CHECK(one.arms() == 1);
  CHECK(one.axes[0][0] < 1.0);
  const auto two = make_arm_mesh(Box::unit(1), 2, rng);
  CHECK(two.axes[0][0] < 0.5);
  CHECK(two.axes[0][1] == 0.5);  // numpy's one-point linspace(0.5, 1, 1) = [0.5]
  CHECK_THROWS_WITH(make_arm_mesh(Box::unit(1), 0, rng), Catch::Contains("arms_per_dim"));
  CHECK_THROWS_WITH(make_arm_mesh(Box::unit(4), 100, rng), Catch::Contains("arms_per_dim"));
  CHECK_NOTHROW(make_arm_mesh(Box::unit(3), 100, rng));  // 1e6 arms: the bound itself
}
