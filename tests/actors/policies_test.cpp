#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "engine/dp/accountant.hpp"
#include "tests/test_files.hpp"
#include "scenarios/loader.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using Kind = scenario::Distribution::Kind;

namespace {

scenario::Distribution constant(double v) { return {Kind::constant, v, 0, 0, 0, 0, 0}; }

/// A small DP-FTS-DE federation where every evaluation takes 1 virtual second.
scenario::ScenarioConfig base(int agents = 20, int iterations = 12) {
  scenario::ScenarioConfig c;
  c.name = "policy-test";
  c.seed = 11;
  c.world.agents = agents;
  c.world.objective.grid_size = 200;
  c.world.network.link.compute = constant(1.0);
  c.world.network.link.uplink = constant(0.1);
  c.world.network.link.downlink = constant(0.1);
  c.algorithm.algorithm = fbo::Algorithm::dp_fts_de;
  c.algorithm.iterations = iterations;
  c.algorithm.n_init = 3;
  c.algorithm.features = 20;
  c.algorithm.subregions = 2;
  c.algorithm.q = 0.5;
  return c;
}

fs::path run(scenario::ScenarioConfig c, const std::string& name, RunResult* result = nullptr) {
  scenario::validate(c);
  const fs::path dir = fs::temp_directory_path() / ("fedsim-policy-" + name);
  fs::remove_all(dir);
  RunOptions opt;
  opt.out_dir = dir.string();
  opt.threads = 2;
  const RunResult r = run_federation(c, opt);
  if (result) *result = r;
  return dir;
}

double num(const std::map<std::string, std::string>& row, const std::string& key) {
  return std::stod(row.at(key));
}

/// Counts events.jsonl lines of `kind` per sending agent.
std::map<int, int> events_by_agent(const fs::path& file, const std::string& kind) {
  std::map<int, int> out;
  std::ifstream in(file);
  std::string line;
  const std::string tag = "\"event\":\"" + kind + "\"";
  while (std::getline(in, line)) {
    if (line.find(tag) == std::string::npos) continue;
    const size_t p = line.find("\"from\":") + 7;
    ++out[std::stoi(line.substr(p))];
  }
  return out;
}

}  // namespace

TEST_CASE("sync: 30% of agents crash mid-run and the server proceeds without them", "[actors]") {
  auto c = base();
  c.policy.kind = scenario::PolicyConfig::Kind::sync;
  c.policy.round_timeout = 3.0;
  c.policy.dead_after_missed = 2;
  scenario::CrashSchedule crash;
  crash.fraction = 0.3;
  crash.time = 8.5;  // during iteration ~5 (3 s of initial design, then ~1.2 s per round)
  c.world.network.crashes.push_back(crash);

  SECTION("detected by missed rounds") {
    const auto rounds = fedsim::test::read_table(run(c, "crash-missed") / "rounds.csv");
    REQUIRE(rounds.size() >= size_t(c.algorithm.iterations));
    // Rounds closing before the crash wait for all 20; after it, within dead_after_missed
    // timed-out rounds, the server expects only the 14 survivors and rounds are quick again.
    int first_after = -1;
    for (size_t k = 0; k < rounds.size(); ++k)
      if (num(rounds[k], "time") > crash.time && first_after < 0) first_after = static_cast<int>(k);
    REQUIRE(first_after >= 0);
    CHECK(num(rounds[first_after - 1], "alive") == 20);
    const auto& detected = rounds[first_after + c.policy.dead_after_missed];
    CHECK(num(detected, "alive") == 14);
    for (size_t k = first_after + c.policy.dead_after_missed + 1; k < rounds.size(); ++k) {
      CHECK(num(rounds[k], "alive") == 14);
      CHECK(num(rounds[k], "time") - num(rounds[k - 1], "time") < c.policy.round_timeout);
    }
  }
  SECTION("detected by the network's crash notice after the detection delay") {
    c.world.network.detection_delay = 0.5;
    const auto rounds = fedsim::test::read_table(run(c, "crash-notice") / "rounds.csv");
    for (const auto& r : rounds) {
      if (num(r, "time") < crash.time) CHECK(num(r, "alive") == 20);
      if (num(r, "time") >= crash.time + 0.5) CHECK(num(r, "alive") == 14);
    }
  }
}

TEST_CASE("deadline: slower links raise the late count of exactly those agents", "[actors]") {
  auto c = base();
  c.policy.kind = scenario::PolicyConfig::Kind::deadline;
  c.policy.deadline = 1.5;  // a 1.2 s round trip makes it; 1.1 + 2.0 does not
  const auto baseline = events_by_agent(run(c, "deadline-fast") / "events.jsonl", "late");
  CHECK(baseline.empty());
  scenario::AgentGroup slow;
  slow.name = "slow";
  slow.agents = {2, 5, 11};
  slow.link = c.world.network.link;
  slow.link.uplink = constant(2.0);
  c.world.network.groups.push_back(slow);
  const auto late = events_by_agent(run(c, "deadline-slow") / "events.jsonl", "late");
  REQUIRE(late.size() == 3);
  for (int a : slow.agents) CHECK(late.at(a) > 0);
}

