// GP-BO and batched BO as registered algorithms (actors/algorithms/gp_bo.cpp): their
// [algorithm.gp-bo] / [algorithm.batched-bo] keys are read, checked and written back; their loop
// is the engine's run_gp_bo on the scenario's problem, recorded in the pull layout.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/recorder.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/gp_bo_run.hpp"
#include "scenarios/loader.hpp"
#include "tests/scenario_error.hpp"
#include "tests/test_files.hpp"

namespace al = fedsim::actors::algorithms;
namespace fs = std::filesystem;
using fedsim::scenario::load_scenario_text;
using fedsim::test::scenario_error;

namespace {

std::string scenario(const std::string& name, int budget) {
  return "seed = 5\n[world]\nagents = 3\n[world.objective]\nkind = \"garland\"\n"
         "[algorithm]\nname = \"" +
         name + "\"\nbudget = " + std::to_string(budget) + "\n";
}
const std::string gp = scenario("gp-bo", 30);
const std::string bbo = scenario("batched-bo", 6);

bool has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  UNSCOPED_INFO(text);
  return false;
}

/// The run folder's observations.csv rows after the header.
std::vector<std::string> pull_rows(const fs::path& dir) {
  std::ifstream in(dir / "observations.csv");
  std::string line;
  std::getline(in, line);
  CHECK(line == "client,phase,step,time,cumulative_regret");
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  return rows;
}

double last_field(const std::string& row) { return std::stod(row.substr(row.rfind(',') + 1)); }

/// A run folder of its own (tests/test_files.hpp's fresh_dir: per process), made.
struct RunDir {
  fs::path path;
  explicit RunDir(const std::string& name) : path(fedsim::test::fresh_dir(name)) {
    fs::create_directories(path);
  }
};

}  // namespace

TEST_CASE("gp-bo, batched-bo: their keys are read, completed with defaults and written back",
          "[algorithms][gp-bo]") {
  const auto loaded = load_scenario_text(
      gp + "[algorithm.gp-bo]\nxi = 0.1\nard = true\nacquisition_samples = 200\n", "bo.toml");
  CHECK(loaded.warnings.empty());
  const al::Params p = fedsim::scenario::algorithm_params(loaded.config);
  CHECK(p.real("xi") == 0.1);
  CHECK(p.flag("ard"));
  CHECK(p.integer("acquisition_samples") == 200);
  CHECK(p.integer("initial_design") == 5);  // defaults: GpBoParams'
  CHECK(p.integer("fit_restarts") == 5);
  CHECK(p.flag("normalize_y"));
  CHECK(p.values.size() == 10);  // the batch's keys are batched-bo's only
  const std::string resolved = fedsim::scenario::to_toml(loaded.config);
  CHECK(has(resolved, "[algorithm.gp-bo]\ninitial_design = 5\nxi = 0.1\nrefit_every = 1\n"));
  const auto again = load_scenario_text(resolved, "again.toml");
  CHECK(fedsim::scenario::algorithm_params(again.config) == p);
  const auto body = [](const std::string& t) { return t.substr(t.find("\nname = ")); };
  CHECK(body(fedsim::scenario::to_toml(again.config)) == body(resolved));

  // batched-bo: the paper's BBO by default (batch_size 0 = M, on the locals).
  const auto batched = load_scenario_text(
      bbo + "[algorithm.batched-bo]\nlipschitz_fallback = 2.5\nfit_max_evaluations = 50\n",
      "bbo.toml");
  CHECK(batched.warnings.empty());
  const al::Params b = fedsim::scenario::algorithm_params(batched.config);
  CHECK(b.values.size() == 14);
  CHECK(b.integer("batch_size") == 0);
  CHECK(b.flag("on_locals"));
  CHECK(b.integer("lipschitz_samples") == 500);
  CHECK(b.real("lipschitz_fallback") == 2.5);
  CHECK(b.integer("fit_max_evaluations") == 50);
  const std::string text = fedsim::scenario::to_toml(batched.config);
  CHECK(has(text,
            "batch_size = 0\non_locals = true\nlipschitz_samples = 500\n"
            "lipschitz_fallback = 2.5\n"));
  CHECK(fedsim::scenario::algorithm_params(load_scenario_text(text, "again.toml").config) == b);
}

