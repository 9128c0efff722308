#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/loader.hpp"
#include "tests/tools/run_command.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;
using fedsim::test::run_fedsim;
using fedsim::test::tuning_shrink;
using fedsim::test::xarmed_tuning_shrink;

namespace {
const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// Whether a scenario file evaluates a TCP service, which must be started first: the test
/// "a tcp objective gives the records of the same command objective" runs those.
bool needs_service(const fs::path& file) {
  return slurp(file).find("kind = \"tcp\"") != std::string::npos;
}

/// Whether a scenario file runs in wall-clock time (run.time = "wall"): its records depend on
/// the machine's speed, so it is not compared across runs (tests/actors/wall_clock_test.cpp
/// runs those).
bool in_wall_time(const fs::path& file) { return fedsim::scenario::load_scenario(file.string()).run.wall(); }

/// Every scenario shipped under scenarios/ (a new file is tested without a line here),
/// relative to the folder, in a fixed order; not those in wall-clock time.
std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(scenarios))
    if (e.path().extension() == ".toml" && !needs_service(e.path()) && !in_wall_time(e.path()))
      out.push_back(fs::relative(e.path(), scenarios).string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The registered algorithm a shipped scenario runs.
const fedsim::actors::algorithms::AlgorithmKind& kind_of(const std::string& name) {
  return fedsim::scenario::algorithm_kind(
      fedsim::scenario::load_scenario_file((scenarios / name).string(), {}).config);
}

/// Whether a scenario file runs the X-armed family.
bool is_xarmed(const std::string& name) { return kind_of(name).xarmed.has_value(); }

// Shrunk so that CI runs each in a fraction of a second.
const char* fbo_shrink = "--set world.agents=24 --set algorithm.iterations=10 --quiet";
// Tuning objectives: fedsim::test::tuning_shrink and xarmed_tuning_shrink (run_command.hpp),
// also under the sanitizers, where CI runs this.
/// The authors' local sampler refits and draws fresh features: fewer of both.
const char* authors_shrink =
    " --set algorithm.local_refit_restarts=2 --set algorithm.local_features=30";

bool uses_authors_sampler(const std::string& name) {
  return slurp(scenarios / name).find("local_sampler = \"refit-rff") != std::string::npos;
}

bool is_tuning(const std::string& name) {
  return slurp(scenarios / name).find("kind = \"tuning\"") != std::string::npos;
}
const char* xarmed_shrink = "--set world.agents=6 --set algorithm.budget=1500 --quiet";
/// The X-armed baselines (GP fits on every evaluation, networks): a shorter budget (batched BO
/// on 6 x 60 points took 36 s).
const char* baseline_shrink = "--set world.agents=4 --set algorithm.budget=20 --quiet";
}  // namespace

