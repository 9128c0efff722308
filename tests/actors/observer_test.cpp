// RunOptions::observer: an embedding program sees every record while the run goes, before
// the files are written, and exactly the records the files hold.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

/// Data rows of a CSV file (its lines but the header); lines of events.jsonl.
int data_lines(const fs::path& file) {
  return static_cast<int>(fedsim::test::read_rows(file).size()) - 1;
}
int lines(const fs::path& file) { return static_cast<int>(fedsim::test::read_rows(file).size()); }

}  // namespace

TEST_CASE("observer: every FBO record arrives live, before the files, as many as they hold",
          "[actors][observer]") {
  const fs::path dir = fedsim::test::fresh_dir("observer-fbo");
  const scenario::ScenarioConfig c = scenario::load_scenario_text(R"(
name = "observed"
seed = 3
[world]
agents = 6
[world.objective]
grid_size = 100
[world.network]
compute = { kind = "lognormal", mu = 0.0, sigma = 0.5 }
uplink = 0.1
downlink = 0.1
drop = 0.1
[algorithm]
name = "dp-fts-de"
iterations = 8
n_init = 2
features = 6
subregions = 2
[policy]
kind = "deadline"
deadline = 2.0
)", "observer.toml").config;
  RunOptions o;
  o.out_dir = (dir / "out").string();
  o.threads = 3;
  int rounds = 0, observations = 0, events = 0, phases = 0, pulls = 0;
  bool before_files = true;
  std::set<std::tuple<int, int>> seen;
  o.observer.round = [&](const round_event&) {
    ++rounds;
    before_files = before_files && !fs::exists(dir / "out" / "rounds.csv");
  };
  o.observer.observation = [&](const observation_event& e) {
    ++observations;
    seen.insert({e.agent, e.iteration});
    before_files = before_files && !fs::exists(dir / "out" / "observations.csv");
  };
  o.observer.event = [&](const network_event&) { ++events; };
  o.observer.phase = [&](const phase_event&) { ++phases; };
  o.observer.pull = [&](const pull_event&) { ++pulls; };
  const RunResult r = run_federation(c, o);
  CHECK(before_files);
  CHECK(rounds == data_lines(dir / "out" / "rounds.csv"));
  CHECK(observations == data_lines(dir / "out" / "observations.csv"));
  CHECK(static_cast<int>(seen.size()) == observations);  // each query once
  CHECK(events == lines(dir / "out" / "events.jsonl"));
  CHECK(r.network.dropped > 0);
  CHECK(rounds > 5);
  CHECK(phases == 0);
  CHECK(pulls == 0);
}

TEST_CASE("observer: Fed-PNE phases and pulls arrive live", "[actors][observer]") {
  const fs::path dir = fedsim::test::fresh_dir("observer-fed-pne");
  const scenario::ScenarioConfig c = scenario::load_scenario_text(R"(
name = "observed-fed-pne"
seed = 2
[world]
agents = 4
[world.objective]
kind = "garland"
[algorithm]
name = "fed-pne"
budget = 2000
)", "observer.toml").config;
  RunOptions o;
  o.out_dir = (dir / "out").string();
  int phases = 0, pulls = 0, observations = 0;
  o.observer.phase = [&](const phase_event&) { ++phases; };
  o.observer.pull = [&](const pull_event&) { ++pulls; };
  o.observer.observation = [&](const observation_event&) { ++observations; };
  run_federation(c, o);
  CHECK(phases == data_lines(dir / "out" / "phases.csv"));
  CHECK(pulls == data_lines(dir / "out" / "observations.csv"));
  CHECK(phases > 2);
  CHECK(observations == 0);
}
