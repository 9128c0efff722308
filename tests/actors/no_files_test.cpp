// A run without files (RunOptions::write_files false): it touches nothing in out_dir, its
// observer sees every record a run with files sees, and its RunResult is the same bit for bit,
// through crashes, corruption, private accounting, Fed-PNE and checkpoints. The recorder's
// RegretTable, which stands in for the observation rows, is checked against the sorted rows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "actors/checkpoint/checkpoint.hpp"
#include "actors/federation.hpp"
#include "actors/recorder.hpp"
#include "engine/rng.hpp"
#include "scenarios/loader.hpp"
#include "tests/actors/faulty_scenarios.hpp"
#include "tests/actors/result_line.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using namespace fedsim::test::faulty;

namespace {

/// Agents 0 and 3 crash at t = 0 for good: two learners without a single observation.
const char* silent_agents = R"(
name = "silent-agents"
seed = 4
[world]
agents = 6
[world.objective]
grid_size = 100
[world.network]
compute = { kind = "lognormal", mu = 0.0, sigma = 0.4 }
uplink = 0.05
downlink = 0.05
[[world.network.crashes]]
agents = [0, 3]
time = 0.0
[algorithm]
name = "fts-de"
iterations = 9
n_init = 2
features = 6
subregions = 2
[policy]
kind = "deadline"
deadline = 3.0
)";

scenario::ScenarioConfig config_of(const char* text) {
  return scenario::load_scenario_text(text, "no_files_test.toml").config;
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/// Everything a RunResult holds but its wall time, every double bit for bit.
std::string exact(const RunResult& r) {
  std::string s = fedsim::test::result_line(r);
  for (const auto* list : {&r.mean_simple_regret, &r.client_regret, &r.agent_epsilon}) {
    s += " |";
    for (double v : *list) s += " " + hex(v);
  }
  s += " | " + hex(r.epsilon_rdp) + " " + hex(r.epsilon_pld) + " " + hex(r.mean_best_observed) +
       " " + std::to_string(r.failed_evaluations) + " " + hex(r.network.lateness_median) + " " +
       hex(r.network.lateness_p99) + " " + std::to_string(r.network.settled) + " " + r.reason;
  for (auto n : r.agent_releases) s += " " + std::to_string(n);
  for (auto n : r.agent_filtered) s += " " + std::to_string(n);
  return s;
}

/// How many records of each kind an observer saw, and the regrets they carried.
struct Seen {
  long rounds = 0, observations = 0, events = 0, phases = 0, pulls = 0;
  /// The observations' simple regrets and the pulls' regrets, compared sorted: records of one
  /// virtual time arrive in any order on more than one thread.
  std::vector<double> regrets;
  bool operator==(const Seen& o) const {
    auto sorted = [](std::vector<double> v) {
      std::sort(v.begin(), v.end(), [](double a, double b) {
        return std::isnan(b) ? !std::isnan(a) : a < b;  // NaNs last
      });
      std::vector<std::string> out;
      for (double x : v) out.push_back(hex(x));
      return out;
    };
    return rounds == o.rounds && observations == o.observations && events == o.events &&
           phases == o.phases && pulls == o.pulls && sorted(regrets) == sorted(o.regrets);
  }
};

/// The observer's calls come on the recorder's thread, one at a time.
RunObserver counting(Seen& seen) {
  RunObserver o;
  o.round = [&seen](const round_event&) { ++seen.rounds; };
  o.observation = [&seen](const observation_event& e) {
    ++seen.observations;
    seen.regrets.push_back(e.simple_regret);
  };
  o.event = [&seen](const network_event&) { ++seen.events; };
  o.phase = [&seen](const phase_event&) { ++seen.phases; };
  o.pull = [&seen](const pull_event& e) {
    ++seen.pulls;
    seen.regrets.push_back(e.cumulative_regret);
  };
  return o;
}

struct Outcome {
  std::string result;
  Seen seen;
  std::int32_t silent = 0;  ///< RunResult::agents_without_observations
};

Outcome run(const scenario::ScenarioConfig& c, const fs::path& out, bool files, int threads) {
  Seen seen;
  RunOptions o;
  o.out_dir = out.string();
  o.write_files = files;
  o.threads = threads;
  o.observer = counting(seen);
  const RunResult r = run_federation(c, o);
  return {exact(r), seen, r.agents_without_observations};
}

}  // namespace