TEST_CASE("malformed payloads are all rejected and the aggregate stays finite", "[actors]") {
  auto c = base();
  c.world.network.malformed.rate = 0.3;
  RunResult result;
  const fs::path dir = run(c, "malformed", &result);
  REQUIRE(result.network.corrupted > 20);
  const auto rejects = events_by_agent(dir / "events.jsonl", "reject");
  int total = 0;
  for (const auto& [agent, count] : rejects) total += count;
  CHECK(static_cast<std::uint64_t>(total) == result.network.corrupted);
  int counted = 0;
  for (const auto& r : fedsim::test::read_table(dir / "rounds.csv")) {
    counted += static_cast<int>(num(r, "rejected"));
    CHECK(std::isfinite(num(r, "aggregate_norm")));
    CHECK(num(r, "aggregate_norm") < 1e3);
  }
  CHECK(static_cast<std::uint64_t>(counted) == result.network.corrupted);
}

TEST_CASE("the accountant matches the engine and enforces the budget", "[actors]") {
  auto c = base();
  RunResult full;
  run(c, "budget-none", &full);
  // The scenario's accountant (the default, tight) gives epsilon and enforces the budget; the
  // moments and the tight accountant's values of the same releases are reported beside it.
  REQUIRE(c.privacy.accountant == "tight");
  auto price = [&](const char* name, int k) {
    auto a = dp::make_accountant(name);
    a->add_subsampled_gaussian(c.algorithm.q, c.algorithm.z, k);
    return a->epsilon(full.delta);
  };
  CHECK(full.releases == c.algorithm.iterations);
  CHECK(full.epsilon == Approx(price("tight", c.algorithm.iterations)).epsilon(1e-12));
  CHECK(full.epsilon_pld == full.epsilon);
  CHECK(full.epsilon_rdp == Approx(price("moments", c.algorithm.iterations)).epsilon(1e-12));
  CHECK(full.epsilon_rdp > full.epsilon_pld);

  // A budget between eps after 5 and after 6 releases: rounds 0..4 are released, no more.
  auto after = [&](int k) {
    auto a = dp::make_accountant(c.privacy.accountant);
    a->add_subsampled_gaussian(c.algorithm.q, c.algorithm.z, k);
    return a->epsilon(full.delta);
  };
  c.privacy.budget = 0.5 * (after(5) + after(6));
  RunResult limited;
  const fs::path dir = run(c, "budget", &limited);
  CHECK(limited.releases == 5);
  CHECK(limited.epsilon == Approx(after(5)).epsilon(1e-12));
  const auto rounds = fedsim::test::read_table(dir / "rounds.csv");
  for (const auto& r : rounds) CHECK(num(r, "released") == (num(r, "round") < 5 ? 1 : 0));
  // Agents keep going with local TS: every agent reaches T, nothing federated after round 5.
  std::map<int, int> last;
  for (const auto& o : fedsim::test::read_table(dir / "observations.csv")) {
    const int agent = static_cast<int>(num(o, "agent")), t = static_cast<int>(num(o, "iteration"));
    last[agent] = std::max(last[agent], t);
    if (t > 6) CHECK(o.at("branch") == "local");
  }
  REQUIRE(last.size() == size_t(c.world.agents));
  for (const auto& [agent, t] : last) CHECK(t == c.algorithm.iterations);
}

