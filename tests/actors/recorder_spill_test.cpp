// The recorder's memory is bounded (issue 10, bug 5): past rows_in_memory rows per file it
// spills sorted chunks to disk and merges them at the end, into the same files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "actors/federation.hpp"
#include "actors/spill_sorter.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;

namespace {
const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// Runs a scenario with the recorder holding at most `rows` rows per file in memory.
fs::path run_with(const std::string& file, const std::vector<std::string>& overrides,
                  std::size_t rows, const std::string& name) {
  const auto config = fedsim::scenario::load_scenario((scenarios / file).string(), overrides);
  fedsim::actors::RunOptions options;
  options.out_dir = fresh_dir(name).string();
  options.threads = 2;
  options.recorder_rows = rows;
  fedsim::actors::run_federation(config, options);
  return options.out_dir;
}

int hidden_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string()[0] == '.';
  return n;
}
}  // namespace

TEST_CASE("a recorder that spills to disk writes the same files as one that does not",
          "[actors][recorder][sanitizer-heavy]") {
  SECTION("FBO, lossy deadline network with events") {
    const std::vector<std::string> o = {"world.agents=16", "algorithm.iterations=8"};
    const fs::path memory = run_with("stragglers/deadline.toml", o, std::size_t{1} << 20, "spill-none");
    const fs::path spilled = run_with("stragglers/deadline.toml", o, 7, "spill-7");
    for (const char* f : {"observations.csv", "rounds.csv", "events.jsonl"}) {
      INFO(f);
      CHECK(slurp(memory / f).size() > 100);
      CHECK(slurp(memory / f) == slurp(spilled / f));
    }
    CHECK(hidden_files(spilled) == 0);  // the spill files are gone
  }
  SECTION("Fed-PNE") {
    const std::vector<std::string> o = {"world.agents=4", "algorithm.budget=800"};
    const fs::path memory = run_with("xarmed/stragglers-garland.toml", o, std::size_t{1} << 20, "spill-pne-none");
    const fs::path spilled = run_with("xarmed/stragglers-garland.toml", o, 3, "spill-pne-3");
    for (const char* f : {"observations.csv", "phases.csv", "events.jsonl"}) {
      INFO(f);
      CHECK(slurp(memory / f) == slurp(spilled / f));
    }
    CHECK(hidden_files(spilled) == 0);
  }
}

TEST_CASE("spill sorter: bounded memory, every row back in order", "[actors][recorder]") {
  struct Less {
    bool operator()(const fedsim::actors::pull_event& a, const fedsim::actors::pull_event& b) const {
      return std::tie(a.client, a.steps) < std::tie(b.client, b.steps);
    }
  };
  fedsim::actors::SpillSorter<fedsim::actors::pull_event, Less> sorter(10, Less{});
  const fs::path dir = fresh_dir("spill-sorter");
  sorter.spill_to(dir, "pulls");
  // 1000 rows in a scrambled order (a permutation of 0..999 by a multiplier coprime to 1000).
  for (int k = 0; k < 1000; ++k) {
    fedsim::actors::pull_event e;
    e.client = (k * 37) % 1000 / 100;
    e.steps = (k * 37) % 1000;
    sorter.push(e);
    CHECK(sorter.in_memory() < 10);
  }
  CHECK(sorter.spilled_chunks() == 100);
  int expected = 0;
  sorter.drain([&](const fedsim::actors::pull_event& e) {
    CHECK(e.steps == expected);
    CHECK(e.client == expected / 100);
    ++expected;
  });
  CHECK(expected == 1000);
  CHECK(fs::is_empty(dir));
}
