// `fedsim run --driver actors|loop` (tools/fedsim/loop_driver.cpp): the plain synchronous loop
// runs from the same scenario files as the actors and writes the same records.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/xarmed/hct_run.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_rows;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

using fedsim::test::without_columns;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// Whether a scenario file runs an algorithm the actors run (not HCT and the baselines).
bool runs_as_actors(const fs::path& file) {
  return fedsim::scenario::algorithm_kind(fedsim::scenario::load_scenario(file.string())).actors;
}

/// tools/golden's shrink (of the algorithms the actors run), and a tuning objective's
/// (run_command.hpp: under CI's sanitizer, the real-data scenarios' training took minutes).
std::string shrink(const fs::path& file) {
  const std::string text = slurp(file);
  const bool xarmed = fedsim::scenario::load_scenario(file.string()).xarmed.enabled;
  const bool tuning = text.find("kind = \"tuning\"") != std::string::npos;
  if (!xarmed)
    return std::string(" --set world.agents=12 --set algorithm.iterations=6") +
           (tuning ? fedsim::test::tuning_shrink : "");
  return std::string(" --set world.agents=4 --set algorithm.budget=600") +
         (tuning ? fedsim::test::xarmed_tuning_shrink : "");
}

/// Overrides that make any shipped scenario's network perfect under sync.
const char* perfect =
    " --set world.network.compute=0 --set world.network.uplink=0 --set world.network.downlink=0"
    " --set world.network.bandwidth=inf --set world.network.drop=0"
    " --set world.network.duplicate=0 --set world.network.groups=[]"
    " --set world.network.crashes=[] --set world.network.partitions=[]"
    " --set world.network.malformed.rate=0 --set policy.kind=sync";

nlohmann::json summary_of(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("the loop driver and the actors write the same records for every shipped scenario",
          "[cli][driver]") {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(scenarios))
    if (e.path().extension() == ".toml" && runs_as_actors(e.path()) &&
        slurp(e.path()).find("kind = \"tcp\"") == std::string::npos &&  // needs its service
        !fedsim::scenario::load_scenario(e.path().string()).run.wall())  // the loop has no clock
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  // CI's ASan job compares every third scenario (each shipped scenario also runs there once as
  // actors, in run_cli_test): 174 s under ASan for all of them.
  const std::size_t step = fedsim::test::under_sanitizer() ? 3 : 1;
  for (std::size_t k = 0; k < files.size(); k += step) {
    const fs::path& file = files[k];
    const std::string rel = fs::relative(file, scenarios).generic_string();
    INFO(rel);
    std::string stem = rel;
    std::replace(stem.begin(), stem.end(), '/', '-');
    const std::string args = file.string() + shrink(file) + perfect + " --quiet --threads 2";
    const fs::path actors = fresh_dir("driver-actors-" + stem);
    const fs::path loop = fresh_dir("driver-loop-" + stem);
    const auto a = run_fedsim("run " + args + " --driver actors --out " + actors.string());
    INFO(a.output);
    REQUIRE(a.exit_code == 0);
    const auto l = run_fedsim("run " + args + " --driver loop --out " + loop.string());
    INFO(l.output);
    REQUIRE(l.exit_code == 0);

    // Only `time` differs (the loop has no clock: 0), and rounds.csv's aggregate_norm (nan).
    CHECK(without_columns(actors / "observations.csv", {"time"}) ==
          without_columns(loop / "observations.csv", {"time"}));
    for (const char* f : {"rounds.csv", "phases.csv"}) {
      REQUIRE(fs::exists(actors / f) == fs::exists(loop / f));
      if (!fs::exists(actors / f)) continue;
      const std::vector<std::string> unknown =
          std::string(f) == "rounds.csv" ? std::vector<std::string>{"time", "aggregate_norm"}
                                         : std::vector<std::string>{"time"};
      // ts and fts: the engine loop has no server rounds (the actors' server relays messages).
      const std::string text = slurp(file);
      if (std::string(f) == "rounds.csv" && (text.find("name = \"fts\"") != std::string::npos ||
                                             text.find("name = \"ts\"") != std::string::npos)) {
        CHECK(read_rows(loop / f).size() == 1);
        CHECK(read_rows(loop / f)[0] == read_rows(actors / f)[0]);
        continue;
      }
      CHECK(without_columns(actors / f, unknown) == without_columns(loop / f, unknown));
    }
    CHECK(slurp(actors / "config.resolved.toml") == slurp(loop / "config.resolved.toml"));
    CHECK_FALSE(fs::exists(loop / "events.jsonl"));

    // One summary schema; the numbers agree but for the network's and the clock's, and Fed-PNE's
    // communication counts, which only the loop reports.
    auto sa = summary_of(actors), sl = summary_of(loop);
    CHECK(sa["driver"] == "actors");
    CHECK(sl["driver"] == "loop");
    CHECK_FALSE(sa.contains("communication"));
    CHECK(sl.contains("communication") == sl.contains("clients"));  // Fed-PNE, DP-Fed-PNE
    sl.erase("communication");
    for (const char* k : {"driver", "wall_time_s", "messages", "virtual_time",
                          "virtual_time_last_event"}) {
      REQUIRE(sa.contains(k));
      REQUIRE(sl.contains(k));
      sa.erase(k);
      sl.erase(k);
    }
    // Participation is never adaptive in the loop (every agent is in every release), where the
    // actors may find it so (a command objective): the basis may differ, nothing else.
    if (sa.contains("privacy_basis") && !sa["privacy_basis"].is_null() &&
        sa["privacy_basis"]["participation"] == "adaptive") {
      CHECK(sl["privacy_basis"]["participation"] == "not adaptive");
      sa.erase("privacy_basis");
      sl.erase("privacy_basis");
    }
    CHECK(sa == sl);
    CHECK(summary_of(loop)["messages"]["sent"] == 0);
    CHECK(summary_of(loop)["virtual_time"] == 0.0);
  }
}

