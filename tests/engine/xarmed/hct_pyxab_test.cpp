// HCT as PyXAB implements it (engine/xarmed/hct_pyxab.hpp): re-expansions of inner nodes after
// t+ doubles, orphaned subtrees still updated, and the run's count of them.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/xarmed/hct_pyxab.hpp"
#include "engine/xarmed/hct_run.hpp"

using fedsim::Box;
using fedsim::RandomStream;
using fedsim::xarmed::HctParams;
using fedsim::xarmed::HctVariant;
using fedsim::xarmed::PartitionTree;
using fedsim::xarmed::PyxabHct;

namespace {
double peak(double x) { return 1.0 - std::sqrt(std::abs(x - 0.3)); }
bool power_of_two(std::int64_t t) { return t > 0 && (t & (t - 1)) == 0; }
}  // namespace

TEST_CASE("pyxab hct: the first steps by hand", "[xarmed][pyxab]") {
  PyxabHct hct(PartitionTree(Box::unit(1)), HctParams{});
  RandomStream rng(1, "test");
  CHECK(hct.tree_size() == 3);
  // Both children have B = +inf: PyXAB takes the last of equal B (Azar's HCT here: the first).
  CHECK(hct.propose(rng)(0) == 0.75);
  CHECK_THROWS_AS(hct.propose(rng), std::logic_error);
  hct.observe(0.2);
  // tau_1 = ceil(0.01 L / 0.5625) = 1 for the L of any t+ here: the pulled child is expanded.
  CHECK(hct.tree_size() == 5);
  CHECK(hct.node(2).pulls == 1);
  CHECK_FALSE(hct.node(2).leaf);
  CHECK(hct.re_expansions() == 0);
  // The other child still has B = +inf; it is next.
  CHECK(hct.propose(rng)(0) == 0.25);
}

TEST_CASE("pyxab hct: an inner node is expanded again after t+ doubles, and its old subtree "
          "is orphaned but still updated", "[xarmed][pyxab]") {
  PyxabHct hct(PartitionTree(Box::unit(1)), HctParams{});
  RandomStream rng(7, "test");
  std::int64_t first = 0;  // the step of the first re-expansion
  std::size_t slot = 0;
  std::vector<std::size_t> old_children;
  for (int t = 1; t <= 20000 && first == 0; ++t) {
    const double x = hct.propose(rng)(0);
    const std::size_t at = hct.last_slot();
    const bool inner = !hct.node(at).leaf;
    std::vector<std::size_t> before;
    if (inner)  // its current children: the slots whose parent is `at` and reachable
      for (std::size_t s = 0; s < hct.tree_size(); ++s)
        if (hct.node(s).reachable && s != at && hct.node(s).id.depth == hct.node(at).id.depth + 1 &&
            hct.node(s).id.index / 2 + hct.node(s).id.index % 2 == hct.node(at).id.index)
          before.push_back(s);
    const auto count = hct.re_expansions();
    hct.observe(peak(x));
    if (hct.re_expansions() > count) {
      first = t;
      slot = at;
      old_children = before;
      REQUIRE(inner);  // only a node that had children is expanded again
    }
  }
  REQUIRE(first > 0);
  INFO("first re-expansion at step " << first << ", node slot " << slot);
  // An inner node is pulled only once its count fell below tau_h, which happens when t+
  // doubles: some power of two lies between its expansion and this step (first > 2).
  CHECK(first > 2);
  REQUIRE(old_children.size() == 2);
  for (std::size_t c : old_children) {
    CHECK_FALSE(hct.node(c).reachable);  // orphans, still stored
    CHECK(hct.node(c).id.depth == hct.node(slot).id.depth + 1);
  }
  CHECK_FALSE(hct.node(slot).leaf);
  // The orphans' U is still recomputed with everyone's at the next power of two.
  std::size_t orphan = old_children[0];
  if (hct.node(orphan).pulls == 0) orphan = old_children[1];
  REQUIRE(hct.node(orphan).pulls > 0);
  const double u_before = hct.node(orphan).u;
  const std::int64_t pulls_before = hct.node(orphan).pulls;
  std::int64_t t = hct.step();
  while (!power_of_two(t)) {  // run to the next power of two, then one step past it
    hct.observe(peak(hct.propose(rng)(0)));
    t = hct.step();
  }
  hct.observe(peak(hct.propose(rng)(0)));
  CHECK(hct.node(orphan).pulls == pulls_before);  // never pulled again
  CHECK(hct.node(orphan).u != u_before);          // but updated: its L grew
  CHECK(hct.node(orphan).u > u_before);
}

TEST_CASE("pyxab hct: a run counts its re-expansions and differs from Azar's", "[xarmed][pyxab]") {
  fedsim::xarmed::HctRunConfig c;
  c.problem.objective = fedsim::xarmed::ObjectiveKind::garland;
  c.budget = 10000;
  c.record_curve = false;
  const auto azar = fedsim::xarmed::run_hct(c);
  c.variant = HctVariant::pyxab;
  const auto pyxab = fedsim::xarmed::run_hct(c);
  const auto again = fedsim::xarmed::run_hct(c);
  INFO("azar: regret " << azar.cumulative_regret << ", nodes " << azar.tree_size
                       << "; pyxab: regret " << pyxab.cumulative_regret << ", nodes "
                       << pyxab.tree_size << ", re-expansions " << pyxab.re_expansions);
  CHECK(azar.re_expansions == 0);
  CHECK(pyxab.re_expansions > 0);
  CHECK(pyxab.cumulative_regret != azar.cumulative_regret);
  CHECK(again.cumulative_regret == pyxab.cumulative_regret);  // deterministic
  CHECK(again.re_expansions == pyxab.re_expansions);
}
