// Fed1-UCB as a registered algorithm (actors/algorithms/fed1_ucb.cpp): its [algorithm.fed1-ucb]
// keys are read, checked and written back; its loop is the engine's run_fed1_ucb on the
// scenario's problem (M = world.agents clients, T = algorithm.budget), recorded one pull row
// per client and phase.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/fed1_ucb_run.hpp"
#include "scenarios/loader.hpp"
#include "tests/scenario_error.hpp"
#include "tests/test_files.hpp"

namespace al = fedsim::actors::algorithms;
namespace fs = std::filesystem;
using fedsim::scenario::load_scenario_text;
using fedsim::test::scenario_error;

namespace {

const std::string base =
    "seed = 5\n[world]\nagents = 4\n[world.objective]\nkind = \"garland\"\noffset_std = 1.0\n"
    "[algorithm]\nname = \"fed1-ucb\"\nbudget = 600\n";

struct Row {
  int client;
  std::int64_t phase, step;
  double regret;
};

std::vector<Row> rows_of(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "client,phase,step,time,cumulative_regret");
  std::vector<Row> out;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string cell[5];
    for (auto& c : cell) std::getline(s, c, ',');
    CHECK(cell[3] == "0");  // the loop has no clock
    out.push_back({std::stoi(cell[0]), std::stoll(cell[1]), std::stoll(cell[2]), std::stod(cell[4])});
  }
  return out;
}

struct Ran {
  al::LoopRun run;
  std::vector<Row> rows;
};

Ran run_loop(const std::string& text, const std::string& name) {
  const auto loaded = load_scenario_text(text, "f1.toml");
  const fs::path dir = fedsim::test::fresh_dir("fed1-ucb-kind-" + name);
  fs::create_directories(dir);
  Ran r{fedsim::scenario::algorithm_kind(loaded.config).loop({loaded.config, dir, nullptr}), {}};
  r.rows = rows_of(dir / "observations.csv");
  return r;
}

const al::ParamValue& entry(const al::LoopRun& run, const std::string& name) {
  REQUIRE(run.summary.size() == 1);
  for (const auto& [k, v] : run.summary[0].entries)
    if (k == name) return v;
  FAIL("no summary entry " << name);
  throw std::logic_error("unreachable");
}

std::int64_t integer_entry(const al::LoopRun& run, const std::string& name) {
  return std::get<std::int64_t>(entry(run, name));
}

}  // namespace

TEST_CASE("fed1-ucb: its keys are read, completed with defaults and written back",
          "[algorithms][fed1-ucb]") {
  const al::AlgorithmKind& kind = al::algorithm("fed1-ucb");
  REQUIRE(kind.xarmed);
  CHECK(kind.xarmed->federated);
  CHECK_FALSE(kind.xarmed->is_private);
  CHECK_FALSE(kind.xarmed->tree);
  CHECK_FALSE(kind.actors);
  // The defaults are the engine's.
  const al::Params defaults = al::complete_params(kind.parameters, {}, "algorithm.fed1-ucb");
  const fedsim::baselines::Fed1UcbParams engine;
  CHECK(defaults.integer("arms_per_dim") == engine.arms_per_dim);
  CHECK(defaults.real("kappa") == engine.kappa);
  CHECK(defaults.real("sigma") == engine.sigma);

  const auto loaded =
      load_scenario_text(base + "[algorithm.fed1-ucb]\narms_per_dim = 30\nkappa = 2.5\n", "f1.toml");
  CHECK(loaded.warnings.empty());
  const al::Params p = fedsim::scenario::algorithm_params(loaded.config);
  CHECK(p.integer("arms_per_dim") == 30);
  CHECK(p.real("kappa") == 2.5);
  CHECK(p.real("sigma") == 0.5);  // a default
  const std::string resolved = fedsim::scenario::to_toml(loaded.config);
  CHECK(resolved.find("[algorithm.fed1-ucb]\narms_per_dim = 30\nkappa = 2.5\nsigma = 0.5\n") !=
        std::string::npos);
  // The resolved text reads back to the same parameters, and writes the same text again.
  const auto again = load_scenario_text(resolved, "again.toml");
  CHECK(again.warnings.empty());
  CHECK(fedsim::scenario::algorithm_params(again.config) == p);
  const auto body = [](const std::string& t) { return t.substr(t.find("\nname = ")); };
  CHECK(body(fedsim::scenario::to_toml(again.config)) == body(resolved));
}