TEST_CASE("a run without files leaves out_dir alone and gives the same results, bit for bit, as one with files",
          "[no-files]") {
  for (const char* text : {faulty_fbo, fts_async, faulty_fed_pne, zero_time, silent_agents}) {
    const scenario::ScenarioConfig c = config_of(text);
    INFO(c.name);
    const fs::path dir = fedsim::test::fresh_dir("no-files-" + c.name);
    const Outcome with = run(c, dir / "files", true, 1);
    REQUIRE(fs::exists(dir / "files" / "observations.csv"));
    for (int threads : {1, 2}) {
      INFO("threads " << threads);
      const fs::path out = dir / ("none-" + std::to_string(threads));
      const Outcome without = run(c, out, false, threads);
      CHECK_FALSE(fs::exists(out));
      CHECK(without.result == with.result);
      CHECK(without.seen == with.seen);
    }
    CHECK(with.seen.observations + with.seen.pulls > 0);
    if (c.name == "silent-agents") CHECK(with.silent == 2);
  }
}

TEST_CASE("a run without files does not need a folder it could write to", "[no-files]") {
  // out_dir lies inside a regular file: a run with files fails at its end naming the recorder
  // (failure_test.cpp); one without files never touches it.
  const fs::path dir = fedsim::test::fresh_dir("no-files-unwritable");
  fs::create_directories(dir);
  { std::ofstream(dir / "a-file") << "x"; }
  REQUIRE(fedsim::test::slurp(dir / "a-file") == "x");
  const scenario::ScenarioConfig c = config_of(faulty_fed_pne);
  const Outcome without = run(c, dir / "a-file" / "run", false, 1);
  const Outcome with = run(c, dir / "files", true, 1);
  CHECK(without.result == with.result);
  CHECK(fedsim::test::slurp(dir / "a-file") == "x");
}

TEST_CASE("a run without files that stops at a checkpoint and resumes ends as if never stopped",
          "[no-files][checkpoint]") {
  for (const char* text : {faulty_fbo, faulty_fed_pne}) {
    const scenario::ScenarioConfig c = config_of(text);
    INFO(c.name);
    const fs::path dir = fedsim::test::fresh_dir("no-files-resume-" + c.name);
    const std::string whole = run(c, dir / "whole", false, 1).result;
    RunOptions o;
    o.out_dir = (dir / "out").string();
    o.write_files = false;
    o.threads = 1;
    o.checkpoint_dir = (dir / "checkpoint").string();
    o.checkpoint_every = 2;
    o.stop_after_checkpoints = 1;
    CHECK_THROWS_AS(run_federation(c, o), RunInterrupted);
    const Checkpoint from = read_checkpoint(o.checkpoint_dir);
    o.stop_after_checkpoints = 0;
    o.resume = &from;
    CHECK(exact(run_federation(c, o)) == whole);
    CHECK_FALSE(fs::exists(o.out_dir));
  }
}

TEST_CASE("the regret table gives the mean regret curve of the sorted rows, bit for bit",
          "[no-files][recorder]") {
  // Rows in a shuffled order, agents and iterations each at most once per (agent, iteration),
  // negative agents, negative iterations and iterations past T included, NaN regrets too.
  const int agents = 7, iterations = 10;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    RandomStream rng(seed, "no_files_test");
    std::vector<observation_event> rows;
    for (int a = -1; a < agents + 1; ++a)
      for (int t = -2; t <= iterations + 2; ++t) {
        if (rng.uniform() < 0.55) continue;
        observation_event o;
        o.agent = a;
        o.iteration = t;
        o.simple_regret = rng.uniform() < 0.05 ? std::numeric_limits<double>::quiet_NaN()
                                               : rng.uniform() * 3.0 - 1.0;
        o.best_y = rng.uniform() * 10.0;
        rows.push_back(o);
      }
    for (std::size_t i = rows.size(); i > 1; --i)
      std::swap(rows[i - 1], rows[static_cast<std::size_t>(rng.uniform() * i) % i]);
    RegretTable table;
    for (const auto& o : rows) table.add(o);
    std::vector<observation_event> replayed;
    table.replay([&](const observation_event& o) { replayed.push_back(o); });
    const RegretCurve want = mean_regret_curve(rows, agents, iterations);
    const RegretCurve got = mean_regret_curve(replayed, agents, iterations);
    INFO("seed " << seed);
    REQUIRE(got.mean.size() == want.mean.size());
    for (std::size_t t = 0; t < want.mean.size(); ++t)
      CHECK(hex(got.mean[t]) == hex(want.mean[t]));
    CHECK(got.without_observations == want.without_observations);
    CHECK(hex(got.mean_best_observed) == hex(want.mean_best_observed));
  }
}