TEST_CASE("gp-bo, batched-bo: bad keys are refused naming the key", "[algorithms][gp-bo]") {
  const std::string g = gp + "[algorithm.gp-bo]\n";
  CHECK(has(scenario_error(g + "initial_design = 0\n"),
            "key 'algorithm.gp-bo.initial_design': must be an integer in [1, 100000], got 0"));
  CHECK(has(scenario_error(g + "xi = -0.5\n"),
            "key 'algorithm.gp-bo.xi': must be a finite number in [0, 10], got -0.5"));
  CHECK(has(scenario_error(g + "fit_restarts = 0\n"), "key 'algorithm.gp-bo.fit_restarts'"));
  CHECK(has(scenario_error(g + "acquisition_samples = 4\n"),
            "key 'algorithm.gp-bo.acquisition_refine': must be <= acquisition_samples (4), "
            "got 5"));
  CHECK(has(scenario_error(g + "ard = 1\n"), "key 'algorithm.gp-bo.ard': expected"));
  // The batch's keys are batched-bo's.
  CHECK(has(scenario_error(g + "batch_size = 4\n"),
            "unknown key 'algorithm.gp-bo.batch_size' (allowed: initial_design,"));
  CHECK(has(scenario_error(g + "on_locals = false\n"), "unknown key 'algorithm.gp-bo.on_locals'"));

  const std::string b = bbo + "[algorithm.batched-bo]\n";
  CHECK(has(scenario_error(b + "batch_size = 1\n"),
            "key 'algorithm.batched-bo.batch_size': must be 0 (M) or in [2, 10000], got 1"));
  CHECK(has(scenario_error(b + "batch_size = 4\n"),
            "key 'algorithm.batched-bo.batch_size': with on_locals = true, point j is client "
            "j's: must be 0 or M = world.agents = 3, got 4"));
  CHECK(scenario_error(b + "batch_size = 4\non_locals = false\n").empty());
  CHECK(scenario_error(b + "batch_size = 3\n").empty());
  CHECK(has(scenario_error(b + "lipschitz_fallback = 5e-324\n"),
            "key 'algorithm.batched-bo.lipschitz_fallback': must be a finite number in [1e-6, "
            "1e6], got 5e-324"));
  CHECK(has(scenario_error(b + "lipschitz_samples = -1\n"),
            "key 'algorithm.batched-bo.lipschitz_samples'"));

  // One's table under the other: a warning, not in the resolved text.
  const auto other = load_scenario_text(bbo + "[algorithm.gp-bo]\nxi = 0.1\n", "bbo.toml");
  REQUIRE(other.warnings.size() == 1);
  CHECK(other.warnings[0] ==
        "key 'algorithm.gp-bo' has no effect: the keys of algorithm.name = \"gp-bo\", not of "
        "batched-bo");
  CHECK(fedsim::scenario::to_toml(other.config).find("gp-bo") == std::string::npos);
}

TEST_CASE("gp-bo: its loop is the engine's run on the scenario's problem, and it learns",
          "[algorithms][gp-bo][sanitizer-heavy]") {
  const auto loaded =
      load_scenario_text(gp + "[algorithm.gp-bo]\nacquisition_samples = 300\n", "bo.toml");
  const RunDir dir("fedsim-gp-bo-kind");
  std::vector<fedsim::actors::pull_event> progress;
  fedsim::actors::RunObserver observer;
  observer.pull = [&](const fedsim::actors::pull_event& e) { progress.push_back(e); };
  const al::LoopRun run =
      fedsim::scenario::algorithm_kind(loaded.config).loop({loaded.config, dir.path, &observer});

  fedsim::baselines::GpBoRunConfig direct;
  direct.params.acquisition_samples = 300;
  direct.budget = 30;
  direct.seed = 5;
  const auto problem =
      fedsim::actors::make_xarmed_problem(fedsim::scenario::fed_pne_config(loaded.config).problem);
  const auto engine = fedsim::baselines::run_gp_bo(direct, *problem);
  REQUIRE(engine.records.size() == 30);
  REQUIRE(run.run.client_regret.size() == 1);
  CHECK(run.run.client_regret[0] == engine.cumulative_regret);
  CHECK(run.run.average_cumulative_regret == engine.cumulative_regret);
  REQUIRE(run.summary.size() == 1);
  CHECK(run.summary[0].name == "gp-bo");
  CHECK(run.summary[0].entries[0].first == "evaluations");
  CHECK(std::get<std::int64_t>(run.summary[0].entries[0].second) == 30);

  // observations.csv: one row per round, the learner's cumulative regret after it.
  const std::vector<std::string> rows = pull_rows(dir.path);
  REQUIRE(rows.size() == 30);
  for (std::size_t t = 0; t < rows.size(); ++t) {
    const std::string step = std::to_string(t + 1);
    CHECK(rows[t].rfind("0," + step + "," + step + ",0,", 0) == 0);
    CHECK(last_field(rows[t]) == Approx(engine.records[t].cumulative_regret).epsilon(1e-9));
  }
  // Progress: every round (a budget under 100), the curve's values.
  REQUIRE(progress.size() == 30);
  CHECK(progress.back().steps == 30);
  CHECK(progress.back().cumulative_regret == engine.cumulative_regret);

  // A run that learns: its last 10 rounds' mean regret is below half a uniform point's
  // expected regret (0.46 here, on a grid of 10001 points; the run's is 0.19).
  const auto& f = *problem->global;
  double uniform = 0.0;
  for (int i = 0; i <= 10000; ++i)
    uniform += f.optimum_value() - f.value(Eigen::VectorXd::Constant(1, i / 10000.0));
  uniform /= 10001.0;
  double late = 0.0;
  for (int t = 20; t < 30; ++t) late += engine.records[static_cast<std::size_t>(t)].regret / 10;
  CHECK(late < 0.5 * uniform);
}

