#include <catch2/catch.hpp>

#include <stdexcept>

#include "engine/domain.hpp"

using namespace fedsim;

TEST_CASE("the papers' 1-D grid has 1000 equally spaced points on [0,1]", "[domain]") {
  const Grid g = Grid::uniform_1d(1000);
  REQUIRE(g.size() == 1000);
  CHECK(g.points(0, 0) == 0.0);
  CHECK(g.points(999, 0) == 1.0);
  CHECK(g.points(1, 0) == Approx(1.0 / 999));
  Eigen::VectorXd x(1);
  x << 0.5004;
  CHECK(g.nearest(x) == 500);
}

TEST_CASE("1-D partitions match DP-FTS-DE appendix B.1.1", "[domain]") {
  const Partition p2(Box::unit(1), 2), p3(Box::unit(1), 3);
  Eigen::VectorXd x(1);
  x << 0.4999;
  CHECK(p2.region_of(x) == 0);
  x << 0.5;
  CHECK(p2.region_of(x) == 1);  // [0, 0.5) and [0.5, 1]
  x << 1.0;
  CHECK(p2.region_of(x) == 1);
  CHECK(p3.region(1).lower(0) == Approx(1.0 / 3));
  CHECK(p3.region(1).upper(0) == Approx(2.0 / 3));
  x << 0.7;
  CHECK(p3.region_of(x) == 2);
  // Every sub-region gets about a third of the 1000-point grid.
  const auto regions = p3.regions_of(Grid::uniform_1d(1000).points);
  int counts[3] = {0, 0, 0};
  for (int r : regions) ++counts[r];
  for (int c : counts) CHECK(std::abs(c - 333) <= 1);
}

TEST_CASE("P = 4 in 2-D gives the paper's four quadrants in its order", "[domain]") {
  const Partition p(Box::unit(2), 4);
  REQUIRE(p.size() == 4);
  // X1 = [0,.5)x[0,.5), X2 = [0,.5)x[.5,1], X3 = [.5,1]x[0,.5), X4 = [.5,1]x[.5,1].
  const double lo[4][2] = {{0, 0}, {0, 0.5}, {0.5, 0}, {0.5, 0.5}};
  for (int i = 0; i < 4; ++i) {
    CHECK(p.region(i).lower(0) == lo[i][0]);
    CHECK(p.region(i).lower(1) == lo[i][1]);
    CHECK(p.region(i).volume() == Approx(0.25));
  }
  Eigen::Vector2d x(0.2, 0.7);
  CHECK(p.region_of(x) == 1);
  x << 0.9, 0.1;
  CHECK(p.region_of(x) == 2);
}

TEST_CASE("P = 4 in 3-D halves the first two axes and keeps the third whole", "[domain]") {
  const Partition p(Box::unit(3), 4);
  REQUIRE(p.cuts() == std::vector<int>{2, 2, 1});
  for (int i = 0; i < 4; ++i) {
    CHECK(p.region(i).lower(2) == 0.0);
    CHECK(p.region(i).upper(2) == 1.0);
    CHECK(p.region(i).volume() == Approx(0.25));
  }
}

TEST_CASE("every point of a box lies in exactly the sub-region region_of names", "[domain]") {
  for (int P : {1, 2, 3, 4, 6, 8, 9}) {
    const Partition p(Box::unit(2), P);
    double total = 0;
    for (int i = 0; i < p.size(); ++i) total += p.region(i).volume();
    CHECK(total == Approx(1.0));
    const Grid g = Grid::tensor(Box::unit(2), 17);
    for (int r = 0; r < g.size(); ++r) {
      const Eigen::VectorXd x = g.points.row(r).transpose();
      CHECK(p.region(p.region_of(x)).contains(x));
    }
  }
}

TEST_CASE("bad domains are rejected with a message", "[domain]") {
  CHECK_THROWS_AS(Partition(Box::unit(1), 0), std::invalid_argument);
  Box empty{Eigen::VectorXd::Constant(1, 0.5), Eigen::VectorXd::Constant(1, 0.5)};
  CHECK_THROWS_WITH(empty.validate(), Catch::Contains("empty"));
  CHECK_THROWS_AS(Grid::uniform_1d(0), std::invalid_argument);
  CHECK_THROWS_AS(Grid::uniform_1d(10, 1.0, 0.0), std::invalid_argument);
  Box mismatched{Eigen::VectorXd::Zero(2), Eigen::VectorXd::Ones(3)};
  CHECK_THROWS_AS(mismatched.validate(), std::invalid_argument);
}
