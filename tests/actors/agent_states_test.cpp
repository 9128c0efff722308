// Agent state changes for live views (actors/agent_states.hpp, RunObserver::agent): the plan's
// schedule, and a run that sends them to an observer as its clock passes them, with the
// server's presumptions.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "actors/agent_states.hpp"
#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

using namespace fedsim;
using namespace fedsim::actors;

namespace {
using Row = std::tuple<double, int, std::string>;
std::vector<Row> rows(const std::vector<agent_state_event>& events) {
  std::vector<Row> out;
  for (const auto& e : events) out.emplace_back(e.time, e.agent, e.state);
  return out;
}
constexpr double inf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("agent_state_schedule: crashes, availability, partitions and stragglers in time order",
          "[actors][live]") {
  NetworkPlan plan;
  plan.agents.resize(4);
  plan.agents[0].link.speed_factor = 4.0;                 // a persistent straggler
  plan.agents[0].partitions = {{0.5, 2.0}, {6.0, inf}};   // the second never heals
  plan.agents[1].crashes = {{2.0, 5.0, true}, {7.0, inf, false}};
  plan.agents[2].available = {{1.0, 3.0}, {4.0, inf}};    // offline before 1 and in [3, 4)
  plan.agents[3].available = {{0.0, 2.0}, {2.0, 2.5}};    // adjacent: offline from 2.5 only
  const std::vector<Row> expected = {
      {0.0, 0, "straggling"}, {0.0, 2, "offline"},     {0.5, 0, "partitioned"},
      {1.0, 2, "online"},     {2.0, 0, "healed"},      {2.0, 1, "crashed"},
      {2.5, 3, "offline"},    {3.0, 2, "offline"},     {4.0, 2, "online"},
      {5.0, 1, "recovered"},  {6.0, 0, "partitioned"}, {7.0, 1, "crashed"},
  };
  CHECK(rows(agent_state_schedule(plan)) == expected);
  // A speed factor of 1 (or faster) is no straggler; an empty plan has no changes.
  NetworkPlan plain;
  plain.agents.resize(3);
  plain.agents[1].link.speed_factor = 0.5;
  CHECK(agent_state_schedule(plain).empty());
}

TEST_CASE("observer: agent state changes arrive as the clock passes them, and only when asked",
          "[actors][observer][live]") {
  const std::string text = R"(
name = "states"
seed = 5
[world]
agents = 6
[world.objective]
grid_size = 100
[world.network]
compute = 1.0
uplink = 0.1
downlink = 0.1
crashes = [{agents = [2], time = 2.5, recover = 6.5}]
partitions = [{agents = [4], start = 1.5, end = 3.5}]
[algorithm]
name = "fts-de"
iterations = 8
n_init = 2
features = 6
[policy]
kind = "deadline"
deadline = 1.5
dead_after_missed = 1
)";
  const scenario::ScenarioConfig c = scenario::load_scenario_text(text, "states.toml").config;
  const auto dir = fedsim::test::fresh_dir("observer-states");
  RunOptions o;
  o.out_dir = (dir / "a").string();
  o.threads = 2;
  std::vector<agent_state_event> states;
  std::vector<double> waves;
  double last_record = 0.0;  // time of the newest observation or round so far
  bool in_order = true;
  o.observer.agent = [&](const agent_state_event& e) { states.push_back(e); };
  o.observer.wave = [&](double t) {
    in_order = in_order && (waves.empty() || t >= waves.back()) && t >= last_record;
    waves.push_back(t);
  };
  o.observer.observation = [&](const observation_event& e) { last_record = std::max(last_record, e.time); };
  run_federation(c, o);
  std::map<std::string, std::vector<std::tuple<double, int>>> by_state;
  for (const auto& e : states) by_state[e.state].emplace_back(e.time, e.agent);
  using V = std::vector<std::tuple<double, int>>;
  CHECK(by_state["crashed"] == V{{2.5, 2}});
  CHECK(by_state["recovered"] == V{{6.5, 2}});
  CHECK(by_state["partitioned"] == V{{1.5, 4}});
  CHECK(by_state["healed"] == V{{3.5, 4}});
  // The server presumed the crashed agent dead (one missed deadline) and revived it.
  REQUIRE(!by_state["presumed_dead"].empty());
  CHECK(!by_state["revived"].empty());
  bool crashed_presumed = false;
  for (const auto& [t, n] : by_state["presumed_dead"]) crashed_presumed |= n == 2 && t > 2.5;
  CHECK(crashed_presumed);
  // Waves come in time order, never behind a record already seen.
  CHECK(waves.size() > 3);
  CHECK(in_order);

  // A live observer changes nothing in the files.
  RunOptions quiet;
  quiet.out_dir = (dir / "b").string();
  int rounds = 0;
  quiet.observer.round = [&](const round_event&) { ++rounds; };
  run_federation(c, quiet);
  CHECK(rounds > 0);
  CHECK(fedsim::test::slurp(dir / "a" / "rounds.csv") == fedsim::test::slurp(dir / "b" / "rounds.csv"));
  CHECK(fedsim::test::slurp(dir / "a" / "events.jsonl") == fedsim::test::slurp(dir / "b" / "events.jsonl"));
}
