#include <catch2/catch.hpp>

#include <set>

#include "engine/fbo/algorithms.hpp"

using namespace fedsim;
using namespace fedsim::fbo;

TEST_CASE("one-shot FTS uses every other agent's message exactly once", "[fbo]") {
  std::vector<Eigen::VectorXd> msgs(6, Eigen::VectorXd::Zero(2));
  std::vector<const Eigen::VectorXd*> ptrs;
  for (auto& m : msgs) ptrs.push_back(&m);
  ptrs[4] = nullptr;  // a straggler: weight 0
  FtsMessagePool pool(true);
  pool.reset(ptrs, 2);  // the owner, agent 2, is excluded
  RandomStream rng(1, "pool");
  std::set<int> used;
  while (!pool.empty()) {
    int source = -1;
    const auto m = pool.draw(rng, &source);
    CHECK(m.data() == msgs[source].data());  // a view, not a copy
    CHECK(m.size() == 2);
    CHECK(used.insert(source).second);
  }
  CHECK(used == std::set<int>{0, 1, 3, 5});
  CHECK_THROWS_AS(pool.draw(rng, nullptr), std::logic_error);
}

TEST_CASE("refreshed FTS draws uniformly from the other agents", "[fbo]") {
  std::vector<Eigen::VectorXd> msgs(5, Eigen::VectorXd::Zero(2));
  std::vector<const Eigen::VectorXd*> ptrs;
  for (auto& m : msgs) ptrs.push_back(&m);
  FtsMessagePool pool(false);
  pool.reset(ptrs, 0);
  RandomStream rng(2, "pool");
  std::vector<int> counts(5, 0);
  const int n = 40000;
  for (int k = 0; k < n; ++k) {
    int source = -1;
    pool.draw(rng, &source);
    ++counts[source];
  }
  CHECK(counts[0] == 0);
  // Binomial(n, 1/4): sd = 86.6; allow 5 sd.
  for (int m = 1; m < 5; ++m) CHECK(std::abs(counts[m] - n / 4) < 5 * 86.6);
}