TEST_CASE("the loop driver refuses a network or policy it cannot honour, naming the key",
          "[cli][driver]") {
  const std::string tiny = (scenarios / "tiny.toml").string();
  const fs::path out = fresh_dir("driver-refused");
  struct Case {
    std::string args, key;
  };
  for (const Case& c :
       {Case{tiny + " --set world.network.drop=0.1", "world.network.drop"},
        Case{tiny + " --set world.network.uplink=0.5", "world.network.uplink"},
        Case{tiny + " --set world.network.bandwidth=1e6", "world.network.bandwidth"},
        Case{tiny + " --set world.network.malformed.rate=0.2", "world.network.malformed.rate"},
        Case{tiny + " --set policy.kind=deadline", "policy.kind"},
        Case{tiny + " --set privacy.budget=3", "privacy.budget"},
        Case{tiny + " --set run.time=wall", "run.time"},  // the loop has no clock
        Case{(scenarios / "wall/deadline-chaos.toml").string(), "run.time"},
        Case{(scenarios / "stragglers/sync.toml").string(), "world.network.compute"},
        Case{(scenarios / "stragglers/sync.toml").string() +
                 " --set world.network.compute=0 --set world.network.uplink=0"
                 " --set world.network.downlink=0 --set world.network.bandwidth=inf",
             "world.network.groups"},
        Case{(scenarios / "xarmed/stragglers-garland.toml").string() +
                 " --set world.network.compute=0 --set world.network.uplink=0"
                 " --set world.network.downlink=0 --set world.network.groups=[]"
                 " --set world.network.bandwidth=inf --set policy.kind=sync",
             "world.network.crashes"}}) {
    INFO(c.args);
    const auto r = run_fedsim("run " + c.args + " --driver loop --quiet --out " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("key '" + c.key + "'") != std::string::npos);
    CHECK(r.output.find("--driver loop") != std::string::npos);
    // One error line, the last (warnings about keys without effect may come before it).
    CHECK(r.output.find("fedsim: error: ") == r.output.rfind("fedsim: error: "));
    CHECK(r.output.find('\n', r.output.find("fedsim: error: ")) == r.output.size() - 1);
    CHECK_FALSE(fs::exists(out / "summary.json"));
  }
  const auto bad = run_fedsim("run " + tiny + " --driver threads --quiet --out " + out.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--driver: unknown value 'threads' (allowed: actors, loop)") !=
        std::string::npos);
  const auto sweep = run_fedsim("sweep " + tiny + " --driver loop --set policy.kind=deadline --quiet"
                                " --out " + out.string());
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.output.find("key 'policy.kind'") != std::string::npos);
}

namespace {
/// An HCT scenario file in `dir`; `extra` lines go into [algorithm].
fs::path hct_scenario(const fs::path& dir, const std::string& extra = "") {
  fs::create_directories(dir);
  const fs::path file = dir / "hct.toml";
  std::ofstream(file) << "name = \"hct-test\"\nseed = 3\n[world]\nagents = 10\n"
                         "[world.objective]\nkind = \"garland\"\n"
                         "[algorithm]\nname = \"hct\"\nbudget = 500\n" << extra;
  return file;
}
}  // namespace