TEST_CASE("fed1-ucb: bad keys are refused naming the key, the tree's keys warn",
          "[algorithms][fed1-ucb]") {
  const std::string t = base + "[algorithm.fed1-ucb]\n";
  CHECK(scenario_error(t + "arms_per_dim = 0\n")
            .find("key 'algorithm.fed1-ucb.arms_per_dim': must be an integer in [1, 1000000], "
                  "got 0") != std::string::npos);
  CHECK(scenario_error(t + "kappa = 0.0\n")
            .find("key 'algorithm.fed1-ucb.kappa': must be a finite number in (0, 1e6], got 0.0") !=
        std::string::npos);
  CHECK(scenario_error(t + "kappa = inf\n").find("key 'algorithm.fed1-ucb.kappa'") != std::string::npos);
  // sigma^2 would underflow to 0 (no elimination width).
  CHECK(scenario_error(t + "sigma = 5e-324\n")
            .find("key 'algorithm.fed1-ucb.sigma': must be a finite number in [1e-6, 1e6], got "
                  "5e-324") != std::string::npos);
  CHECK(scenario_error(t + "arms = 3\n")
            .find("unknown key 'algorithm.fed1-ucb.arms' (allowed: arms_per_dim, kappa, sigma)") !=
        std::string::npos);
  CHECK(scenario_error(t + "arms_per_dim = 2.5\n").find("key 'algorithm.fed1-ucb.arms_per_dim'") !=
        std::string::npos);
  // The engine's bound on T, blamed on the budget (with or without the table).
  std::string big = base;
  big.replace(big.find("budget = 600"), 12, "budget = 2000000000");
  CHECK(scenario_error(big).find("key 'algorithm.budget': must be in [1, 1e9] for fed1-ucb, got "
                           "2000000000") != std::string::npos);
  // Fed-PNE's partition keys do nothing here: a warning, not an error.
  const auto tree = load_scenario_text(base + "rho = 0.3\nk = 3\n", "f1.toml");
  REQUIRE(tree.warnings.size() == 2);
  CHECK(tree.warnings[0].find("has no effect: used by the tree searches") != std::string::npos);
  CHECK(tree.warnings[0].find("not by fed1-ucb") != std::string::npos);
  // Fed1-UCB's table under another algorithm: a warning.
  std::string other = base + "[algorithm.fed1-ucb]\nkappa = 2.0\n";
  other.replace(other.find("\"fed1-ucb\""), 10, "\"fn-ucb\"");
  const auto o = load_scenario_text(other, "fn.toml");
  REQUIRE(o.warnings.size() == 1);
  CHECK(o.warnings[0] ==
        "key 'algorithm.fed1-ucb' has no effect: the keys of algorithm.name = \"fed1-ucb\", not "
        "of fn-ucb");
}

TEST_CASE("fed1-ucb and fn-ucb: at most 10^6 arms on the problem's domain, K^d",
          "[algorithms][fed1-ucb][fn-ucb]") {
  // The tuning objective's SVM task has a 2-D domain: K = 1000 gives 10^6 arms, K = 1001 more.
  const auto tuning = [](const std::string& algorithm, int k) {
    return "seed = 4\n[world]\nagents = 3\n[world.objective]\nkind = \"tuning\"\ntask = "
           "\"svm\"\ndataset = \"digits\"\npositive_class = 8\n[algorithm]\nname = \"" +
           algorithm + "\"\nbudget = 60\n[algorithm." + algorithm + "]\narms_per_dim = " +
           std::to_string(k) + "\n";
  };
  for (const std::string algorithm : {"fed1-ucb", "fn-ucb"}) {
    INFO(algorithm);
    CHECK(scenario_error(tuning(algorithm, 1000)).empty());
    CHECK(scenario_error(tuning(algorithm, 1001))
              .find("key 'algorithm." + algorithm +
                    ".arms_per_dim': arms_per_dim^d must be <= 1000000 on this 2-dimensional "
                    "domain, got 1001^2") != std::string::npos);
  }
  // In 1-D the key's own range is the bound.
  CHECK(scenario_error(base + "[algorithm.fed1-ucb]\narms_per_dim = 1000000\n").empty());
}