/// Runs every `parts`-th shipped scenario from `part` on (in name order): each runs, twice and
/// the same with 1 and 4 threads, and again from its resolved configuration. In three test
/// cases, each well under ctest's timeout and run in parallel by ctest -j.
static void check_shipped_scenarios(int part, int parts) {
  const auto all = shipped_scenarios();
  REQUIRE(all.size() >= 18);
  std::vector<std::string> names;
  for (std::size_t i = static_cast<std::size_t>(part); i < all.size(); i += static_cast<std::size_t>(parts))
    names.push_back(all[i]);
  // CI's sanitizer job (FEDSIM_TEST_SANITIZER=1, .ci/run) runs each scenario once, with 4
  // threads, for memory errors and undefined behaviour; the plain build's tests compare runs.
  const bool sanitizer = fedsim::test::under_sanitizer();
  const int runs = sanitizer ? 1 : 2;
  for (const std::string& name : names) {
    INFO(name);
    const auto& kind = kind_of(name);
    const bool xarmed = kind.xarmed.has_value();
    const bool loop_only = !kind.actors;  // the loop driver, no messages
    const std::string driver = loop_only ? " --driver loop" : "";
    const std::vector<std::string> files =
        loop_only ? std::vector<std::string>{"observations.csv", "config.resolved.toml"}
        : xarmed ? std::vector<std::string>{"observations.csv", "phases.csv", "events.jsonl",
                                            "config.resolved.toml"}
                 : std::vector<std::string>{"observations.csv", "rounds.csv", "events.jsonl",
                                            "config.resolved.toml"};
    std::vector<std::string> contents[2];
    for (int k = 0; k < runs; ++k) {
      std::string stem = name;
      std::replace(stem.begin(), stem.end(), '/', '-');
      const fs::path dir = fresh_dir("run-" + stem + std::to_string(k));
      const auto r = run_fedsim("run " + (scenarios / name).string() + " " +
                                (!xarmed                ? fbo_shrink
                                 : kind.xarmed->tree    ? xarmed_shrink
                                                        : baseline_shrink) +
                                (is_tuning(name) ? (xarmed ? xarmed_tuning_shrink : tuning_shrink)
                                                 : "") +
                                (uses_authors_sampler(name) ? authors_shrink : "") + driver +
                                " --threads " +
                                (k == 0 && !sanitizer ? "1" : "4") + " --out " + dir.string());
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      REQUIRE(fs::exists(dir / "summary.json"));
      for (const auto& f : files)
        contents[k].push_back(fs::exists(dir / f) ? slurp(dir / f) : std::string("(absent)"));
      const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
      CHECK(summary["completed"] == true);
      CHECK((summary["messages"]["sent"].get<long>() > 0) == !loop_only);
      if (xarmed) {
        CHECK(summary["clients"] == (kind.xarmed->tree ? 6 : 4));
        CHECK(summary["average_cumulative_regret_per_client"].get<double>() > 0);
        CHECK(contents[k][0].rfind("client,phase,step,time,cumulative_regret\n", 0) == 0);
      } else {
        CHECK(summary["agents"] == 24);
        const auto curve = summary["mean_simple_regret_by_iteration"];
        if (curve.back().is_null()) {  // no known optimum: no regret, the best observed score
          // The tuning objectives and the scikit-learn script know none.
          const std::string text = slurp(scenarios / name);
          CHECK((is_tuning(name) || text.find("sklearn_svm.py") != std::string::npos));
          // Above chance: an AUC of 0.5 (svm, SVC), an accuracy of 0.1 (ten classes).
          const bool auc = text.find("task = \"svm\"") != std::string::npos ||
                           text.find("sklearn_svm.py") != std::string::npos;
          CHECK(summary["mean_best_observed"].get<double>() > (auc ? 0.55 : 0.2));
        } else {
          CHECK(curve.back().get<double>() <= curve.front().get<double>());
        }
      }
      // The resolved config runs again to the same result.
      if (k == 0 && !sanitizer) {
        const fs::path again = fresh_dir("again-" + stem);
        REQUIRE(run_fedsim("run " + (dir / "config.resolved.toml").string() + driver +
                           " --quiet --threads 2 --out " + again.string()).exit_code == 0);
        CHECK(slurp(again / "observations.csv") == contents[0][0]);
      }
    }
    for (std::size_t f = 0; runs == 2 && f < files.size(); ++f) {
      INFO(files[f]);
      CHECK(contents[0][f] == contents[1][f]);
    }
  }
}

TEST_CASE("every shipped scenario runs and is deterministic across thread counts (part 1 of 3)",
          "[cli][run]") {
  check_shipped_scenarios(0, 3);
}
TEST_CASE("every shipped scenario runs and is deterministic across thread counts (part 2 of 3)",
          "[cli][run]") {
  check_shipped_scenarios(1, 3);
}
TEST_CASE("every shipped scenario runs and is deterministic across thread counts (part 3 of 3)",
          "[cli][run]") {
  check_shipped_scenarios(2, 3);
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

