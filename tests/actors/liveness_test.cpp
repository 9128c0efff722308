// Runs that cannot make progress say so, and an idle server is never stopped for good
// (issue 10, bugs 2 and 3).
#include <catch2/catch.hpp>

#include <filesystem>
#include <limits>
#include <map>
#include <string>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// The output folder of run(c, name).
fs::path folder(const std::string& name) {
  return fs::temp_directory_path() /
         ("fedsim-test-" + std::to_string(::getpid()) + "-liveness-" + name);
}

RunResult run(const scenario::ScenarioConfig& c, const std::string& name) {
  RunOptions opt;
  opt.out_dir = fedsim::test::fresh_dir("liveness-" + name).string();
  opt.threads = 2;
  return run_federation(c, opt);
}

scenario::ScenarioConfig tiny(std::vector<std::string> overrides) {
  return scenario::load_scenario((scenarios / "tiny.toml").string(), overrides);
}

double num(const std::map<std::string, std::string>& row, const std::string& key) {
  return std::stod(row.at(key));
}

}  // namespace

TEST_CASE("async: periods that end before the first report do not stop the server for good",
          "[actors][liveness]") {
  // The reproduction: the initial design takes longer than three periods, so three
  // empty periods pass before any report. The server used to presume every agent dead, stop,
  // and ignore every later report (0 rounds, epsilon 0, exit 0).
  const auto c = scenario::load_scenario(
      (scenarios / "async.toml").string(),
      {"policy.async_every=0", "policy.async_period=0.5", "world.agents=20"});
  const RunResult r = run(c, "async-period");
  const auto rounds = fedsim::test::read_table(
      folder("async-period") / "rounds.csv");
  REQUIRE(rounds.size() > 10);
  CHECK(r.epsilon > 0);
  CHECK(r.completed);
  CHECK(r.reason.empty());
  // An empty period is nobody's miss: the first aggregation still counts all 20 agents alive.
  CHECK(num(rounds.front(), "alive") == 20);
  // Consecutive aggregations are a whole number of periods apart.
  for (std::size_t k = 1; k < rounds.size(); ++k) {
    const double gap = (num(rounds[k], "time") - num(rounds[k - 1], "time")) / 0.5;
    CHECK(gap == Approx(std::round(gap)).margin(1e-6));
  }
}

TEST_CASE("quorum: slow agents presumed dead while the others finish are not stranded",
          "[actors][liveness]") {
  // The fast agents finish while the 20x slower ones are presumed dead (quorum 6 of 12, a 1 s
  // deadline, 2 misses). The server used to stop then, and the slow agents waited for a
  // broadcast that never came (4 of their 8 evaluations). Their late reports now revive them.
  const auto c = tiny({"world.agents=12", "policy.kind=quorum", "policy.quorum=0.5",
                       "policy.deadline=1", "policy.dead_after_missed=2",
                       "world.network.compute=0.1",
                       "world.network.groups=[{name=\"slow\",agents=[0,1,2],speed_factor=20.0}]"});
  const RunResult r = run(c, "quorum-stranded");
  CHECK(r.completed);
  std::map<int, int> evaluations;
  for (const auto& o : fedsim::test::read_table(folder("quorum-stranded") / "observations.csv"))
    ++evaluations[std::stoi(o.at("agent"))];
  REQUIRE(evaluations.size() == 12);
  for (const auto& [agent, count] : evaluations) {
    INFO("agent " << agent);
    CHECK(count == c.algorithm.n_init + c.algorithm.iterations);
  }
  // The 3 slow agents were presumed dead while the 9 fast ones ran (else this test shows
  // nothing), and expected again, revived, once those had finished.
  const auto rounds = fedsim::test::read_table(folder("quorum-stranded") / "rounds.csv");
  REQUIRE(rounds.size() > 5);
  CHECK(num(rounds[3], "alive") == 9);
  CHECK(num(rounds.back(), "alive") == 3);
}

