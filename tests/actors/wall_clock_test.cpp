// Wall-clock time (run.time = "wall", docs/wall-clock.md): the network delivers each event when
// the real clock reaches its model time x time_scale and never waits for replies. These tests
// never assert on elapsed time: they check what must hold whatever the machine's speed (the
// same records as virtual time where timing cannot matter, injected failures that show, runs
// that end), at small time scales so that each takes at most a few seconds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using fedsim::test::fresh_dir;
using fedsim::test::read_rows;
using fedsim::test::slurp;
using fedsim::test::without_columns;

namespace {

const fs::path scenario_dir = FEDSIM_SCENARIO_DIR;
constexpr double inf = std::numeric_limits<double>::infinity();

using Kind = scenario::PolicyConfig::Kind;
using Time = scenario::RunClockConfig::Time;

scenario::ScenarioConfig in_wall_time(scenario::ScenarioConfig c, double scale) {
  c.run.time = Time::wall;
  c.run.time_scale = scale;
  scenario::validate(c);
  return c;
}

RunResult run(const scenario::ScenarioConfig& c, const fs::path& dir) {
  RunOptions opt;
  opt.out_dir = dir.string();
  opt.threads = 2;
  return run_federation(c, opt);
}

/// events.jsonl lines with this event and payload (and reason, if given).
int count_events(const fs::path& file, const std::string& event, const std::string& payload,
                 const std::string& reason = "") {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"event\":\"" + event + "\"") != std::string::npos &&
        (payload.empty() || line.find("\"payload\":\"" + payload + "\"") != std::string::npos) &&
        (reason.empty() || line.find("\"reason\":\"" + reason + "\"") != std::string::npos))
      ++n;
  return n;
}

/// The largest `time` of observations.csv.
double last_observation_time(const fs::path& file) {
  const auto rows = read_rows(file);
  const auto at = std::find(rows[0].begin(), rows[0].end(), "time") - rows[0].begin();
  double last = -1;
  for (std::size_t r = 1; r < rows.size(); ++r) last = std::max(last, std::stod(rows[r][at]));
  return last;
}

/// An 8-agent DP-FTS-DE run of a few iterations (as scenarios/tiny.toml) on a faulty network.
scenario::ScenarioConfig chaos(Kind policy) {
  scenario::ScenarioConfig c = scenario::load_scenario((scenario_dir / "tiny.toml").string());
  c.seed = 3;
  auto& net = c.world.network;
  net.link.uplink = {scenario::Distribution::Kind::uniform, 0, 0.05, 0.2, 0, 0, 0};
  net.link.downlink = {scenario::Distribution::Kind::uniform, 0, 0.05, 0.2, 0, 0, 0};
  net.link.drop = 0.15;
  net.link.duplicate = 0.1;
  scenario::CrashSchedule stop;  // crash-stop
  stop.agents = {1};
  stop.time = 0.5;
  scenario::CrashSchedule back;  // crash and recovery, state lost
  back.agents = {4};
  back.time = 0.3;
  back.recover = 3.0;
  back.keep_state = false;
  net.crashes = {stop, back};
  net.detection_delay = 0.5;
  c.policy.kind = policy;
  c.policy.deadline = 2.0;
  c.policy.quorum = 0.5;
  c.policy.async_every = 3;
  c.policy.dead_after_missed = 2;
  return in_wall_time(c, 0.01);
}

}  // namespace

TEST_CASE("a perfect network under sync gives the same records in wall-clock time as in "
          "virtual time", "[wall-clock]") {
  // Sync waits for every agent, so the algorithm's path cannot depend on timing: only the
  // time columns may differ. No round timeout (it would be wall-clock time too).
  const scenario::ScenarioConfig virtual_config = scenario::load_scenario(
      (scenario_dir / "tiny.toml").string(), {"policy.round_timeout=inf"});
  const fs::path vdir = fresh_dir("wall-equal-virtual"), wdir = fresh_dir("wall-equal-wall");
  const RunResult v = run(virtual_config, vdir);
  const RunResult w = run(in_wall_time(virtual_config, 0.005), wdir);
  CHECK(without_columns(wdir / "observations.csv", {"time"}) ==
        without_columns(vdir / "observations.csv", {"time"}));
  CHECK(without_columns(wdir / "rounds.csv", {"time"}) == without_columns(vdir / "rounds.csv", {"time"}));
  CHECK(read_rows(wdir / "observations.csv").size() == 8 * (3 + 5) + 1);
  CHECK(w.completed);
  CHECK(w.epsilon > 0);
  CHECK(w.epsilon == v.epsilon);
  CHECK(w.releases == v.releases);
  CHECK(w.mean_simple_regret == v.mean_simple_regret);
  CHECK(w.network.sent == v.network.sent);
  CHECK(w.network.delivered == v.network.delivered);
  // What the network adds: measured in wall-clock time only.
  CHECK(std::isnan(v.network.lateness_median));
  CHECK(std::isnan(v.network.lateness_p99));
  CHECK(std::isfinite(w.network.lateness_median));
  CHECK(std::isfinite(w.network.lateness_p99));
  CHECK(w.network.lateness_median >= 0);
  CHECK(w.network.lateness_p99 >= w.network.lateness_median);
}

