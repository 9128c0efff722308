#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <stdexcept>

#include "engine/xarmed/partition_tree.hpp"

using fedsim::Box;
using fedsim::RandomStream;
using fedsim::xarmed::NodeId;
using fedsim::xarmed::PartitionTree;
using fedsim::xarmed::PointRule;
using fedsim::xarmed::SplitRule;

TEST_CASE("partition: (h, i) indexing, children k(i-1)+1 .. k i, parent", "[xarmed]") {
  const PartitionTree binary(Box::unit(1));
  CHECK(PartitionTree::root() == NodeId{0, 1});
  const auto c = binary.children({2, 3});
  REQUIRE(c.size() == 2);
  CHECK(c[0] == NodeId{3, 5});
  CHECK(c[1] == NodeId{3, 6});
  CHECK(binary.parent({3, 6}) == NodeId{2, 3});
  const PartitionTree ternary(Box::unit(1), 3);
  const auto t = ternary.children({1, 2});  // P_{1,2} = P_{2,6} u P_{2,5} u P_{2,4}
  REQUIRE(t.size() == 3);
  CHECK(t[0] == NodeId{2, 4});
  CHECK(t[2] == NodeId{2, 6});
  for (const NodeId& n : t) CHECK(ternary.parent(n) == NodeId{1, 2});
  CHECK(binary.max_depth() == 63);
  CHECK_THROWS_AS(binary.parent(PartitionTree::root()), std::out_of_range);
  CHECK_THROWS_AS(binary.cell({2, 5}), std::out_of_range);
  CHECK_THROWS_AS(binary.cell({2, 0}), std::out_of_range);
  CHECK_THROWS_AS(PartitionTree(Box::unit(1), 1), std::invalid_argument);
}

TEST_CASE("partition: cells computed by hand (1-D halving, thirds, 2-D cyclic)", "[xarmed]") {
  // (3, 5): i - 1 = 4 = 100 in base 2: high half, low, low -> [0.5, 0.625].
  const PartitionTree binary(Box::unit(1), 2, SplitRule::random_axis, 7);
  Box cell = binary.cell({3, 5});
  CHECK(cell.lower(0) == 0.5);
  CHECK(cell.upper(0) == 0.625);
  // (2, 4) in thirds: i - 1 = 3 = 10 in base 3 -> [1/3, 4/9].
  const PartitionTree ternary(Box::unit(1), 3);
  cell = ternary.cell({2, 4});
  CHECK(cell.lower(0) == Approx(1.0 / 3));
  CHECK(cell.upper(0) == Approx(4.0 / 9));
  // 2-D cyclic: depth 0 cuts axis 0, depth 1 axis 1. (2, 2): low half of x, high half of y.
  const PartitionTree square(Box::unit(2), 2, SplitRule::cyclic);
  cell = square.cell({2, 2});
  CHECK(cell.lower(0) == 0.0);
  CHECK(cell.upper(0) == 0.5);
  CHECK(cell.lower(1) == 0.5);
  CHECK(cell.upper(1) == 1.0);
  // A non-unit box.
  Box box;
  box.lower = Eigen::Vector2d(-1.0, 10.0);
  box.upper = Eigen::Vector2d(3.0, 12.0);
  cell = PartitionTree(box, 2, SplitRule::cyclic).cell({1, 2});
  CHECK(cell.lower(0) == 1.0);
  CHECK(cell.upper(0) == 3.0);
  CHECK(cell.lower(1) == 10.0);
}

TEST_CASE("partition: random axes are keyed by the seed and tile the box in equal halves",
          "[xarmed]") {
  const PartitionTree a(Box::unit(3), 2, SplitRule::random_axis, 11);
  const PartitionTree b(Box::unit(3), 2, SplitRule::random_axis, 11);
  const PartitionTree other(Box::unit(3), 2, SplitRule::random_axis, 12);
  const int depth = 12;
  const std::uint64_t n = 1u << depth;
  double volume = 0.0;
  int axis0 = 0, differ = 0;
  for (std::uint64_t i = 1; i <= n; ++i) {
    const NodeId node{depth, i};
    CHECK(a.split_axis(node) == b.split_axis(node));
    if (a.split_axis(node) != other.split_axis(node)) ++differ;
    if (a.split_axis(node) == 0) ++axis0;
    const Box cell = a.cell(node);
    volume += cell.volume();
    // The cell is one of its parent's two equal halves along the parent's axis.
    const NodeId parent = a.parent(node);
    const Box pc = a.cell(parent);
    const int axis = a.split_axis(parent);
    CHECK(cell.volume() == Approx(pc.volume() / 2).epsilon(1e-12));
    CHECK((cell.upper(axis) - cell.lower(axis)) == Approx((pc.upper(axis) - pc.lower(axis)) / 2));
  }
  CHECK(volume == Approx(1.0).epsilon(1e-12));
  // Axis 0 with probability 1/3 over 4096 nodes: sd 0.0074, tolerance 0.04 (~5 sd).
  CHECK(static_cast<double>(axis0) / n == Approx(1.0 / 3).margin(0.04));
  CHECK(differ > 0);
}

TEST_CASE("partition: the pulled point is the centre or a uniform draw in the cell", "[xarmed]") {
  const PartitionTree tree(Box::unit(2), 2, SplitRule::cyclic);
  // (3, 6): i - 1 = 101 in base 2: high x half, low y half, high x quarter.
  const Box cell = tree.cell({3, 6});  // [0.75, 1] x [0, 0.5]
  RandomStream rng(3, "test");
  Eigen::VectorXd x;
  PartitionTree::point(cell, PointRule::centre, rng, x);
  CHECK(x(0) == 0.875);
  CHECK(x(1) == 0.25);
  Eigen::Vector2d mean = Eigen::Vector2d::Zero();
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    PartitionTree::point(cell, PointRule::uniform, rng, x);
    REQUIRE(cell.contains(x));
    mean += x / n;
  }
  // Uniform on sides 0.25 and 0.5: sd <= 0.145 per draw, 1e-3 for the mean; tolerance 5e-3.
  CHECK(mean(0) == Approx(0.875).margin(5e-3));
  CHECK(mean(1) == Approx(0.25).margin(5e-3));
}