TEST_CASE("algorithm.name = hct runs on the loop driver: HCT's defaults and engine numbers",
          "[cli][driver][xarmed]") {
  const fs::path dir = fresh_dir("driver-hct");
  const fs::path file = hct_scenario(dir);
  const fs::path out = dir / "run";
  const auto r = run_fedsim("run " + file.string() + " --driver loop --quiet --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);

  // The keys left out take HCT's defaults (rho 0.75, delta 0.01), not Fed-PNE's.
  auto loaded = fedsim::scenario::load_scenario_file((out / "config.resolved.toml").string(), {});
  const auto h = fedsim::scenario::hct_config(loaded.config);
  CHECK(loaded.config.xarmed.hct);
  CHECK(h.params.rho == 0.75);
  CHECK(h.params.delta == 0.01);
  CHECK(h.params.nu1 == 1.0);
  CHECK(h.params.c == 0.1);
  CHECK(h.budget == 500);
  CHECK(h.problem.clients == 10);
  CHECK(h.problem.seed == 3);

  // The engine's HCT, run directly on the same configuration: the same cumulative regret.
  const auto engine = fedsim::xarmed::run_hct(h);
  const auto s = summary_of(out);
  CHECK(s["driver"] == "loop");
  CHECK(s["algorithm"] == "hct");
  CHECK(s["average_cumulative_regret_per_client"].get<double>() == engine.cumulative_regret);
  const auto rows = read_rows(out / "observations.csv");
  REQUIRE(rows.size() == 501);  // header + one row per evaluation
  CHECK(rows[0] == std::vector<std::string>{"client", "phase", "step", "time", "cumulative_regret"});
  CHECK(rows.back()[2] == "500");
  CHECK(std::stod(rows.back()[4]) == Approx(engine.cumulative_regret).epsilon(1e-9));
  CHECK(std::stod(rows[250][4]) == Approx(engine.regret_curve[249]).epsilon(1e-9));
}

TEST_CASE("hct under --driver actors, and HCT's key rules, are usage errors naming the key",
          "[cli][driver][xarmed]") {
  const fs::path dir = fresh_dir("driver-hct-errors");
  const fs::path out = dir / "run";
  const auto actors =
      run_fedsim("run " + hct_scenario(dir).string() + " --quiet --out " + out.string());
  CHECK(actors.exit_code == 2);
  CHECK(actors.output.find("key 'algorithm.name': \"hct\" runs with --driver loop only") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(out / "summary.json"));

  const auto zero_delta = run_fedsim("run " + hct_scenario(dir, "delta = 0.0\n").string() +
                                     " --driver loop --quiet --out " + out.string());
  CHECK(zero_delta.exit_code == 2);
  CHECK(zero_delta.output.find("algorithm.delta") != std::string::npos);
  CHECK(zero_delta.output.find("(0, 1) for hct") != std::string::npos);

  const auto c1 = run_fedsim("run " + hct_scenario(dir, "c1 = 2.0\n").string() +
                             " --driver loop --quiet --out " + out.string());
  CHECK(c1.exit_code == 0);
  CHECK(c1.output.find("key 'algorithm.c1' has no effect: used by the phased tree search (fed-pne, dp-fed-pne), not by hct") !=
        std::string::npos);

  const auto dp = run_fedsim("run " + hct_scenario(dir, "dp_epsilon = 1.0\n").string() +
                             " --driver loop --quiet --out " + out.string());
  CHECK(dp.exit_code == 2);
  CHECK(dp.output.find("algorithm.dp_epsilon") != std::string::npos);
}

TEST_CASE("fedsim xarmed is an alias of fedsim sweep --driver loop: it prints the command and "
          "gives its numbers", "[cli][driver][xarmed]") {
  for (const std::string algorithm :
       {"--algorithm hct --rho 0.6", "--algorithm fed-pne --k 3", "--algorithm dp-fed-pne --eps 2"}) {
    INFO(algorithm);
    const bool hct = algorithm.find("hct") != std::string::npos;
    const fs::path dir = fresh_dir("driver-xarmed");
    const auto x = run_fedsim("xarmed " + algorithm + " --objective garland --clients 5 "
                              "--budget 800 --seeds 2 --seed 4 --out " + dir.string());
    INFO(x.output);
    REQUIRE(x.exit_code == 0);
    const std::string scenario = (dir / "scenario.toml").string();
    const std::string printed = "fedsim xarmed is an alias of: fedsim sweep " + scenario +
                                " --driver loop --seed-list 4,5 --out " + dir.string();
    CHECK(x.output.find(printed + "\n") != std::string::npos);

    // The printed command, run into another folder, writes the same table.
    const fs::path again = fresh_dir("driver-xarmed-sweep");
    const auto s = run_fedsim("sweep " + scenario + " --driver loop --seed-list 4,5 --quiet --out " +
                              again.string());
    INFO(s.output);
    REQUIRE(s.exit_code == 0);
    CHECK(slurp(dir / "sweep.csv") == slurp(again / "sweep.csv"));
    CHECK_FALSE(fs::exists(dir / "regret.csv"));  // nothing of its own any more

    // Each seed is `fedsim run SCENARIO --driver loop --seed S`, with the engine's numbers.
    const auto runs = fedsim::test::read_table(dir / "sweep_runs.csv");
    REQUIRE(runs.size() == 2);
    std::vector<double> rounds, sent;
    for (const auto& row : runs) {
      const std::string seed = row.at("seed");
      const fs::path out = dir / ("run-" + seed);
      const auto r = run_fedsim("run " + scenario + " --driver loop --quiet --seed " + seed +
                                " --out " + out.string());
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      const auto summary = summary_of(out);
      CHECK(summary["average_cumulative_regret_per_client"].get<double>() ==
            std::stod(row.at("cumulative_regret")));
      auto in_sweep = summary_of(dir / row.at("folder"));
      in_sweep["wall_time_s"] = summary["wall_time_s"];
      CHECK(in_sweep == summary);
      if (hct) {
        CHECK_FALSE(summary.contains("communication"));  // one learner: nothing communicated
        continue;
      }
      const auto config =
          fedsim::scenario::load_scenario(scenario, {"seed=" + seed});
      const auto engine = fedsim::xarmed::run_fed_pne(fedsim::scenario::fed_pne_config(config));
      CHECK(summary["average_cumulative_regret_per_client"].get<double>() ==
            Approx(engine.average_regret).epsilon(1e-12));
      const auto& c = summary["communication"];
      CHECK(c["rounds"] == engine.rounds);
      CHECK(c["nodes_sent_per_client"] == engine.nodes_sent_per_client);
      CHECK(c["nodes_received_per_client"] == engine.nodes_received_per_client);
      CHECK(engine.rounds > 1);
      CHECK(engine.nodes_sent_per_client < engine.nodes_received_per_client);  // T cuts the last
      CHECK(row.at("communication_rounds") == std::to_string(engine.rounds) + ".0");
      rounds.push_back(static_cast<double>(engine.rounds));
      sent.push_back(static_cast<double>(engine.nodes_sent_per_client));
    }
    // sweep.csv: the means over the seeds (and empty cells for HCT, which does not communicate).
    const auto point = fedsim::test::read_table(dir / "sweep.csv").at(0);
    if (hct) {
      CHECK(point.at("communication_rounds_mean").empty());
      CHECK(point.at("nodes_sent_per_client_mean").empty());
    } else {
      CHECK(std::stod(point.at("communication_rounds_mean")) == (rounds[0] + rounds[1]) / 2);
      CHECK(std::stod(point.at("nodes_sent_per_client_mean")) == (sent[0] + sent[1]) / 2);
    }
  }
}

TEST_CASE("fedsim xarmed from seed 1 prints --seeds K, and refuses seeds past 2^63 - 1",
          "[cli][driver][xarmed]") {
  const fs::path dir = fresh_dir("driver-xarmed-seeds");
  const auto x = run_fedsim("xarmed --clients 2 --budget 300 --seeds 3 --out " + dir.string());
  INFO(x.output);
  REQUIRE(x.exit_code == 0);
  CHECK(x.output.find("--driver loop --seeds 3 --out " + dir.string()) != std::string::npos);
  CHECK(fedsim::test::read_table(dir / "sweep_runs.csv").size() == 3);
  const auto big = run_fedsim("xarmed --clients 2 --budget 300 --seeds 2 --seed 9223372036854775807"
                              " --out " + dir.string());
  CHECK(big.exit_code == 2);
  CHECK(big.output == "fedsim: error: --seed + --seeds - 1 must be at most 9223372036854775807\n");
}

TEST_CASE("fedsim sweep --driver loop runs every run on the loop, the other driver reruns them",
          "[cli][driver]") {
  const fs::path out = fresh_dir("driver-sweep");
  const std::string base = "sweep " + (scenarios / "tiny.toml").string() +
                           " --grid algorithm.q=0.25,0.5 --seeds 2 --quiet --out " + out.string();
  const auto loop = run_fedsim(base + " --driver loop");
  INFO(loop.output);
  REQUIRE(loop.exit_code == 0);
  int runs = 0;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.path().filename() == "summary.json") {
      CHECK(summary_of(e.path().parent_path())["driver"] == "loop");
      CHECK_FALSE(fs::exists(e.path().parent_path() / "events.jsonl"));
      ++runs;
    }
  CHECK(runs == 4);
  CHECK(loop.output.find("(4 run, 0 skipped)") != std::string::npos);
  // Complete loop runs are skipped by a loop sweep, and run again by an actor sweep.
  CHECK(run_fedsim(base + " --driver loop").output.find("(0 run, 4 skipped)") != std::string::npos);
  const auto actors = run_fedsim(base);
  INFO(actors.output);
  REQUIRE(actors.exit_code == 0);
  CHECK(actors.output.find("(4 run, 0 skipped)") != std::string::npos);
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.path().filename() == "summary.json")
      CHECK(summary_of(e.path().parent_path())["driver"] == "actors");
}