TEST_CASE("Fed-PNE under sync on a perfect network is the same in wall-clock time",
          "[wall-clock]") {
  const scenario::ScenarioConfig virtual_config =
      scenario::load_scenario((scenario_dir / "xarmed/garland.toml").string(),
                              {"world.agents=4", "algorithm.budget=600", "policy.round_timeout=inf"});
  const fs::path vdir = fresh_dir("wall-pne-virtual"), wdir = fresh_dir("wall-pne-wall");
  const RunResult v = run(virtual_config, vdir);
  const RunResult w = run(in_wall_time(virtual_config, 0.005), wdir);
  CHECK(without_columns(wdir / "phases.csv", {"time"}) == without_columns(vdir / "phases.csv", {"time"}));
  CHECK(without_columns(wdir / "observations.csv", {"time"}) ==
        without_columns(vdir / "observations.csv", {"time"}));
  CHECK(w.client_regret == v.client_regret);
  CHECK(w.completed);
}

TEST_CASE("a wall-clock run with loss, duplicates, crashes and a deadline completes and logs "
          "its faults", "[wall-clock]") {
  const fs::path dir = fresh_dir("wall-chaos-deadline");
  const RunResult r = run(chaos(Kind::deadline), dir);
  CHECK(r.completed);
  const fs::path events = dir / "events.jsonl";
  CHECK(r.network.dropped > 0);
  CHECK(count_events(events, "drop", "", "lost") > 0);
  CHECK(r.network.duplicated > 0);
  CHECK(count_events(events, "duplicate", "") > 0);
  // Both crashes and the recovery reach their agent (system events, never lost), and the
  // server hears of them.
  CHECK(count_events(events, "deliver", "crash_notice") == 2);
  CHECK(count_events(events, "deliver", "recover_notice") == 1);
  CHECK(count_events(events, "deliver", "membership_notice") == 3);
  CHECK(read_rows(dir / "rounds.csv").size() > 2);
  CHECK(std::isfinite(r.network.lateness_median));
  CHECK(r.network.lateness_median >= 0);
  CHECK(r.network.lateness_p99 >= r.network.lateness_median);
}

TEST_CASE("wall-clock runs under quorum and async complete", "[wall-clock]") {
  for (Kind policy : {Kind::quorum, Kind::async}) {
    const std::string name = scenario::name_of(policy);
    INFO(name);
    const fs::path dir = fresh_dir("wall-chaos-" + name);
    const RunResult r = run(chaos(policy), dir);
    CHECK(r.completed);
    CHECK(count_events(dir / "events.jsonl", "deliver", "crash_notice") == 2);
    CHECK(read_rows(dir / "rounds.csv").size() > 2);
    CHECK(r.network.lateness_median >= 0);
  }
}

TEST_CASE("injected compute holds each agent's evaluations for their modelled time",
          "[wall-clock]") {
  // 125 model seconds per evaluation at 1 ms per model second: each agent's 3 initial and 5
  // further evaluations, one after the other, take at least 8 x 125 = 1000 model seconds (1 s
  // of real time) with the injection; without it, the model time is the real time the
  // evaluations took (tens of milliseconds here, so tens of model seconds).
  scenario::ScenarioConfig c = scenario::load_scenario(
      (scenario_dir / "tiny.toml").string(),
      {"policy.round_timeout=inf", "world.network.compute=125"});
  c = in_wall_time(c, 0.001);
  const fs::path plain_dir = fresh_dir("wall-compute-real");
  const RunResult plain = run(c, plain_dir);
  c.run.injected_compute = true;
  const fs::path injected_dir = fresh_dir("wall-compute-injected");
  const RunResult injected = run(c, injected_dir);
  CHECK(injected.last_query_time >= 8 * 125.0);
  CHECK(last_observation_time(injected_dir / "observations.csv") >= 8 * 125.0);
  CHECK(injected.last_query_time > plain.last_query_time);
  // The same queries either way (sync on a perfect network): only when they were made moves.
  CHECK(without_columns(injected_dir / "observations.csv", {"time"}) ==
        without_columns(plain_dir / "observations.csv", {"time"}));
  for (const RunResult* r : {&plain, &injected}) {
    CHECK(std::isfinite(r->network.lateness_median));
    CHECK(std::isfinite(r->network.lateness_p99));
    CHECK(r->network.lateness_median >= 0);
    CHECK(r->network.lateness_p99 >= r->network.lateness_median);
  }
}

