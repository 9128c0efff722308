#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "actors/policy/liveness.hpp"
#include "actors/policy/registry.hpp"

using namespace fedsim::actors::policy;
using fedsim::scenario::PolicyConfig;
using Kind = PolicyConfig::Kind;

namespace {

PolicyConfig config(Kind kind) {
  PolicyConfig c;
  c.kind = kind;
  c.round_timeout = 7.0;
  c.deadline = 2.0;
  return c;
}

Tally tally(int agents, int expected, int contributors, bool all, int arrivals = 0) {
  return Tally{agents, expected, contributors, all, arrivals};
}

}  // namespace

TEST_CASE("round policies: the registry names each kind once and selects it", "[policy]") {
  CHECK(names() == "sync, deadline, quorum, async, fedbuff");
  CHECK(names(Family::xarmed) == "sync, deadline");
  for (const Entry& e : registered()) {
    INFO(e.name);
    CHECK(name_of(e.kind) == e.name);
    CHECK(make_round_policy(config(e.kind)) != nullptr);
  }
  PolicyConfig unknown;
  unknown.kind = static_cast<Kind>(99);
  CHECK_THROWS_WITH(make_round_policy(unknown), Catch::Contains("not registered"));
}

TEST_CASE("sync: a round is complete when every expected agent reported, late is dropped",
          "[policy]") {
  const auto p = make_round_policy(config(Kind::sync));
  CHECK(p->on_report(3, 3, false) == Verdict::keep);
  CHECK(p->on_report(3, 3, true) == Verdict::duplicate);
  CHECK(p->on_report(2, 3, false) == Verdict::late);
  CHECK(p->on_report(0, 3, true) == Verdict::late);
  CHECK_FALSE(p->complete(tally(10, 10, 9, false)));
  CHECK(p->complete(tally(10, 9, 9, true)));
  CHECK(p->round_wait() == 7.0);
  CHECK(p->round_wait_field() == &fedsim::scenario::PolicyConfig::round_timeout);
  CHECK(p->arrivals_field() == nullptr);
  CHECK(p->period() == 0.0);
  CHECK(p->weight(0) == 1.0);
  CHECK(p->weight(100) == 1.0);
  CHECK(p->agents_wait());
  CHECK(p->supports(Family::fbo));
  CHECK(p->supports(Family::xarmed));
}

TEST_CASE("deadline: late vectors are carried only with carry_late, never twice", "[policy]") {
  auto c = config(Kind::deadline);
  const auto drop = make_round_policy(c);
  CHECK(drop->on_report(4, 4, false) == Verdict::keep);
  CHECK(drop->on_report(4, 4, true) == Verdict::duplicate);
  CHECK(drop->on_report(3, 4, false) == Verdict::late);
  c.carry_late = true;
  const auto carry = make_round_policy(c);
  CHECK(carry->on_report(3, 4, false) == Verdict::carry);
  CHECK(carry->on_report(1, 4, false) == Verdict::carry);
  CHECK(carry->on_report(3, 4, true) == Verdict::late);  // round 4 has its vector already
  CHECK(carry->on_report(4, 4, true) == Verdict::duplicate);
  CHECK(carry->round_wait() == 2.0);
  CHECK(carry->round_wait_field() == &fedsim::scenario::PolicyConfig::deadline);
  CHECK(carry->complete(tally(5, 5, 5, true)));
  CHECK_FALSE(carry->complete(tally(5, 5, 4, false)));
  CHECK(carry->agents_wait());
  CHECK(carry->supports(Family::xarmed));
}

TEST_CASE("quorum: complete at K vectors (count or fraction rounded up) or all expected",
          "[policy]") {
  auto c = config(Kind::quorum);
  c.quorum = 0.7;  // of 10 agents: 7
  const auto frac = make_round_policy(c);
  CHECK_FALSE(frac->complete(tally(10, 10, 6, false)));
  CHECK(frac->complete(tally(10, 10, 7, false)));
  CHECK(frac->complete(tally(10, 4, 4, true)));  // fewer expected than K: all of them do
  c.quorum = 0.71;  // 7.1 -> 8
  CHECK_FALSE(make_round_policy(c)->complete(tally(10, 10, 7, false)));
  c.quorum = 3;  // a count
  const auto count = make_round_policy(c);
  CHECK_FALSE(count->complete(tally(100, 100, 2, false)));
  CHECK(count->complete(tally(100, 100, 3, false)));
  CHECK(count->on_report(1, 2, false) == Verdict::late);
  CHECK(count->round_wait() == 2.0);
  CHECK(count->round_wait_field() == &fedsim::scenario::PolicyConfig::deadline);
  CHECK(count->supports(Family::fbo));
  CHECK_FALSE(count->supports(Family::xarmed));
}

