#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "actors/federation.hpp"
#include "actors/world_objective.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;
using Kind = scenario::Distribution::Kind;

namespace {

scenario::ScenarioConfig fed_pne(int clients, std::int64_t budget, xarmed::ObjectiveKind kind) {
  scenario::ScenarioConfig c;
  c.name = "fed-pne-test";
  c.seed = 3;
  c.world.agents = clients;
  c.xarmed.enabled = true;
  c.xarmed.fed_pne.problem.objective = kind;
  c.xarmed.fed_pne.budget = budget;
  return c;
}

RunResult run(const scenario::ScenarioConfig& c, const std::string& name, int threads = 2) {
  RunOptions opt;
  opt.out_dir = fresh_dir(name).string();
  opt.threads = threads;
  return run_federation(c, opt);
}

/// Cuts client 0 off for 2 ms around the last phase broadcast of `run` (the time its last
/// closed phase closed, in phases.csv), so that it loses that broadcast; returns that time.
double lose_last_phase(scenario::ScenarioConfig& c, const fs::path& run, std::size_t min_phases) {
  const auto phases = fedsim::test::read_table(run / "phases.csv");
  REQUIRE(phases.size() >= min_phases);
  const double last_broadcast = std::stod(phases.back().at("time"));
  scenario::NetworkPartition cut;
  cut.agents = {0};
  cut.start = last_broadcast - 1e-3;
  cut.end = last_broadcast + 1e-3;
  c.world.network.partitions.push_back(cut);
  return last_broadcast;
}

/// Client 0's last row of a run's observations.csv: its step and time.
std::pair<std::int64_t, double> last_pull_of_client0(const fs::path& run) {
  std::pair<std::int64_t, double> last{0, 0.0};
  for (const auto& row : fedsim::test::read_table(run / "observations.csv"))
    if (row.at("client") == "0") last = {std::stoll(row.at("step")), std::stod(row.at("time"))};
  return last;
}

}  // namespace

TEST_CASE("Fed-PNE actors on a perfect network reproduce the engine's loop", "[actors][xarmed]") {
  for (auto kind : {xarmed::ObjectiveKind::garland, xarmed::ObjectiveKind::double_sine}) {
    const auto c = fed_pne(6, 3000, kind);
    RunOptions opt;
    opt.out_dir = fresh_dir("fedpne-perfect").string();
    opt.threads = 2;
    const RunResult actors = run_federation(c, opt);
    const xarmed::FedPneResult loop = xarmed::run_fed_pne(scenario::fed_pne_config(c));
    REQUIRE(actors.client_regret.size() == loop.client_regret.size());
    for (size_t m = 0; m < loop.client_regret.size(); ++m)
      CHECK(actors.client_regret[m] == Approx(loop.client_regret[m]).epsilon(1e-12));
    CHECK(actors.average_cumulative_regret == Approx(loop.average_regret).epsilon(1e-12));
    const std::string phases = slurp(fs::path(opt.out_dir) / "phases.csv");
    const auto lines = std::count(phases.begin(), phases.end(), '\n') - 1;
    CHECK(lines == loop.completed_phases);
  }
}

TEST_CASE("DP-Fed-PNE actors report the engine's privacy guarantee", "[actors][xarmed]") {
  auto c = fed_pne(5, 2000, xarmed::ObjectiveKind::garland);
  c.xarmed.fed_pne.dp_epsilon = 1.0;
  const RunResult r = run(c, "fedpne-dp");
  const auto g = xarmed::dp_fed_pne_guarantee(1.0, 0.0, 5);
  CHECK(r.epsilon == g.epsilon);
  CHECK(r.delta == g.delta);
  const xarmed::FedPneResult loop = xarmed::run_fed_pne(scenario::fed_pne_config(c));
  CHECK(r.average_cumulative_regret == Approx(loop.average_regret).epsilon(1e-12));
}

TEST_CASE("Fed-PNE under a deadline excludes stragglers and still finishes", "[actors][xarmed]") {
  auto c = fed_pne(10, 4000, xarmed::ObjectiveKind::garland);
  c.world.network.link.compute = {Kind::constant, 0.01, 0, 0, 0, 0, 0};
  c.world.network.link.uplink = {Kind::constant, 0.05, 0, 0, 0, 0, 0};
  scenario::AgentGroup slow;
  slow.agents = {1, 4, 7};
  slow.link = c.world.network.link;
  slow.link.speed_factor = 4.0;
  c.world.network.groups.push_back(slow);
  scenario::CrashSchedule crash;
  crash.agents = {9};
  crash.time = 5.0;
  c.world.network.crashes.push_back(crash);
  c.policy.kind = scenario::PolicyConfig::Kind::deadline;
  c.policy.deadline = 0.02;  // per pull: fast clients (0.01 s/pull) make it, slow ones do not
  const fs::path dir = fresh_dir("fedpne-deadline");
  RunOptions opt;
  opt.out_dir = dir.string();
  opt.threads = 2;
  const RunResult r = run_federation(c, opt);
  CHECK(r.average_cumulative_regret > 0);
  // Every phase's global mean used the fast clients only: 7 of them before client 9 crashes at
  // t = 5, then 6.
  std::ifstream in(dir / "phases.csv");
  std::string line;
  std::getline(in, line);
  int phases = 0;
  while (std::getline(in, line)) {
    ++phases;
    std::stringstream ss(line);
    std::vector<std::string> f;
    for (std::string v; std::getline(ss, v, ',');) f.push_back(v);
    CHECK(std::stoi(f[5]) == (std::stod(f[1]) < crash.time ? 7 : 6));  // reporters
    CHECK(std::stoi(f[5]) + std::stoi(f[6]) == std::stoi(f[9]));  // reporters + excluded = alive
  }
  CHECK(phases >= 3);
  // And the files are the same on one thread.
  RunOptions one = opt;
  one.out_dir = fresh_dir("fedpne-deadline-1").string();
  one.threads = 1;
  run_federation(c, one);
  for (const char* f : {"observations.csv", "phases.csv", "events.jsonl"})
    CHECK(slurp(dir / f) == slurp(fs::path(one.out_dir) / f));
}

