// FN-UCB as a registered algorithm (actors/algorithms/fn_ucb.cpp): its [algorithm.fn-ucb] keys
// are read, checked and written back; its loop is the engine's run_fn_ucb on the scenario's
// problem (N = world.agents clients, T = algorithm.budget rounds), recorded every client at a
// stride of ceil(T / 100) rounds with the synchronisations so far as the phase.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/fn_ucb_run.hpp"
#include "scenarios/loader.hpp"
#include "tests/scenario_error.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace al = fedsim::actors::algorithms;
namespace fs = std::filesystem;
using fedsim::baselines::FnUcbParams;
using fedsim::scenario::load_scenario_text;
using fedsim::test::scenario_error;

namespace {

std::string scenario(std::int64_t budget, const std::string& keys = "") {
  return "seed = 7\n[world]\nagents = 4\n[world.objective]\nkind = \"garland\"\n"
         "offset_std = 1.0\n[algorithm]\nname = \"fn-ucb\"\nbudget = " +
         std::to_string(budget) + "\n[algorithm.fn-ucb]\narms_per_dim = 20\n" + keys;
}

struct Row {
  int client;
  std::int64_t phase, step;
  double regret;
};

struct Ran {
  al::LoopRun run;
  std::vector<Row> rows;
};

Ran run_loop(const std::string& text, const std::string& name) {
  const auto loaded = load_scenario_text(text, "fn.toml");
  const fs::path dir = fedsim::test::fresh_dir("fn-ucb-kind-" + name);
  fs::create_directories(dir);
  Ran r{fedsim::scenario::algorithm_kind(loaded.config).loop({loaded.config, dir, nullptr}), {}};
  std::ifstream in(dir / "observations.csv");
  std::string line;
  std::getline(in, line);
  CHECK(line == "client,phase,step,time,cumulative_regret");
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string cell[5];
    for (auto& c : cell) std::getline(s, c, ',');
    CHECK(cell[3] == "0");  // the loop has no clock
    r.rows.push_back({std::stoi(cell[0]), std::stoll(cell[1]), std::stoll(cell[2]),
                      std::stod(cell[4])});
  }
  return r;
}

std::int64_t integer_entry(const al::LoopRun& run, const std::string& name) {
  REQUIRE(run.summary.size() == 1);
  CHECK(run.summary[0].name == "fn-ucb");
  for (const auto& [k, v] : run.summary[0].entries)
    if (k == name) return std::get<std::int64_t>(v);
  FAIL("no summary entry " << name);
  return 0;
}

}  // namespace

TEST_CASE("fn-ucb: its keys are read, completed with defaults and written back",
          "[algorithms][fn-ucb]") {
  const al::AlgorithmKind& kind = al::algorithm("fn-ucb");
  REQUIRE(kind.xarmed);
  CHECK(kind.xarmed->federated);
  CHECK_FALSE(kind.xarmed->is_private);
  CHECK_FALSE(kind.xarmed->tree);
  CHECK_FALSE(kind.actors);
  // The defaults are the engine's, and the three keys the scenario's comment names give the
  // authors' code's values (FnUcbParams::authors()).
  const auto of = [](const al::Params& p) {
    FnUcbParams f;
    f.arms_per_dim = static_cast<int>(p.integer("arms_per_dim"));
    f.width = static_cast<int>(p.integer("width"));
    f.lambda = p.real("lambda");
    f.nu_gp = p.real("nu_gp");
    f.nu_nn = p.real("nu_nn");
    f.sync_threshold = p.real("sync_threshold");
    f.alpha_delay = p.integer("alpha_delay");
    f.alpha_ramp = p.integer("alpha_ramp");
    f.train_steps = static_cast<int>(p.integer("train_steps"));
    f.learning_rate = p.real("learning_rate");
    f.stop_training_after = p.integer("stop_training_after");
    return f;
  };
  const auto same = [](const FnUcbParams& a, const FnUcbParams& b) {
    return a.arms_per_dim == b.arms_per_dim && a.width == b.width && a.lambda == b.lambda &&
           a.nu_gp == b.nu_gp && a.nu_nn == b.nu_nn && a.sync_threshold == b.sync_threshold &&
           a.alpha_delay == b.alpha_delay && a.alpha_ramp == b.alpha_ramp &&
           a.train_steps == b.train_steps && a.learning_rate == b.learning_rate &&
           a.stop_training_after == b.stop_training_after;
  };
  const al::Params defaults = al::complete_params(kind.parameters, {}, "algorithm.fn-ucb");
  CHECK(defaults.values.size() == 11);
  CHECK(same(of(defaults), FnUcbParams{}));
  CHECK_FALSE(same(of(defaults), FnUcbParams::authors()));
  const auto authors = load_scenario_text(
      scenario(60, "width = 20\ntrain_steps = 30\nstop_training_after = 2000\n"), "fn.toml");
  FnUcbParams got = of(fedsim::scenario::algorithm_params(authors.config));
  CHECK(got.arms_per_dim == 20);  // these tests' mesh; the authors' is the default 100
  got.arms_per_dim = FnUcbParams::authors().arms_per_dim;
  CHECK(same(got, FnUcbParams::authors()));

  const auto loaded =
      load_scenario_text(scenario(60, "lambda = 0.5\nsync_threshold = 2.0\n"), "fn.toml");
  CHECK(loaded.warnings.empty());
  const al::Params p = fedsim::scenario::algorithm_params(loaded.config);
  CHECK(p.integer("arms_per_dim") == 20);
  CHECK(p.real("lambda") == 0.5);
  CHECK(p.real("sync_threshold") == 2.0);
  CHECK(p.integer("width") == 10);  // a default
  const std::string resolved = fedsim::scenario::to_toml(loaded.config);
  CHECK(resolved.find("[algorithm.fn-ucb]\narms_per_dim = 20\nwidth = 10\nlambda = 0.5\nnu_gp = "
                      "0.1\nnu_nn = 0.1\nsync_threshold = 2.0\nalpha_delay = 3\n") !=
        std::string::npos);
  const auto again = load_scenario_text(resolved, "again.toml");
  CHECK(again.warnings.empty());
  CHECK(fedsim::scenario::algorithm_params(again.config) == p);
  const auto body = [](const std::string& t) { return t.substr(t.find("\nname = ")); };
  CHECK(body(fedsim::scenario::to_toml(again.config)) == body(resolved));
}

