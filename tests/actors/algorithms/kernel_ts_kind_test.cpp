// KernelTS as a registered algorithm (actors/algorithms/kernel_ts.cpp): its [algorithm.kernel-ts]
// keys are read, checked and written back; its loop is the engine's run_kernel_ts on the
// scenario's problem, recorded in the pull layout.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/kernel_ts_run.hpp"
#include "scenarios/loader.hpp"
#include "tests/scenario_error.hpp"
#include "tests/test_files.hpp"

namespace al = fedsim::actors::algorithms;
namespace fs = std::filesystem;
using fedsim::scenario::load_scenario_text;
using fedsim::test::scenario_error;

namespace {

const std::string base =
    "seed = 5\n[world]\nagents = 4\n[world.objective]\nkind = \"garland\"\n"
    "[algorithm]\nname = \"kernel-ts\"\nbudget = 60\n";

}  // namespace

TEST_CASE("kernel-ts: its keys are read, completed with defaults and written back",
          "[algorithms][kernel-ts]") {
  const auto loaded = load_scenario_text(
      base + "[algorithm.kernel-ts]\nlengthscale = 0.2\nscaling = \"theory\"\ncandidates_per_dim = 200\n",
      "kts.toml");
  CHECK(loaded.warnings.empty());
  const al::Params p = fedsim::scenario::algorithm_params(loaded.config);
  CHECK(p.real("lengthscale") == 0.2);
  CHECK(p.choice("scaling") == "theory");
  CHECK(p.integer("candidates_per_dim") == 200);
  CHECK(p.real("lambda") == 1.0);  // a default
  const std::string resolved = fedsim::scenario::to_toml(loaded.config);
  CHECK(resolved.find("[algorithm.kernel-ts]\nlengthscale = 0.2\nsignal_variance = 1.0\n") !=
        std::string::npos);
  // The resolved text reads back to the same parameters, and writes the same text again.
  const auto again = load_scenario_text(resolved, "again.toml");
  CHECK(fedsim::scenario::algorithm_params(again.config) == p);
  const auto body = [](const std::string& t) { return t.substr(t.find("\nname = ")); };
  CHECK(body(fedsim::scenario::to_toml(again.config)) == body(resolved));
}

TEST_CASE("kernel-ts: bad keys are refused naming the key, and another algorithm's table warns",
          "[algorithms][kernel-ts]") {
  CHECK(scenario_error(base + "[algorithm.kernel-ts]\nlengthscale = 5e-324\n")
            .find("key 'algorithm.kernel-ts.lengthscale': must be a finite number in [1e-6, "
                  "1e6], got 5e-324") != std::string::npos);
  CHECK(scenario_error(base + "[algorithm.kernel-ts]\nposterior = \"dense\"\n")
            .find("key 'algorithm.kernel-ts.posterior': must be one of factor, exact") !=
        std::string::npos);
  CHECK(scenario_error(base + "[algorithm.kernel-ts]\ncandidates_per_dim = 1\n")
            .find("key 'algorithm.kernel-ts.candidates_per_dim': must be 0 (auto) or in [2, "
                  "100000], got 1") != std::string::npos);
  CHECK(scenario_error(base + "[algorithm.kernel-ts]\nlambdaa = 1.0\n")
            .find("unknown key 'algorithm.kernel-ts.lambdaa', did you mean "
                  "'algorithm.kernel-ts.lambda'? (allowed: lengthscale,") !=
        std::string::npos);
  CHECK(scenario_error(base + "[algorithm.kernel-ts]\nlambda = \"1\"\n")
            .find("key 'algorithm.kernel-ts.lambda': expected a number, got a string") !=
        std::string::npos);
  // Fed-PNE's partition keys do nothing here: a warning, not an error.
  const auto tree = load_scenario_text(base + "rho = 0.3\n", "kts.toml");
  REQUIRE(tree.warnings.size() == 1);
  CHECK(tree.warnings[0].find("key 'algorithm.rho' has no effect: used by the tree searches") !=
        std::string::npos);
  // KernelTS's table under another algorithm: a warning, and not in the resolved text.
  std::string hct = base + "[algorithm.kernel-ts]\nlambda = 2.0\n";
  hct.replace(hct.find("\"kernel-ts\""), 11, "\"hct\"");
  const auto other = load_scenario_text(hct, "hct.toml");
  REQUIRE(other.warnings.size() == 1);
  CHECK(other.warnings[0] ==
        "key 'algorithm.kernel-ts' has no effect: the keys of algorithm.name = \"kernel-ts\", "
        "not of hct");
  CHECK(fedsim::scenario::to_toml(other.config).find("kernel-ts") == std::string::npos);
}

TEST_CASE("kernel-ts: its loop is the engine's run on the scenario's problem",
          "[algorithms][kernel-ts]") {
  const auto loaded =
      load_scenario_text(base + "[algorithm.kernel-ts]\ncandidates_per_dim = 300\n", "kts.toml");
  const fs::path dir = fedsim::test::fresh_dir("kernel-ts-kind");
  fs::create_directories(dir);
  const al::LoopRun run =
      fedsim::scenario::algorithm_kind(loaded.config).loop({loaded.config, dir, nullptr});

  fedsim::baselines::KernelTsRunConfig direct;
  direct.params.candidates_per_dim = 300;
  direct.budget = 60;
  direct.seed = 5;
  const auto problem =
      fedsim::actors::make_xarmed_problem(fedsim::scenario::fed_pne_config(loaded.config).problem);
  const auto engine = fedsim::baselines::run_kernel_ts(direct, *problem);
  REQUIRE(run.run.client_regret.size() == 1);
  CHECK(run.run.client_regret[0] == engine.cumulative_regret);
  CHECK(run.run.average_cumulative_regret == engine.cumulative_regret);
  REQUIRE(run.summary.size() == 1);
  CHECK(run.summary[0].name == "kernel-ts");

  // observations.csv: one row per round, the cumulative regret after it.
  std::ifstream in(dir / "observations.csv");
  std::string line, last;
  int rows = 0;
  std::getline(in, line);
  CHECK(line == "client,phase,step,time,cumulative_regret");
  while (std::getline(in, line)) {
    ++rows;
    last = line;
  }
  CHECK(rows == 60);
  CHECK(last.rfind("0,60,60,", 0) == 0);
  CHECK(std::stod(last.substr(last.rfind(',') + 1)) ==
        Approx(engine.records.back().cumulative_regret).epsilon(1e-9));
  // A run that learns: the last 20 rounds' regret below the first 20's.
  double early = 0.0, late = 0.0;
  for (int t = 0; t < 20; ++t) {
    early += engine.records[static_cast<std::size_t>(t)].regret;
    late += engine.records[static_cast<std::size_t>(40 + t)].regret;
  }
  CHECK(late < early);
}
