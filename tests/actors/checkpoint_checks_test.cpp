// The members' checks of a state restored from a checkpoint, as plain functions (no actors):
// what each refuses, named; and that what a run really saves passes (checkpoint_test.cpp and
// checkpoint_flip_test.cpp resume real checkpoints through them).
#include <catch2/catch.hpp>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "actors/accountant.hpp"
#include "actors/checkpoint/state_archive.hpp"
#include "actors/membership.hpp"
#include "actors/network.hpp"
#include "actors/server.hpp"

using namespace fedsim::actors;

TEST_CASE("membership check: sizes, flags, missed counts and counts that agree",
          "[actors][checkpoint]") {
  Membership m(4, 3);
  CHECK(m.check(4, 3).empty());
  m.set_contributed(1, true);
  m.mark_done(2);
  m.notice(3, false);
  m.close_round();
  CHECK(m.check(4, 3).empty());
  CHECK(m.check(5, 3).find("membership of 4 members, the scenario has 5") == 0);
  CHECK(m.check(4, 2).find("presumes dead after 3 missed rounds, the scenario after 2") != std::string::npos);
  // Two missed rounds more presume member 0 dead: 3 missed, within [0, 3] once dead.
  m.close_round();
  m.close_round();
  CHECK(m.presumed_dead(0));
  CHECK(m.check(4, 3).empty());
}

TEST_CASE("server state check: the empty-period count that idled a resumed run for ever, and "
          "kept reports", "[actors][checkpoint]") {
  auto shared = std::make_shared<ServerShared>();
  shared->config.agents = 3;
  shared->config.features = 2;
  shared->policy.dead_after_missed = 3;
  ServerState s;
  s.shared = shared;
  s.members.emplace(3, 3);
  s.kept.assign(3, {});
  s.round = 2;
  CHECK(check_server_state(s).empty());
  s.empty_periods = -1073741824;  // bit 30 of 0 flipped: 2^30 periods of nothing before it idles
  CHECK(check_server_state(s) == "empty periods -1073741824 out of [0, 3]");
  s.empty_periods = 4;
  CHECK(check_server_state(s) == "empty periods 4 out of [0, 3]");
  s.empty_periods = 3;
  CHECK(check_server_state(s).empty());
  s.round = -1;
  CHECK(check_server_state(s) == "round -1 < 0");
  s.round = 2;
  s.open = s.stopped = true;
  CHECK(check_server_state(s) == "stopped, yet a round is open");
  s.stopped = false;
  s.now = std::numeric_limits<double>::infinity();
  CHECK(check_server_state(s).find("clock inf is not finite") == 0);
  s.now = 1.5;
  // A kept report: its agent must be flagged as contributing, of round <= 2, dimension M = 2.
  s.kept[1].push_back(KeptReport{2, Eigen::Vector2d(0.5, -0.5)});
  CHECK(check_server_state(s) == "agent 1: its kept reports disagree with its contribution flag");
  s.members->set_contributed(1, true);
  CHECK(check_server_state(s).empty());
  s.kept[1].back().round = 3;
  CHECK(check_server_state(s) == "agent 1: a report kept for round 3, out of [0, 2]");
  s.kept[1].back() = KeptReport{1, Eigen::Vector3d(0.5, -0.5, 0.0)};
  CHECK(check_server_state(s).find("agent 1: a kept report of another dimension than 2") == 0);
  s.kept.pop_back();
  CHECK(check_server_state(s) == "reports kept for 2 agents, the scenario has 3");
}

TEST_CASE("network state check: the queue's order, times, senders and recipients",
          "[actors][checkpoint]") {
  NetworkState s;
  s.plan.agents.resize(2);
  s.agent_counters = {3, 1};
  s.riders.resize(2);
  s.server_counter = 2;
  s.network_counter = 1;
  s.now = 4.0;
  auto event = [](double time, node_id sender, std::uint64_t counter, node_id to) {
    return PendingEvent{time, sender, counter, 0, false, envelope{sender, to, 0.0, 0, {}}};
  };
  std::vector<PendingEvent> queue = {event(4.0, 0, 2, server_node), event(5.0, 1, 0, server_node),
                                     event(5.0, server_node, 1, 0)};
  CHECK(check_network_state(s, queue).empty());
  std::swap(queue[0], queue[1]);
  CHECK(check_network_state(s, queue) == "queued delivery 1: out of delivery order");
  std::swap(queue[0], queue[1]);
  queue[0].time = 3.5;
  CHECK(check_network_state(s, queue).find("queued delivery 0: time 3.5") == 0);
  queue[0].time = 4.0;
  queue[2].env.to = 7;
  CHECK(check_network_state(s, queue) == "queued delivery 2: to no member");
  queue[2].env.to = 0;
  queue[1].counter = 1;  // agent 1 has numbered one envelope: 0
  CHECK(check_network_state(s, queue) == "queued delivery 1: numbered past its sender's counter");
  queue[1].counter = 0;
  queue[1].env.from = 0;
  CHECK(check_network_state(s, queue) == "queued delivery 1: from no member");
  queue[1].env.from = 1;
  queue[1].settled = true;  // a settled timer is an agent's to itself
  CHECK(check_network_state(s, queue) == "queued delivery 1: a settled timer that is not an agent's own");
  queue[1].settled = false;
  s.rounds_closed = -2;
  CHECK(check_network_state(s, queue) == "rounds closed -2 < 0");
  s.rounds_closed = 0;
  s.agent_counters.pop_back();
  CHECK(check_network_state(s, queue) == "counters of 1 agents, the scenario has 2");
}

TEST_CASE("state archive: a matrix whose saved shape is not its data's, or not a vector's, is "
          "refused", "[actors][checkpoint]") {
  // Found by fuzz_member_state: a kept report's vector saved as 2 x 2 (Eigen asserted, or
  // mapped four values into a vector of one column), and a shape whose product wraps to 0.
  auto saved = [](std::int64_t rows, std::int64_t cols, std::size_t values) {
    std::vector<double> data(values, 1.0);
    return save_state(nullptr, [&](auto& a) { a(rows, cols, data); });
  };
  Eigen::VectorXd v;
  Eigen::MatrixXd m;
  CHECK_NOTHROW(load_state(nullptr, saved(3, 1, 3), "v", [&](auto& a) { a(v); }));
  CHECK(v.size() == 3);
  CHECK_THROWS_WITH(load_state(nullptr, saved(2, 2, 4), "v", [&](auto& a) { a(v); }),
                    Catch::Contains("a matrix's size does not match its data"));
  CHECK_NOTHROW(load_state(nullptr, saved(2, 2, 4), "m", [&](auto& a) { a(m); }));
  CHECK_THROWS(load_state(nullptr, saved(std::int64_t{1} << 32, std::int64_t{1} << 32, 0), "m",
                          [&](auto& a) { a(m); }));
  CHECK_THROWS(load_state(nullptr, saved(-1, -4, 4), "m", [&](auto& a) { a(m); }));
}
