#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/tools/run_command.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;
using fedsim::test::run_fedsim;

namespace {
const fs::path scenarios = FEDSIM_SCENARIO_DIR;
// Every shipped scenario, shrunk so that CI runs it in a fraction of a second.
const char* shrink = "--set world.agents=24 --set algorithm.iterations=10 --quiet";
}  // namespace

TEST_CASE("every shipped scenario runs and is deterministic across thread counts", "[cli][run]") {
  for (const char* name : {"dp-fts-de-synthetic.toml", "tiny.toml", "async.toml",
                           "stragglers/sync.toml", "stragglers/deadline.toml",
                           "stragglers/quorum.toml"}) {
    INFO(name);
    std::string files[2][4];
    for (int k = 0; k < 2; ++k) {
      std::string stem = name;
      std::replace(stem.begin(), stem.end(), '/', '-');
      const fs::path dir = fresh_dir("run-" + stem + std::to_string(k));
      const auto r = run_fedsim("run " + (scenarios / name).string() + " " + shrink +
                                " --threads " + (k == 0 ? "1" : "4") + " --out " + dir.string());
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      for (const char* f : {"observations.csv", "rounds.csv", "events.jsonl",
                            "config.resolved.toml", "summary.json"})
        REQUIRE(fs::exists(dir / f));
      files[k][0] = slurp(dir / "observations.csv");
      files[k][1] = slurp(dir / "rounds.csv");
      files[k][2] = slurp(dir / "events.jsonl");
      files[k][3] = slurp(dir / "config.resolved.toml");
      const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
      CHECK(summary["agents"] == 24);
      CHECK(summary["messages"]["sent"].get<long>() > 0);
      const auto curve = summary["mean_simple_regret_by_iteration"];
      CHECK(curve.back().get<double>() <= curve.front().get<double>());
      // The resolved config runs again to the same result.
      if (k == 0) {
        const fs::path again = fresh_dir("again");
        REQUIRE(run_fedsim("run " + (dir / "config.resolved.toml").string() +
                           " --quiet --threads 2 --out " + again.string()).exit_code == 0);
        CHECK(slurp(again / "observations.csv") == files[0][0]);
      }
    }
    for (int f = 0; f < 4; ++f) CHECK(files[0][f] == files[1][f]);
  }
}

TEST_CASE("fedsim run rejects bad scenarios with one line and exit code 2", "[cli][run]") {
  const fs::path bad = fs::temp_directory_path() / "fedsim-bad-scenario.toml";
  std::ofstream(bad) << "name = \"bad\"\n[algorithm]\nq = 1.5\n";
  const auto r = run_fedsim("run " + bad.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("fedsim: error: ") == 0);
  CHECK(r.output.find("algorithm.q") != std::string::npos);
  CHECK(r.output.find(bad.filename().string()) != std::string::npos);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(run_fedsim("run /no/such/file.toml").exit_code == 2);
  CHECK(run_fedsim("run " + (scenarios / "tiny.toml").string() + " --set policy.kind=fastest")
            .exit_code == 2);
  CHECK(run_fedsim("run " + (scenarios / "tiny.toml").string() + " --threads -1").exit_code == 2);
}

TEST_CASE("fedsim run takes one key=value per --set, before or after the scenario", "[cli][run]") {
  const fs::path dir = fresh_dir("set-order");
  const auto r = run_fedsim("run --set algorithm.q=0.5 --set world.agents=6 " +
                            (scenarios / "tiny.toml").string() + " --quiet --out " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string resolved = slurp(dir / "config.resolved.toml");
  CHECK(resolved.find("q = 0.5") != std::string::npos);
  CHECK(resolved.find("agents = 6") != std::string::npos);
}

TEST_CASE("a deadline run whose agents are all presumed dead still ends", "[cli][run]") {
  // Regression: with every agent done or presumed dead the server kept opening empty rounds.
  const fs::path dir = fresh_dir("all-presumed-dead");
  const auto r = run_fedsim("run " + (scenarios / "stragglers/deadline.toml").string() +
                            " --set world.agents=12 --set algorithm.iterations=6"
                            " --set policy.deadline=2 --quiet --out " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Agents that did not crash (crashes are at t = 20 s) all finish their 6 iterations.
  std::map<int, int> last;
  std::ifstream in(dir / "observations.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const int agent = std::stoi(line.substr(0, line.find(',')));
    const int t = std::stoi(line.substr(line.find(',') + 1));
    last[agent] = std::max(last[agent], t);
  }
  int finished = 0;
  for (const auto& [agent, t] : last) finished += t == 6;
  CHECK(finished >= 12 - 3);  // 20% of 12 crash (ceil: 3)
}

TEST_CASE("every shipped Fed-PNE scenario runs as actors, deterministically", "[cli][run]") {
  for (const char* name : {"xarmed/garland.toml", "xarmed/double-sine.toml",
                           "xarmed/stragglers-garland.toml", "xarmed/seir.toml",
                           "xarmed/dp-garland.toml"}) {
    INFO(name);
    std::string files[2][3];
    for (int k = 0; k < 2; ++k) {
      std::string stem = name;
      std::replace(stem.begin(), stem.end(), '/', '-');
      const fs::path dir = fresh_dir("run-" + stem + std::to_string(k));
      const auto r = run_fedsim("run " + (scenarios / name).string() +
                                " --set world.agents=6 --set algorithm.budget=1500 --quiet"
                                " --threads " + (k == 0 ? "1" : "4") + " --out " + dir.string());
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      files[k][0] = slurp(dir / "observations.csv");
      files[k][1] = slurp(dir / "phases.csv");
      files[k][2] = slurp(dir / "events.jsonl");
      const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
      CHECK(summary["clients"] == 6);
      CHECK(summary["average_cumulative_regret_per_client"].get<double>() > 0);
      CHECK(files[k][0].rfind("client,phase,step,time,cumulative_regret\n", 0) == 0);
    }
    for (int f = 0; f < 3; ++f) CHECK(files[0][f] == files[1][f]);
  }
}
