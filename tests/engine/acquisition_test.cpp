#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/acquisition.hpp"
#include "engine/domain.hpp"
#include "engine/rff.hpp"
#include "engine/rng.hpp"

using fedsim::Box;
using fedsim::BoxMaximizerOptions;
using fedsim::RandomFourierFeatures;
using fedsim::RandomStream;

namespace {

Eigen::VectorXd normals(int n, RandomStream& rng) {
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = rng.normal();
  return v;
}

/// f(x) = sum_j [cos(6 pi (x_j - c_j)) - 2 (x_j - c_j)^2]: many local maxima (period 1/3),
/// one global maximiser x = c with value d.
struct Bumpy {
  Eigen::VectorXd c;
  double operator()(const Eigen::Ref<const Eigen::VectorXd>& x,
                    Eigen::Ref<Eigen::VectorXd> g) const {
    const Eigen::ArrayXd u = (x - c).array();
    g = (-6.0 * M_PI * (6.0 * M_PI * u).sin() - 4.0 * u).matrix();
    return ((6.0 * M_PI * u).cos() - 2.0 * u.square()).sum();
  }
};

}  // namespace

TEST_CASE("RFF value_and_gradient matches central finite differences", "[acq]") {
  // Step 1e-6 on a function with |second derivative| ~ |s|^2 ~ 1/l^2 = 25: truncation
  // ~ h^2 |f'''| ~ 1e-10, rounding ~ 1e-16 / 1e-6 = 1e-10; tolerance 1e-6 (relative + margin).
  RandomStream rng(1, "acq.grad");
  for (int d = 1; d <= 3; ++d) {
    const RandomFourierFeatures rff(d, 60, fedsim::SeKernel{0.2, 1.7}, 10 + d);
    for (int trial = 0; trial < 5; ++trial) {
      const Eigen::VectorXd omega = normals(60, rng);
      Eigen::VectorXd x(d);
      for (int j = 0; j < d; ++j) x(j) = rng.uniform();
      Eigen::VectorXd g(d), scratch(d);
      const double v = rff.value_and_gradient(x, omega, g);
      CHECK(v == Approx(rff.features(x).dot(omega)).epsilon(1e-12).margin(1e-12));
      for (int j = 0; j < d; ++j) {
        const double h = 1e-6;
        Eigen::VectorXd xp = x, xm = x;
        xp(j) += h;
        xm(j) -= h;
        const double fd = (rff.value_and_gradient(xp, omega, scratch) -
                           rff.value_and_gradient(xm, omega, scratch)) /
                          (2 * h);
        CHECK(g(j) == Approx(fd).epsilon(1e-6).margin(1e-6));
      }
    }
  }
}

TEST_CASE("grid argmax is exact with ties going to the lowest index", "[acq]") {
  RandomStream rng(2, "acq.grid");
  Eigen::VectorXd v(500);
  for (int i = 0; i < 500; ++i) v(i) = std::floor(rng.uniform() * 50);  // many ties
  double top = -1;
  int first = -1;
  for (int i = 0; i < 500; ++i)
    if (v(i) > top) top = v(i), first = i;
  const auto m = fedsim::grid_argmax(v);
  CHECK(m.index == first);
  CHECK(m.value == top);
  v(first) = std::numeric_limits<double>::quiet_NaN();  // NaN is skipped, the next tie wins
  int second = -1;
  for (int i = 0; i < 500 && second < 0; ++i)
    if (v(i) == top) second = i;
  if (second >= 0) CHECK(fedsim::grid_argmax(v).index == second);
  Eigen::VectorXd nan0(3);
  nan0 << std::numeric_limits<double>::quiet_NaN(), 1.0, 1.0;
  CHECK(fedsim::grid_argmax(nan0).index == 1);
  CHECK_THROWS_AS(fedsim::grid_argmax(Eigen::VectorXd()), std::invalid_argument);
}

TEST_CASE("grid argmax by region uses each point's own sub-region weights", "[acq]") {
  RandomStream rng(3, "acq.region");
  const RandomFourierFeatures rff(2, 40, fedsim::SeKernel{0.25, 1.0}, 7);
  const fedsim::Grid grid = fedsim::Grid::tensor(Box::unit(2), 21);
  const fedsim::Partition partition(Box::unit(2), 4);
  const std::vector<int> regions = partition.regions_of(grid.points);
  Eigen::MatrixXd omegas(40, 4);
  for (int i = 0; i < 4; ++i) omegas.col(i) = normals(40, rng);
  // Brute force, one point at a time.
  Eigen::VectorXd expected(grid.size());
  for (int j = 0; j < grid.size(); ++j)
    expected(j) = rff.features(Eigen::VectorXd(grid.points.row(j).transpose()))
                      .dot(omegas.col(partition.region_of(grid.points.row(j).transpose())));
  const Eigen::MatrixXd phi = rff.feature_matrix(grid.points);
  CHECK((fedsim::region_values(phi, omegas, regions) - expected).cwiseAbs().maxCoeff() < 1e-12);
  Eigen::Index best;
  expected.maxCoeff(&best);
  const auto m = fedsim::grid_argmax_by_region(phi, omegas, regions);
  CHECK(m.index == best);
  CHECK(m.value == Approx(expected(best)).epsilon(1e-12));
  // A region index out of range is an error.
  std::vector<int> bad = regions;
  bad[3] = 4;
  CHECK_THROWS_AS(fedsim::region_values(phi, omegas, bad), std::invalid_argument);
}

