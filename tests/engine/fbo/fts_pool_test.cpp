#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

#include "engine/fbo/algorithms.hpp"

using namespace fedsim;
using namespace fedsim::fbo;

namespace {

/// `count` messages of 2 doubles, one after another, from the agents `sources`.
struct Round {
  std::vector<double> joint;
  std::vector<std::int32_t> sources;
  explicit Round(std::vector<std::int32_t> from) : sources(std::move(from)) {
    for (std::size_t k = 0; k < sources.size(); ++k) {
      joint.push_back(sources[k]);
      joint.push_back(-sources[k]);
    }
  }
};

}  // namespace

TEST_CASE("one-shot FTS uses every other agent's message exactly once", "[fbo]") {
  const Round round({0, 1, 2, 3, 5});  // agent 4 is a straggler: no message
  FtsMessagePool pool(true);
  pool.reset(round.joint.data(), round.sources.data(), round.sources.size(), 2, 2);  // owner 2
  RandomStream rng(1, "pool");
  std::set<int> used;
  while (!pool.empty()) {
    int source = -1;
    const auto m = pool.draw(rng, &source);
    CHECK(m.size() == 2);
    CHECK(m(0) == source);  // the sender's own message, a view into the round's buffer
    CHECK(m.data() >= round.joint.data());
    CHECK(m.data() < round.joint.data() + round.joint.size());
    CHECK(used.insert(source).second);
  }
  CHECK(used == std::set<int>{0, 1, 3, 5});
  CHECK_THROWS_AS(pool.draw(rng, nullptr), std::logic_error);
}

TEST_CASE("refreshed FTS draws uniformly from the other agents", "[fbo]") {
  const Round round({0, 1, 2, 3, 4});
  FtsMessagePool pool(false);
  pool.reset(round.joint.data(), round.sources.data(), round.sources.size(), 2, 0);
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

TEST_CASE("the FTS pool draws as the weights-per-agent scan of FTS Algorithm 1 line 5",
          "[fbo]") {
  // The slower exact method: P_N as one weight per agent id (0 for the owner, for agents
  // without a message and for messages used), the first agent whose running sum passes
  // u * total. The pool keeps no such table; its draws must be the same, draw for draw.
  const std::vector<std::int32_t> from = {1, 2, 4, 7, 8, 11, 12, 13};
  const Round round(from);
  for (const bool one_shot : {true, false})
    for (const int owner : {0, 4, 13}) {
      FtsMessagePool pool(one_shot);
      pool.reset(round.joint.data(), round.sources.data(), round.sources.size(), 2, owner);
      std::vector<double> w(14, 0.0);
      double total = 0.0;
      for (std::int32_t m : from)
        if (m != owner) total += (w[m] = 1.0);
      RandomStream a(3, "pool", owner), b(3, "pool", owner);
      for (int k = 0; k < 20 && total > 0.0; ++k) {
        int source = -1;
        pool.draw(a, &source);
        const double u = b.uniform() * total;
        double acc = 0.0;
        int expected = -1;
        for (int m = 0; m < 14; ++m) {
          if (w[m] <= 0.0) continue;
          expected = m;
          acc += w[m];
          if (u < acc) break;
        }
        if (one_shot) total -= w[expected], w[expected] = 0.0;
        INFO("one-shot " << one_shot << ", owner " << owner << ", draw " << k);
        CHECK(source == expected);
      }
    }
}

TEST_CASE("the FTS pool's weights put a pool back as it was, and only such weights",
          "[fbo]") {
  const Round round({0, 1, 2, 3});
  FtsMessagePool pool(true), back(true);
  pool.reset(round.joint.data(), round.sources.data(), 4, 2, 1);
  RandomStream rng(4, "pool");
  int first = -1;
  pool.draw(rng, &first);
  CHECK(pool.weights().size() == 4);
  CHECK(pool.weights()[1] == 0.0);  // the owner's
  CHECK(pool.weights()[first] == 0.0);
  back.reset(round.joint.data(), round.sources.data(), 4, 2, 1);
  back.restore_weights(pool.weights(), pool.total());
  RandomStream r1(5, "pool"), r2(5, "pool");
  int x = -1, y = -1;
  pool.draw(r1, &x);
  back.draw(r2, &y);
  CHECK(x == y);
  CHECK(back.total() == pool.total());
  CHECK_THROWS_AS(back.restore_weights({1.0, 1.0}, 2.0), std::invalid_argument);
  CHECK_THROWS_AS(back.restore_weights({1.0, 0.5, 1.0, 1.0}, 3.0), std::invalid_argument);
  FtsMessagePool refreshed(false);
  refreshed.reset(round.joint.data(), round.sources.data(), 4, 2, 1);
  CHECK_THROWS_AS(refreshed.restore_weights({0.0, 0.0, 1.0, 1.0}, 2.0), std::invalid_argument);
}

TEST_CASE("the FTS pool refuses sources out of agent order", "[fbo]") {
  const Round unordered({0, 3, 2}), repeated({0, 2, 2});
  FtsMessagePool pool(false);
  CHECK_THROWS_AS(pool.reset(unordered.joint.data(), unordered.sources.data(), 3, 2, 0),
                  std::invalid_argument);
  CHECK_THROWS_AS(pool.reset(repeated.joint.data(), repeated.sources.data(), 3, 2, 0),
                  std::invalid_argument);
}