TEST_CASE("batched-bo: its loop is the engine's batched run, M points a round on the locals",
          "[algorithms][gp-bo]") {
  const auto loaded = load_scenario_text(
      bbo + "[algorithm.batched-bo]\nacquisition_samples = 200\nlipschitz_samples = 100\n",
      "bbo.toml");
  const RunDir dir("fedsim-batched-bo-kind");
  const al::LoopRun run =
      fedsim::scenario::algorithm_kind(loaded.config).loop({loaded.config, dir.path, nullptr});

  fedsim::baselines::GpBoRunConfig direct;
  direct.params.acquisition_samples = 200;
  direct.params.lipschitz_samples = 100;
  direct.params.batch_size = 3;  // 0: M
  direct.on_locals = true;
  direct.budget = 6;
  direct.seed = 5;
  const auto problem =
      fedsim::actors::make_xarmed_problem(fedsim::scenario::fed_pne_config(loaded.config).problem);
  const auto engine = fedsim::baselines::run_gp_bo(direct, *problem);
  REQUIRE(engine.records.size() == 18);
  // One learner whose regret is per client: R / M after each round.
  REQUIRE(run.run.client_regret.size() == 1);
  CHECK(run.run.client_regret[0] == engine.round_regret_curve.back());
  CHECK(run.run.average_cumulative_regret == engine.cumulative_regret / 3);
  REQUIRE(run.summary.size() == 1);
  CHECK(run.summary[0].name == "batched-bo");
  const auto entry = [&](const std::string& name) {
    for (const auto& [key, value] : run.summary[0].entries)
      if (key == name) return value;
    FAIL("no summary entry " << name);
    return al::ParamValue{};
  };
  CHECK(std::get<std::int64_t>(entry("evaluations")) == 18);
  CHECK(std::get<std::int64_t>(entry("batch_size")) == 3);
  CHECK(std::get<bool>(entry("on_locals")));
  CHECK(std::get<double>(entry("cumulative_regret_all_evaluations")) == engine.cumulative_regret);
  double best = engine.records[0].regret;
  for (const auto& r : engine.records) best = std::min(best, r.regret);
  CHECK(std::get<double>(entry("best_query_regret")) == best);

  const std::vector<std::string> rows = pull_rows(dir.path);
  REQUIRE(rows.size() == 6);
  for (std::size_t t = 0; t < rows.size(); ++t)
    CHECK(last_field(rows[t]) == Approx(engine.round_regret_curve[t]).epsilon(1e-9));

  // on_locals = false: the same batches' evaluations come from the global objective instead,
  // and the run differs (the locals carry offsets from N(0, 1)).
  const auto global = load_scenario_text(
      bbo +
          "[algorithm.batched-bo]\nacquisition_samples = 200\nlipschitz_samples = 100\n"
          "on_locals = false\n",
      "bbo.toml");
  const al::LoopRun on_global =
      fedsim::scenario::algorithm_kind(global.config).loop({global.config, dir.path, nullptr});
  direct.on_locals = false;
  const auto engine_global = fedsim::baselines::run_gp_bo(direct, *problem);
  CHECK(on_global.run.average_cumulative_regret == engine_global.cumulative_regret / 3);
  CHECK(on_global.run.average_cumulative_regret != run.run.average_cumulative_regret);
}

TEST_CASE("batched-bo: a fit that finds no finite likelihood keeps the hyperparameters it has",
          "[algorithms][gp-bo][sanitizer-heavy]") {
  // On the locals with one fit start, the fit drives the length scale and noise to their
  // bounds, the next batch is nearly one point, and no start has a Cholesky factor: the run
  // failed at round 6 (Garland, M = 6, seed 1). It goes on with the hyperparameters it had.
  const auto loaded = load_scenario_text(
      "seed = 1\n[world]\nagents = 6\n[world.objective]\nkind = \"garland\"\n"
      "[algorithm]\nname = \"batched-bo\"\nbudget = 10\n[algorithm.batched-bo]\nfit_restarts = 1\n",
      "bbo1.toml");
  const RunDir dir("fedsim-batched-bo-one-start");
  al::LoopRun run;
  REQUIRE_NOTHROW(run = fedsim::scenario::algorithm_kind(loaded.config)
                            .loop({loaded.config, dir.path, nullptr}));
  REQUIRE(run.run.client_regret.size() == 1);
  CHECK(std::isfinite(run.run.average_cumulative_regret));
  CHECK(run.run.average_cumulative_regret > 0);
}

TEST_CASE("gp-bo, batched-bo: a GP of more than 2000 evaluations is refused at load, naming the "
          "budget",
          "[algorithms][gp-bo]") {
  CHECK(scenario_error(scenario("gp-bo", 2000)).empty());
  CHECK(scenario_error(scenario("gp-bo", 2001))
            .find("key 'algorithm.budget': the GP would hold 2001 evaluations (budget x 1 a "
                  "round); at most 2000") != std::string::npos);
  // batched-bo: budget x M on the locals (M = 3 here).
  CHECK(scenario_error(scenario("batched-bo", 666)).empty());
  CHECK(scenario_error(scenario("batched-bo", 667))
            .find("the GP would hold 2001 evaluations (budget x 3 a round)") != std::string::npos);
}