TEST_CASE("async: keeps the newest vector, aggregates every K arrivals, weights by staleness",
          "[policy]") {
  auto c = config(Kind::async);
  c.async_every = 3;
  c.max_staleness = 2;
  c.staleness = PolicyConfig::Staleness::inverse;
  const auto p = make_round_policy(c);
  CHECK(p->on_report(0, 5, true) == Verdict::keep);  // never late, a newer one replaces
  CHECK(p->on_report(5, 5, false) == Verdict::keep);
  CHECK_FALSE(p->complete(tally(10, 10, 2, false, 2)));
  CHECK(p->complete(tally(10, 10, 2, false, 3)));  // 3 arrivals, 2 agents
  CHECK(p->complete(tally(10, 0, 1, true, 1)));    // nobody left to wait for
  CHECK_FALSE(p->complete(tally(10, 0, 0, true, 0)));
  CHECK(*p->weight(0) == 1.0);
  CHECK(*p->weight(1) == 0.5);
  CHECK(*p->weight(2) == Approx(1.0 / 3.0).epsilon(1e-15));
  CHECK_FALSE(p->weight(3).has_value());  // staler than max_staleness: dropped
  CHECK_FALSE(std::isfinite(p->round_wait()));
  CHECK(p->period() == 0.0);
  CHECK_FALSE(p->agents_wait());
  CHECK_FALSE(p->supports(Family::xarmed));
  c.staleness = PolicyConfig::Staleness::polynomial;
  c.staleness_exponent = 2.0;
  CHECK(*make_round_policy(c)->weight(2) == Approx(1.0 / 9.0).epsilon(1e-15));
  c.staleness = PolicyConfig::Staleness::constant;
  CHECK(*make_round_policy(c)->weight(2) == 1.0);
  c.async_every = 0;
  c.async_period = 0.5;
  const auto periodic = make_round_policy(c);
  CHECK(periodic->period() == 0.5);
  CHECK_FALSE(periodic->complete(tally(10, 10, 9, false, 1000)));  // only the period closes
}

TEST_CASE("liveness: an infinite timeout with a crash-stop and no detection is foreseen",
          "[policy]") {
  fedsim::scenario::ScenarioConfig c;
  c.policy.round_timeout = std::numeric_limits<double>::infinity();
  CHECK(liveness_warnings(c).empty());  // nobody crashes
  fedsim::scenario::CrashSchedule crash;
  crash.agents = {1};
  c.world.network.crashes.push_back(crash);
  const auto w = liveness_warnings(c);
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("policy.round_timeout = inf") != std::string::npos);
  CHECK(w[0].find("world.network.crashes[0]") != std::string::npos);
  c.world.network.detection_delay = 1.0;  // the server is told: rounds close
  CHECK(liveness_warnings(c).empty());
  c.world.network.detection_delay = std::numeric_limits<double>::infinity();
  c.world.network.crashes[0].recover = 5.0;  // it comes back
  CHECK(liveness_warnings(c).empty());
  c.world.network.crashes.clear();
  fedsim::scenario::NetworkPartition cut;
  cut.agents = {0};
  cut.end = std::numeric_limits<double>::infinity();
  c.world.network.partitions.push_back(cut);
  CHECK(liveness_warnings(c).size() == 1);
  c.policy.kind = Kind::deadline;  // the deadline is finite (1 s by default)
  CHECK(liveness_warnings(c).empty());
  c.policy.deadline = std::numeric_limits<double>::infinity();
  CHECK(liveness_warnings(c)[0].find("policy.deadline = inf") != std::string::npos);
  c.policy.kind = Kind::async;  // agents never wait for a round
  CHECK(liveness_warnings(c).empty());
}
