// Failures are never silent (issue 9, item 6; issue 10, bug 4): a member that throws fails the
// run naming itself. Metrics say whom they average (issue 9, item 7).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_table;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {
const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// Sets FEDSIM_DEBUG_FAIL_AGENT for the commands run while it lives.
struct FailAgent {
  explicit FailAgent(int n) { setenv("FEDSIM_DEBUG_FAIL_AGENT", std::to_string(n).c_str(), 1); }
  ~FailAgent() { unsetenv("FEDSIM_DEBUG_FAIL_AGENT"); }
};

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}
}  // namespace

TEST_CASE("an agent that throws fails fedsim run: exit 1, one line naming it, no summary",
          "[actors][failure]") {
  for (const char* policy : {"sync", "deadline", "async"}) {
    INFO(policy);
    const fs::path dir = fresh_dir(std::string("fail-agent-") + policy);
    const FailAgent fail(3);
    const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() +
                              " --quiet --set policy.kind=" + policy +
                              (std::string(policy) == "async" ? " --set policy.async_every=4" : "") +
                              " --out " + dir.string());
    INFO(r.output);
    CHECK(r.exit_code == 1);
    const std::string out = trimmed(r.output);
    CHECK(out.find('\n') == std::string::npos);  // one line
    CHECK(out.find("agent 3") != std::string::npos);
    CHECK(out.find("injected failure") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "summary.json"));
  }
}

TEST_CASE("a Fed-PNE client that throws fails the run naming the client", "[actors][failure]") {
  const fs::path dir = fresh_dir("fail-client");
  const FailAgent fail(2);
  const auto r = run_fedsim("run " + (scenarios / "xarmed/garland.toml").string() +
                            " --quiet --set world.agents=4 --set algorithm.budget=600 --out " +
                            dir.string());
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(trimmed(r.output).find('\n') == std::string::npos);
  CHECK(r.output.find("client 2") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "summary.json"));
}

TEST_CASE("without the test hook the same runs succeed (the hook is what fails them)",
          "[actors][failure]") {
  const fs::path dir = fresh_dir("fail-none");
  const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " +
                            dir.string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir / "summary.json"));
}

TEST_CASE("an embedding program's round callback that throws fails run_federation naming the "
          "recorder", "[actors][failure]") {
  const auto config = fedsim::scenario::load_scenario((scenarios / "tiny.toml").string(), {});
  fedsim::actors::RunOptions options;
  options.out_dir = fresh_dir("fail-recorder").string();
  options.threads = 2;
  options.observer.round = [](const fedsim::actors::round_event& e) {
    if (e.round == 2) throw std::runtime_error("the embedding program gave up");
  };
  try {
    fedsim::actors::run_federation(config, options);
    FAIL("run_federation returned although its recorder failed");
  } catch (const fedsim::actors::RunFailure& e) {
    CHECK(std::string(e.what()) == "recorder: the embedding program gave up");
  }
}

TEST_CASE("agents that never observed anything are counted, not averaged", "[actors][metrics]") {
  // 3 of 8 agents crash (crash-stop) at t = 0, before their initial design: the mean regret
  // is the mean over the 5 that observed.
  const fs::path dir = fresh_dir("crashed-at-zero");
  const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() +
                            " --quiet --set 'world.network.crashes=[{agents=[0,4,7], time=0.0}]'"
                            " --set policy.dead_after_missed=1 --out " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["agents_without_observations"] == 3);
  std::map<int, double> final_regret;  // the last simple regret of each agent that observed
  for (const auto& row : read_table(dir / "observations.csv"))
    final_regret[std::stoi(row.at("agent"))] = std::stod(row.at("simple_regret"));
  REQUIRE(final_regret.size() == 5);
  for (int crashed : {0, 4, 7}) CHECK(final_regret.count(crashed) == 0);
  double mean = 0.0;
  for (const auto& [agent, regret] : final_regret) mean += regret / 5.0;
  CHECK(summary["mean_final_simple_regret"].get<double>() == Approx(mean).epsilon(1e-9));
}

TEST_CASE("a run in which no agent observes anything reports no mean, not 0", "[actors][metrics]") {
  const fs::path dir = fresh_dir("all-crashed-at-zero");
  const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() +
                            " --quiet --set 'world.network.crashes=[{fraction=1.0, time=0.0}]'"
                            " --set policy.dead_after_missed=1 --out " + dir.string());
  INFO(r.output);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["agents_without_observations"] == 8);
  CHECK(summary["mean_final_simple_regret"].is_null());
  CHECK(summary["mean_simple_regret_by_iteration"].empty());
}

TEST_CASE("a recorder that cannot write its files fails run_federation naming it, while the "
          "server's and the accountant's answers are already on their way",
          "[actors][failure]") {
  // The results are asked for all at once (actors/federation.cpp, drive): the recorder's
  // failure must still be the run's, and the answers after it must not hide it.
  const auto config = fedsim::scenario::load_scenario((scenarios / "tiny.toml").string(), {});
  // DP-FTS-DE: an accountant is asked too.
  REQUIRE(fedsim::test::slurp(scenarios / "tiny.toml").find("name = \"dp-fts-de\"") !=
          std::string::npos);
  const fs::path dir = fresh_dir("fail-recorder-files");
  fs::create_directories(dir);
  std::ofstream(dir / "a-file") << "not a folder\n";
  fedsim::actors::RunOptions options;
  options.out_dir = (dir / "a-file" / "run").string();  // a folder inside a file
  options.threads = 2;
  try {
    fedsim::actors::run_federation(config, options);
    FAIL("run_federation returned although its recorder could not write its files");
  } catch (const fedsim::actors::RunFailure& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).rfind("recorder: ", 0) == 0);
    CHECK(std::string(e.what()).find("a-file") != std::string::npos);
  }
}