TEST_CASE("fed1-ucb: its loop is the engine's run on the scenario's problem",
          "[algorithms][fed1-ucb]") {
  const std::string text = base + "[algorithm.fed1-ucb]\narms_per_dim = 20\nsigma = 0.25\n";
  const Ran ran = run_loop(text, "equal");

  const auto loaded = load_scenario_text(text, "f1.toml");
  fedsim::baselines::Fed1UcbRunConfig direct;
  direct.params.arms_per_dim = 20;
  direct.params.sigma = 0.25;
  direct.params.budget = 600;
  direct.seed = 5;
  const auto problem =
      fedsim::actors::make_xarmed_problem(fedsim::scenario::fed_pne_config(loaded.config).problem);
  REQUIRE(problem->clients() == 4);
  const auto engine = fedsim::baselines::run_fed1_ucb(direct, *problem);
  CHECK(ran.run.run.client_regret == engine.client_regret);
  CHECK(ran.run.run.average_cumulative_regret == engine.average_regret);
  CHECK_FALSE(ran.run.communication);  // its counts are numbers, not Fed-PNE's nodes: below
  REQUIRE(ran.run.summary.size() == 1);
  CHECK(ran.run.summary[0].name == "fed1-ucb");
  CHECK(integer_entry(ran.run, "rounds") == engine.rounds);
  CHECK(integer_entry(ran.run, "numbers_sent_per_client") == engine.numbers_sent_per_client);
  CHECK(integer_entry(ran.run, "numbers_received_per_client") ==
        engine.numbers_received_per_client);
  CHECK(integer_entry(ran.run, "arms") == 20);
  CHECK(integer_entry(ran.run, "active_arms_at_end") ==
        static_cast<std::int64_t>(engine.phases.back().active));

  // observations.csv: a row per client and phase, sorted by client then step.
  REQUIRE(ran.rows.size() == 4 * engine.phases.size());
  for (int m = 0; m < 4; ++m)
    for (std::size_t p = 0; p < engine.phases.size(); ++p) {
      const Row& row = ran.rows[static_cast<std::size_t>(m) * engine.phases.size() + p];
      const auto& ph = engine.phases[p];
      CHECK(row.client == m);
      CHECK(row.phase == ph.phase);
      CHECK(row.step == ph.start + ph.steps);
      CHECK(row.regret == Approx(ph.client_regret[static_cast<std::size_t>(m)]).epsilon(1e-9));
    }
  CHECK(ran.rows.back().step == 600);
  CHECK(ran.rows.back().regret == Approx(engine.client_regret[3]).epsilon(1e-9));
}

TEST_CASE("fed1-ucb: a phase pulls every active arm f(p) = floor(kappa ln T) times per client, "
          "and elimination lowers the regret rate",
          "[algorithms][fed1-ucb]") {
  // K = 20, T = 600: f = floor(kappa ln 600) = 6 at kappa = 1, 12 at kappa = 2. Phase 1 has
  // every arm active: 20 f pulls per client; later phases a multiple of f (fewer arms), but the
  // last, which the budget (or the commitment to one arm) ends.
  for (const double kappa : {1.0, 2.0}) {
    INFO("kappa " << kappa);
    const std::int64_t f = static_cast<std::int64_t>(std::floor(kappa * std::log(600.0)));
    const Ran ran = run_loop(base + "[algorithm.fed1-ucb]\narms_per_dim = 20\nkappa = " +
                                 (kappa == 1.0 ? "1.0" : "2.0") + "\n",
                             "phases");
    std::map<int, std::vector<Row>> by_client;
    for (const Row& r : ran.rows) by_client[r.client].push_back(r);
    REQUIRE(by_client.size() == 4);
    const std::vector<Row>& c0 = by_client[0];
    REQUIRE(c0.size() >= 3);
    CHECK(c0[0].phase == 1);
    CHECK(c0[0].step == 20 * f);
    std::int64_t previous_length = 20 * f;
    for (std::size_t p = 1; p + 1 < c0.size(); ++p) {
      const std::int64_t length = c0[p].step - c0[p - 1].step;
      CHECK(c0[p].phase == static_cast<std::int64_t>(p) + 1);
      CHECK(length % f == 0);
      CHECK(length <= previous_length);  // arms only go
      previous_length = length;
    }
    CHECK(c0.back().step == 600);
    // Every client's phases end at the same steps; its regret only grows.
    for (const auto& [m, rows] : by_client) {
      REQUIRE(rows.size() == c0.size());
      for (std::size_t p = 0; p < rows.size(); ++p) {
        CHECK(rows[p].step == c0[p].step);
        if (p > 0) CHECK(rows[p].regret >= rows[p - 1].regret);
      }
    }
    CHECK(integer_entry(ran.run, "active_arms_at_end") < 20);
    // The regret per pull in the last phase is below phase 1's (all arms).
    const double first = c0[0].regret / static_cast<double>(c0[0].step);
    const double last = (c0.back().regret - c0[c0.size() - 2].regret) /
                        static_cast<double>(c0.back().step - c0[c0.size() - 2].step);
    CHECK(last < first);
  }
}