TEST_CASE("partitions, availability traces and lost state are applied", "[actors]") {
  SECTION("a partitioned agent's messages are dropped during the partition only") {
    auto c = base();
    scenario::NetworkPartition cut;
    cut.agents = {4};
    cut.start = 5.0;
    cut.end = 9.0;
    c.world.network.partitions.push_back(cut);
    const fs::path dir = run(c, "partition");
    std::ifstream in(dir / "events.jsonl");
    int dropped = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"reason\":\"partition\"") == std::string::npos) continue;
      ++dropped;
      const double t = std::stod(line.substr(line.find("\"time\":") + 7));
      CHECK(t < cut.end);
      CHECK((line.find("\"from\":4,") != std::string::npos || line.find("\"to\":4,") != std::string::npos));
    }
    CHECK(dropped > 0);
  }
  SECTION("an agent outside its availability window does nothing until it is back") {
    auto c = base();
    const fs::path trace = fs::temp_directory_path() / "fedsim-availability.csv";
    std::ofstream(trace) << "agent,start,end\n3,0,6.5\n3,12,1000\n";
    c.world.network.availability_file = trace.string();
    const fs::path dir = run(c, "availability");
    int last = 0;
    for (const auto& o : fedsim::test::read_table(dir / "observations.csv"))
      if (num(o, "agent") == 3) {
        const double t = num(o, "time");
        CHECK(!(t >= 6.5 && t < 12));  // no query while unavailable
        last = std::max(last, static_cast<int>(num(o, "iteration")));
      }
    CHECK(last == c.algorithm.iterations);  // its work resumed at t = 12
    // Under sync the server waited for it: a round closes only once it is back.
    bool waited = false;
    for (const auto& r : fedsim::test::read_table(dir / "rounds.csv"))
      waited = waited || (num(r, "time") >= 12 && num(r, "time") < 13.5);
    CHECK(waited);
  }
  SECTION("an agent that recovers with its state lost starts its model afresh") {
    auto c = base();
    c.policy.round_timeout = 3.0;
    scenario::CrashSchedule crash;
    crash.agents = {7};
    crash.time = 6.0;
    crash.recover = 9.0;
    crash.keep_state = false;
    c.world.network.crashes.push_back(crash);
    const fs::path dir = run(c, "recover");
    double last_time = 0;
    int after = 0;
    for (const auto& o : fedsim::test::read_table(dir / "observations.csv"))
      if (num(o, "agent") == 7) {
        const double t = num(o, "time");
        CHECK(!(t > crash.time && t < crash.recover));  // nothing while down
        after += t > crash.recover;
        last_time = std::max(last_time, t);
      }
    CHECK(after > 0);  // it came back and kept optimising
  }
}

TEST_CASE("bandwidth makes payload size matter", "[actors]") {
  auto fast = base(6, 4), slow = base(6, 4);
  slow.world.network.link.bandwidth = 200.0;  // bytes per second: a 416-byte report takes ~2 s
  RunResult rf, rs;
  run(fast, "bandwidth-fast", &rf);
  run(slow, "bandwidth-slow", &rs);
  CHECK(rs.last_query_time > rf.last_query_time + 4 * 2.0);
}

TEST_CASE("quorum and async policies finish and use what arrived", "[actors]") {
  auto c = base();
  c.world.network.link.compute = {Kind::exponential, 0, 0, 0, 1.0, 0, 0};
  SECTION("quorum aggregates at K reports") {
    c.policy.kind = scenario::PolicyConfig::Kind::quorum;
    c.policy.quorum = 0.5;
    c.policy.deadline = 100.0;
    const auto rounds = fedsim::test::read_table(run(c, "quorum") / "rounds.csv");
    REQUIRE(rounds.size() > 3);
    // K = 10 of 20; at the end fewer agents are left (the others finished their T iterations).
    for (const auto& r : rounds)
      if (num(r, "alive") >= 10) CHECK(num(r, "participants") == 10);
  }
  SECTION("async aggregates every K arrivals and drops stale vectors") {
    c.policy.kind = scenario::PolicyConfig::Kind::async;
    c.policy.async_every = 5;
    c.policy.max_staleness = 1;
    const auto rounds = fedsim::test::read_table(run(c, "async") / "rounds.csv");
    REQUIRE(rounds.size() > 20);
    int dropped = 0;
    for (const auto& r : rounds) {
      CHECK(num(r, "participants") <= 20);
      dropped += static_cast<int>(num(r, "dropped"));
    }
    CHECK(dropped > 0);
  }
}

/// The virtual time of each agent's first query.
std::map<int, double> first_query_times(const fs::path& dir) {
  std::map<int, double> first;
  for (const auto& o : fedsim::test::read_table(dir / "observations.csv"))
    first.emplace(static_cast<int>(num(o, "agent")), num(o, "time"));  // rows are in time order
  return first;
}

TEST_CASE("every agent starts at t = 0, whatever the network does to messages", "[actors]") {
  // The start of a run is no message: an agent cut off at t = 0, or behind a lossy link,
  // still does its initial design at once (3 evaluations of 1 s each).
  auto cut_off = base();
  scenario::NetworkPartition cut;
  cut.agents = {2};
  cut.start = 0.0;
  cut.end = 0.5;
  cut_off.world.network.partitions.push_back(cut);
  auto lossy = base();
  lossy.world.network.link.drop = 0.2;
  for (const auto& [c, name] : {std::pair{cut_off, "kickoff-partition"}, {lossy, "kickoff-lossy"}}) {
    INFO(name);
    const auto first = first_query_times(run(c, name));
    REQUIRE(first.size() == size_t(c.world.agents));
    for (const auto& [agent, t] : first) CHECK(t == Approx(3.0));
  }
}