TEST_CASE("box maximiser finds a known global maximum among many local ones", "[acq]") {
  for (int d = 1; d <= 3; ++d) {
    Bumpy f{Eigen::VectorXd::LinSpaced(d, 0.37, 0.71)};
    const Box box = Box::unit(d);
    RandomStream rng(4, "acq.box", d);
    RandomStream replay = rng;  // the maximiser's candidates are its first draws
    BoxMaximizerOptions options;
    options.num_random = 500;
    const auto m = fedsim::maximize_on_box(f, box, rng, options);
    CHECK((m.x - f.c).cwiseAbs().maxCoeff() < 1e-6);
    CHECK(m.value == Approx(d).epsilon(1e-10));
    CHECK(box.contains(m.x));
    // Never worse than the best random candidate.
    const Eigen::MatrixXd X = fedsim::uniform_in_box(box, options.num_random, replay);
    Eigen::VectorXd g(d);
    double best_random = -INFINITY;
    for (int i = 0; i < X.rows(); ++i)
      best_random = std::max(best_random, f(X.row(i).transpose(), g));
    CHECK(m.value >= best_random);
    CHECK(m.value > best_random + 1e-9);  // and refinement did improve it
  }
}

TEST_CASE("box maximiser stops at the boundary when the maximum is outside the box", "[acq]") {
  // -|x - c|^2 with c = (1.4, -0.3) outside [0,1]^2: the constrained maximiser is (1, 0).
  const Eigen::Vector2d c(1.4, -0.3);
  const fedsim::ValueAndGradient f = [&](const Eigen::Ref<const Eigen::VectorXd>& x,
                                         Eigen::Ref<Eigen::VectorXd> g) {
    g = -2.0 * (x - c);
    return -(x - c).squaredNorm();
  };
  RandomStream rng(5, "acq.bound");
  const auto m = fedsim::maximize_on_box(f, Box::unit(2), rng);
  CHECK((m.x - Eigen::Vector2d(1.0, 0.0)).cwiseAbs().maxCoeff() < 1e-9);
  CHECK(m.value == Approx(-0.25).epsilon(1e-9));
}

TEST_CASE("feature maximiser on a box beats a fine grid search", "[acq]") {
  // The refined maximum must reach the best value on a fine grid, up to 1e-9: a grid point is a
  // feasible point, and L-BFGS converges to the local maximum of the best basin.
  RandomStream rng(6, "acq.features");
  SECTION("1-D, 100001-point grid") {
    const RandomFourierFeatures rff(1, 100, fedsim::SeKernel{0.05, 1.0}, 3);
    const Eigen::VectorXd omega = normals(100, rng);
    const auto m = fedsim::maximize_features_on_box(rff, omega, Box::unit(1), rng);
    const Eigen::MatrixXd grid = Eigen::VectorXd::LinSpaced(100001, 0.0, 1.0);
    const double grid_best = (rff.feature_matrix(grid) * omega).maxCoeff();
    CHECK(m.value >= grid_best - 1e-9);
    CHECK(m.value == Approx(rff.features(m.x).dot(omega)).epsilon(1e-12));
  }
  SECTION("2-D, 401 x 401 grid") {
    const RandomFourierFeatures rff(2, 100, fedsim::SeKernel{0.1, 2.0}, 4);
    const Eigen::VectorXd omega = normals(100, rng);
    const auto m = fedsim::maximize_features_on_box(rff, omega, Box::unit(2), rng);
    const fedsim::Grid grid = fedsim::Grid::tensor(Box::unit(2), 401);
    const double grid_best = (rff.feature_matrix(grid.points) * omega).maxCoeff();
    CHECK(m.value >= grid_best - 1e-9);
  }
}

TEST_CASE("feature maximiser by sub-region takes each region's own weights", "[acq]") {
  RandomStream rng(7, "acq.byregion");
  const RandomFourierFeatures rff(2, 80, fedsim::SeKernel{0.15, 1.0}, 5);
  const fedsim::Partition partition(Box::unit(2), 4);
  Eigen::MatrixXd omegas(80, 4);
  for (int i = 0; i < 4; ++i) omegas.col(i) = normals(80, rng);
  const auto m = fedsim::maximize_features_by_region(rff, omegas, partition, rng);
  REQUIRE(m.region >= 0);
  REQUIRE(m.region < 4);
  CHECK(partition.region(m.region).contains(m.x));
  CHECK(m.value == Approx(rff.features(m.x).dot(omegas.col(m.region))).epsilon(1e-12));
  // Reference: a 301 x 301 grid, each point scored with the weights of every sub-region whose
  // closed box holds it (faces count for both sides, as the maximiser searches closed boxes).
  const fedsim::Grid grid = fedsim::Grid::tensor(Box::unit(2), 301);
  const Eigen::MatrixXd values = rff.feature_matrix(grid.points) * omegas;  // n x P
  double grid_best = -INFINITY;
  for (int j = 0; j < grid.size(); ++j)
    for (int i = 0; i < 4; ++i)
      if (partition.region(i).contains(grid.points.row(j).transpose()))
        grid_best = std::max(grid_best, values(j, i));
  CHECK(m.value >= grid_best - 1e-9);
}
