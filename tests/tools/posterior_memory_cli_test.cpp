// algorithm.posterior_memory = "history" (engine/fbo/agent.hpp) changes what an agent keeps,
// not what it draws: every output of a run is the same, byte for byte, as with "factor", on
// the actors with one and two threads, through crashes that lose an agent's state, and on the
// loop driver.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// Runs `args` with each posterior_memory into folders under `dir`; checks the two runs'
/// files are identical.
void same_outputs(const fs::path& dir, const std::string& args) {
  for (const char* memory : {"factor", "history"}) {
    const auto r = run_fedsim(args + " --set algorithm.posterior_memory=" + memory +
                              " --quiet --out " + (dir / memory).string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  int compared = 0;
  for (const char* f : {"observations.csv", "rounds.csv", "events.jsonl"}) {
    if (!fs::exists(dir / "factor" / f)) continue;
    INFO(args << ": " << f);
    CHECK(slurp(dir / "factor" / f) == slurp(dir / "history" / f));
    ++compared;
  }
  CHECK(compared >= 2);
}

}  // namespace

TEST_CASE("posterior_memory history: the same outputs as factor, actors and loop",
          "[cli][posterior]") {
  const std::string tiny = (scenarios / "tiny.toml").string();
  same_outputs(fresh_dir("pm-actors-1"), "run " + tiny + " --threads 1");
  same_outputs(fresh_dir("pm-actors-2"), "run " + tiny + " --threads 2 --set algorithm.name=fts");
  same_outputs(fresh_dir("pm-loop"), "run " + tiny + " --driver loop");

  // Crashes that lose the agents' observations (they start again from nothing) and
  // stragglers, under a deadline.
  const fs::path dir = fresh_dir("pm-crashes");
  fs::create_directories(dir);
  const fs::path file = dir / "crashes.toml";
  std::ofstream(file) << slurp(scenarios / "tiny.toml") << R"(
[world.network]
compute = { kind = "exponential", mean = 1.0 }

[[world.network.crashes]]
agents = [1, 2, 5]
time = 2.5
recover = 6.0
keep_state = false
)";
  same_outputs(dir, "run " + file.string() +
                        " --set policy.kind=deadline --set policy.deadline=3 --threads 2");
}