TEST_CASE("fn-ucb: bad keys are refused naming the key", "[algorithms][fn-ucb]") {
  const auto refused = [](const std::string& keys, const std::string& what) {
    INFO(keys);
    const std::string e = scenario_error(scenario(60, keys));
    INFO(e);
    CHECK(e.find(what) != std::string::npos);
  };
  // Every V is >= lambda I: a lambda of 5e-324 would make it singular.
  refused("lambda = 5e-324\n",
          "key 'algorithm.fn-ucb.lambda': must be a finite number in [1e-6, 1e6], got 5e-324");
  refused("width = 0\n", "key 'algorithm.fn-ucb.width': must be an integer in [1, 4096], got 0");
  refused("width = 4097\n", "key 'algorithm.fn-ucb.width'");
  refused("alpha_ramp = 0\n", "key 'algorithm.fn-ucb.alpha_ramp': must be an integer in [1,");
  refused("alpha_delay = -1\n", "key 'algorithm.fn-ucb.alpha_delay'");
  refused("train_steps = 0\n", "key 'algorithm.fn-ucb.train_steps'");
  refused("learning_rate = 0.0\n", "key 'algorithm.fn-ucb.learning_rate'");
  refused("nu_gp = -0.1\n", "key 'algorithm.fn-ucb.nu_gp'");
  refused("nu_nn = nan\n", "key 'algorithm.fn-ucb.nu_nn'");
  refused("sync_threshold = inf\n", "key 'algorithm.fn-ucb.sync_threshold'");
  refused("stop_training_after = -1\n", "key 'algorithm.fn-ucb.stop_training_after'");
  refused("nu = 0.1\n", "unknown key 'algorithm.fn-ucb.nu' (allowed: arms_per_dim, width,");
  std::string big = scenario(60);
  big.replace(big.find("budget = 60"), 11, "budget = 1000000001");
  CHECK(scenario_error(big).find("key 'algorithm.budget': must be in [1, 1e9] for fn-ucb, got "
                           "1000000001") != std::string::npos);
}