TEST_CASE("wall-clock time refuses checkpoints", "[wall-clock]") {
  const scenario::ScenarioConfig c =
      in_wall_time(scenario::load_scenario((scenario_dir / "tiny.toml").string()), 0.01);
  RunOptions opt;
  opt.out_dir = fresh_dir("wall-checkpoint").string();
  opt.checkpoint_dir = (fs::path(opt.out_dir) / "checkpoint").string();
  opt.checkpoint_every = 1;
  CHECK_THROWS_WITH(run_federation(c, opt), Catch::Contains("key 'run.time'") &&
                                                Catch::Contains("checkpoint"));
  CHECK_FALSE(fs::exists(fs::path(opt.out_dir) / "observations.csv"));
}

TEST_CASE("the run keys are validated, naming the key", "[wall-clock][scenario]") {
  const std::string tiny = (scenario_dir / "tiny.toml").string();
  for (const char* bad : {"0", "-1", "inf", "-inf", "nan", "0.0"}) {
    INFO(bad);
    CHECK_THROWS_WITH(
        scenario::load_scenario(tiny, {"run.time=\"wall\"", std::string("run.time_scale=") + bad}),
        Catch::Contains("key 'run.time_scale'") && Catch::Contains("finite number in [1e-06, 1000]"));
  }
  CHECK_THROWS_WITH(scenario::load_scenario(tiny, {"run.time=\"simulated\""}),
                    Catch::Contains("key 'run.time'") && Catch::Contains("allowed: virtual, wall"));
  CHECK_THROWS_WITH(scenario::load_scenario(tiny, {"run.injected_compute=1"}),
                    Catch::Contains("run.injected_compute"));
  CHECK_THROWS_WITH(scenario::load_scenario_text("[run]\nclock = \"wall\"\n", "x.toml"),
                    Catch::Contains("unknown key 'run.clock'"));
  // In code, too.
  scenario::ScenarioConfig c;
  c.run.time = Time::wall;
  c.run.time_scale = std::nan("");
  CHECK_THROWS_WITH(scenario::validate(c), Catch::Contains("key 'run.time_scale'"));
  // Inert in virtual time: warned about, by name.
  const auto loaded = scenario::load_scenario_file(tiny, {"run.time_scale=0.5",
                                                          "run.injected_compute=true"});
  REQUIRE(loaded.warnings.size() == 2);
  CHECK(loaded.warnings[0] ==
        "key 'run.time_scale' has no effect: used by run.time = wall, not virtual");
  CHECK(loaded.warnings[1].find("key 'run.injected_compute' has no effect") == 0);
  CHECK(scenario::load_scenario_file(tiny, {"run.time=\"wall\"", "run.time_scale=0.5",
                                            "run.injected_compute=true"})
            .warnings.empty());
}

TEST_CASE("[run] is written to the resolved config only when it is not the default",
          "[wall-clock][scenario]") {
  const std::string tiny = (scenario_dir / "tiny.toml").string();
  const std::string plain = scenario::to_toml(scenario::load_scenario(tiny));
  CHECK(plain.find("[run]") == std::string::npos);  // virtual-time files read as before
  const scenario::ScenarioConfig wall = scenario::load_scenario(
      tiny, {"run.time=\"wall\"", "run.time_scale=0.25", "run.injected_compute=true"});
  const std::string text = scenario::to_toml(wall);
  CHECK(text.find("\n[run]\ntime = \"wall\"\ntime_scale = 0.25\ninjected_compute = true\n") !=
        std::string::npos);
  scenario::ScenarioConfig back = scenario::load_scenario_text(text, "resolved.toml").config;
  CHECK(back.run.wall());
  CHECK(back.run.time_scale == 0.25);
  CHECK(back.run.injected_compute);
  back.source_file = wall.source_file;  // the "# Loaded from" line
  CHECK(scenario::to_toml(back) == text);
}

TEST_CASE("every shipped wall-clock scenario runs, shrunk", "[wall-clock]") {
  // Found by their run.time (tools/golden and the CLI's shipped-scenario tests skip them: what
  // arrives by a deadline depends on the machine).
  int count = 0;
  for (const auto& e : fs::recursive_directory_iterator(scenario_dir)) {
    if (e.path().extension() != ".toml") continue;
    if (!scenario::load_scenario(e.path().string()).run.wall()) continue;
    INFO(e.path());
    ++count;
    const scenario::ScenarioConfig c = scenario::load_scenario(
        e.path().string(), {"world.agents=8", "algorithm.iterations=4"});
    const fs::path dir = fresh_dir("wall-shipped-" + e.path().stem().string());
    const RunResult r = run(c, dir);
    CHECK(r.completed);
    CHECK(r.network.sent > 0);
    CHECK(std::isfinite(r.network.lateness_median));
    CHECK(fs::exists(dir / "observations.csv"));
  }
  CHECK(count >= 1);
}