TEST_CASE("Fed-PNE: a client that loses the last phase's broadcast still spends its budget",
          "[actors][xarmed]") {
  // The last phase is cut by the budget and never reported, so no later broadcast follows it:
  // the server's phase timer sends it again to the clients it still expects.
  auto c = fed_pne(4, 2000, xarmed::ObjectiveKind::garland);
  c.world.network.link.compute = {Kind::constant, 0.01, 0, 0, 0, 0, 0};
  scenario::AgentGroup fast;  // client 0 reports each phase before the others
  fast.agents = {0};
  fast.link = c.world.network.link;
  fast.link.speed_factor = 0.5;
  c.world.network.groups.push_back(fast);
  const fs::path plain = fresh_dir("fedpne-lost-last-plain");
  RunOptions opt;
  opt.out_dir = plain.string();
  opt.threads = 2;
  const RunResult base = run_federation(c, opt);
  // The last closed phase closes when the slower clients report; the last phase goes out then.
  const double last_broadcast = lose_last_phase(c, plain, 2);
  const fs::path lost = fresh_dir("fedpne-lost-last");
  opt.out_dir = lost.string();
  const RunResult r = run_federation(c, opt);
  REQUIRE(slurp(lost / "events.jsonl").find("\"reason\":\"partition\"") != std::string::npos);
  // Client 0 makes the same pulls as without the cut (they are keyed by client and phase),
  // later: every client ends with its whole budget and the same regret.
  REQUIRE(r.client_regret.size() == base.client_regret.size());
  for (size_t m = 0; m < base.client_regret.size(); ++m)
    CHECK(r.client_regret[m] == Approx(base.client_regret[m]).epsilon(1e-12));
  const auto [last_step, last_pull] = last_pull_of_client0(lost);
  CHECK(last_step == 2000);
  CHECK(last_pull > last_broadcast + 1.0);  // after the timer (round_timeout x phase length)
}

TEST_CASE("Fed-PNE: a straggler presumed dead that reports late is sent the last phase again",
          "[actors][xarmed]") {
  // Under a deadline the slow client 0 misses phase after phase and is presumed dead; when its
  // late report arrives it is alive again, and the server's timer must resend it the last phase
  // (whose broadcast it lost) instead of presuming it dead again at once.
  auto c = fed_pne(4, 3000, xarmed::ObjectiveKind::garland);
  c.world.network.link.compute = {Kind::constant, 0.01, 0, 0, 0, 0, 0};
  scenario::AgentGroup slow;
  slow.agents = {0};
  slow.link = c.world.network.link;
  slow.link.speed_factor = 4.0;
  c.world.network.groups.push_back(slow);
  c.policy.kind = scenario::PolicyConfig::Kind::deadline;
  c.policy.deadline = 0.02;  // per pull: the others (0.01 s a pull) make it, client 0 does not
  c.policy.dead_after_missed = 1;  // presumed dead at its first miss: the hardest case
  const fs::path plain = fresh_dir("fedpne-revived-plain");
  RunOptions opt;
  opt.out_dir = plain.string();
  run_federation(c, opt);
  lose_last_phase(c, plain, 3);
  const fs::path lost = fresh_dir("fedpne-revived");
  opt.out_dir = lost.string();
  run_federation(c, opt);
  const std::string events = slurp(lost / "events.jsonl");
  REQUIRE(events.find("\"reason\":\"partition\"") != std::string::npos);
  CHECK(last_pull_of_client0(lost).first == 3000);
}

TEST_CASE("Fed-PNE actors on the tuning problem reproduce the engine's loop, the scenario's "
          "data set is loaded",
          "[actors][xarmed][tuning][sanitizer-heavy]") {
  const auto c = scenario::load_scenario_text(
                     "name = \"t\"\nseed = 4\n[world]\nagents = 5\n[world.objective]\n"
                     "kind = \"tuning\"\ntask = \"svm\"\ndataset = \"digits\"\n"
                     "positive_class = 8\nlabel_skew = 5.0\n[algorithm]\nname = \"fed-pne\"\n"
                     "budget = 400\n",
                     "t.toml")
                     .config;
  const RunResult actors = run(c, "fedpne-tuning");
  const xarmed::FedPneConfig fp = scenario::fed_pne_config(c);
  const xarmed::FedPneResult loop = xarmed::run_fed_pne(fp, *make_xarmed_problem(fp.problem));
  REQUIRE(actors.client_regret.size() == 5);
  for (size_t m = 0; m < 5; ++m) CHECK(actors.client_regret[m] == loop.client_regret[m]);
  CHECK(actors.average_cumulative_regret > 0.0);
  CHECK(actors.average_cumulative_regret < 400.0);
}