TEST_CASE("async: a periodic server whose agents all crashed goes idle and the run ends",
          "[actors][liveness]") {
  const auto c = tiny({"policy.kind=async", "policy.async_period=0.5",
                       "world.network.compute=1.0",
                       "world.network.crashes=[{fraction=1.0,time=0.0,recover=inf}]"});
  const RunResult r = run(c, "async-all-crashed");  // returns: no endless empty periods
  CHECK_FALSE(r.completed);
  CHECK(r.reason.find("no progress past the initial design reached the server") != std::string::npos);
}

TEST_CASE("a round that can never close ends the run with completed = false and the reason",
          "[actors][liveness]") {
  // One agent crashes for good at t = 0 and nobody tells the server: with no timeout the
  // first round waits for it forever, and the other agents wait for that round's broadcast.
  const std::string crash = "world.network.crashes=[{agents=[1],time=0.0,recover=inf}]";
  SECTION("sync with round_timeout = inf") {
    const RunResult r = run(tiny({"policy.round_timeout=inf", crash}), "sync-inf");
    CHECK_FALSE(r.completed);
    CHECK(r.reason.find("round 0 never closed: 1 agent(s) never reported it") !=
          std::string::npos);
  }
  SECTION("deadline with deadline = inf") {
    const RunResult r =
        run(tiny({"policy.kind=deadline", "policy.deadline=inf", crash}), "deadline-inf");
    CHECK_FALSE(r.completed);
    CHECK(r.reason.find("round 0 never closed") != std::string::npos);
  }
  SECTION("crash detection lets the same run finish") {
    const RunResult r = run(
        tiny({"policy.round_timeout=inf", crash, "world.network.detection_delay=0.5"}),
        "sync-inf-detected");
    CHECK(r.completed);
    CHECK(r.reason.empty());
  }
  SECTION("a finite timeout lets the same run finish") {
    const RunResult r = run(tiny({crash}), "sync-finite");
    CHECK(r.completed);
  }
}

TEST_CASE("a network that loses almost everything ends with completed = false",
          "[actors][liveness]") {
  const RunResult lossy = run(tiny({"world.network.drop=0.99"}), "drop-99");
  CHECK_FALSE(lossy.completed);
  CHECK(lossy.reason.find("no progress past the initial design reached the server") != std::string::npos);
  const RunResult fine = run(tiny({"world.network.drop=0.2"}), "drop-20");
  CHECK(fine.completed);
  CHECK(fine.reason.empty());
}

TEST_CASE("Fed-PNE: a phase that can never close ends with completed = false",
          "[actors][liveness][xarmed]") {
  const auto c = scenario::load_scenario(
      (scenarios / "xarmed/garland.toml").string(),
      {"world.agents=4", "algorithm.budget=600", "policy.round_timeout=inf",
       "world.network.compute=0.01",
       "world.network.crashes=[{agents=[2],time=0.0,recover=inf}]"});
  const RunResult r = run(c, "fed-pne-inf");
  CHECK_FALSE(r.completed);
  CHECK(r.reason.find("phase 1 never closed: 1 client(s) never reported it") !=
        std::string::npos);
  const RunResult ok = run(scenario::load_scenario((scenarios / "xarmed/garland.toml").string(),
                                                   {"world.agents=4", "algorithm.budget=600"}),
                           "fed-pne-ok");
  CHECK(ok.completed);
}

TEST_CASE("deadline: agents back up after a round opened with nobody expected get its deadline",
          "[actors][liveness]") {
  // deadline-chaos with 6 agents in virtual time: agents 2 and 3 crash at t = 3 and come back at
  // t = 8, two others crash for good at t = 6 (all detected after 1 s). A round opens while
  // nobody is expected, so it has no deadline; the two come back and wait for a broadcast they
  // missed. The server must give that round its deadline when they come back, not wait for
  // their reports for ever (it did: "round 6 never closed").
  const auto c = scenario::load_scenario((scenarios / "wall/deadline-chaos.toml").string(),
                                         {"run.time=\"virtual\"", "world.agents=6",
                                          "algorithm.iterations=6"});
  const RunResult r = run(c, "revived-deadline");
  INFO(r.reason);
  CHECK(r.completed);
  CHECK(r.mean_simple_regret.size() == 7);
}