TEST_CASE("fn-ucb: its loop is the engine's run on the scenario's problem",
          "[algorithms][fn-ucb]") {
  const std::string text = scenario(60, "sync_threshold = 0.3\n");
  const Ran ran = run_loop(text, "equal");

  const auto loaded = load_scenario_text(text, "fn.toml");
  fedsim::baselines::FnUcbRunConfig direct;
  direct.params.arms_per_dim = 20;
  direct.params.sync_threshold = 0.3;
  direct.params.budget = 60;
  direct.seed = 7;
  const auto problem =
      fedsim::actors::make_xarmed_problem(fedsim::scenario::fed_pne_config(loaded.config).problem);
  REQUIRE(problem->clients() == 4);
  const auto engine = fedsim::baselines::run_fn_ucb(direct, *problem);
  CHECK(ran.run.run.client_regret == engine.client_regret);
  CHECK(ran.run.run.average_cumulative_regret == engine.average_regret);
  CHECK_FALSE(ran.run.communication);
  CHECK(integer_entry(ran.run, "rounds") == static_cast<std::int64_t>(engine.sync_rounds.size()));
  CHECK(integer_entry(ran.run, "numbers_sent_per_client") == engine.numbers_sent_per_client);
  CHECK(integer_entry(ran.run, "numbers_received_per_client") ==
        engine.numbers_received_per_client);
  CHECK(integer_entry(ran.run, "arms") == 20);
  CHECK(integer_entry(ran.run, "parameters") == 31);  // width 10, d = 1: 10 (1 + 2) + 1

  // T = 60: the stride is 1, a row per client and round, the synchronisations so far as the
  // phase; each client's cumulative regret from the engine's pulls.
  REQUIRE(ran.rows.size() == 4u * 60u);
  std::vector<double> sum(4, 0.0);
  std::map<std::pair<int, std::int64_t>, double> want;
  for (const auto& pull : engine.pulls)
    want[{pull.client, pull.step}] = sum[static_cast<std::size_t>(pull.client)] += pull.regret;
  for (std::size_t k = 0; k < ran.rows.size(); ++k) {
    const Row& row = ran.rows[k];
    CHECK(row.client == static_cast<int>(k / 60));
    CHECK(row.step == static_cast<std::int64_t>(k % 60) + 1);
    std::int64_t syncs = 0;
    for (const std::int64_t s : engine.sync_rounds) syncs += s <= row.step ? 1 : 0;
    CHECK(row.phase == syncs);
    CHECK(row.regret == Approx(want.at({row.client, row.step})).epsilon(1e-9));
  }
  CHECK(engine.sync_rounds.size() > 0);
  CHECK(engine.sync_rounds.size() < 59);  // D = 0.3 skips some rounds
}

TEST_CASE("fn-ucb: rows at a stride of ceil(T / 100) rounds and at T, and D decides the "
          "synchronisations",
          "[algorithms][fn-ucb]") {
  // T = 250: stride 3, rows at rounds 3, 6, ..., 249 and 250: 84 per client (in CI's ASan job
  // T = 101: stride 2, rows at 2, 4, ..., 100 and 101: 51). D = 0: a synchronisation after every
  // round but the last.
  const std::int64_t budget = fedsim::test::under_sanitizer() ? 101 : 250;
  const std::int64_t stride = (budget + 99) / 100;
  const std::size_t per_client = static_cast<std::size_t>(budget / stride + 1);  // T % stride > 0
  const Ran every = run_loop(scenario(budget), "stride");
  REQUIRE(every.rows.size() == 4u * per_client);
  for (std::size_t k = 0; k < per_client; ++k) {
    const Row& row = every.rows[k];
    const std::int64_t t =
        k + 1 == per_client ? budget : stride * (static_cast<std::int64_t>(k) + 1);
    CHECK(row.client == 0);
    CHECK(row.step == t);
    CHECK(row.phase == (t == budget ? budget - 1 : t));
    if (k > 0) CHECK(row.regret >= every.rows[k - 1].regret);
  }
  CHECK(every.rows.back().client == 3);
  CHECK(every.rows.back().regret == Approx(every.run.run.client_regret[3]).epsilon(1e-9));
  CHECK(integer_entry(every.run, "rounds") == budget - 1);
  // p = 31: rounds 1..3 send W and B (p^2 + p), rounds 4..T-1 also V^-1 and theta (training
  // goes on to round 1000).
  CHECK(integer_entry(every.run, "numbers_sent_per_client") ==
        3 * (31 * 31 + 31) + (budget - 4) * (2 * 31 * 31 + 2 * 31));
  CHECK(integer_entry(every.run, "numbers_received_per_client") ==
        integer_entry(every.run, "numbers_sent_per_client"));

  // A D no criterion reaches: no synchronisation, nothing sent, phase 0 throughout.
  const Ran never = run_loop(scenario(budget, "sync_threshold = 1e15\n"), "never");
  REQUIRE(never.rows.size() == 4u * per_client);
  for (const Row& row : never.rows) CHECK(row.phase == 0);
  CHECK(integer_entry(never.run, "rounds") == 0);
  CHECK(integer_entry(never.run, "numbers_sent_per_client") == 0);
  CHECK(never.run.run.client_regret != every.run.run.client_regret);
}
