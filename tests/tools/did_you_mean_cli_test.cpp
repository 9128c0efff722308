// The command line names what it did not know (issue 38): a missing or unknown subcommand gets
// the list of subcommands, an unknown option, scenario key or value "did you mean" when one
// name is close (scenarios/did_you_mean.hpp); each one line, exit 2, nothing run. A wall-clock
// run that leaves the compute model unused is warned of once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;

namespace {

const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
const std::string subcommands =
    "(allowed: run, serve, agents, privacy, reference, algorithms, sweep, compare, plot, "
    "xarmed, dashboard, report";

/// A usage error: exit code 2 and exactly one line "fedsim: error: WHAT".
void check_error(const fedsim::test::CommandResult& r, const std::string& what) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(r.output.rfind("fedsim: error: " + what, 0) == 0);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a missing or unknown subcommand is one line listing the subcommands",
          "[cli][did-you-mean]") {
  check_error(run_fedsim(""), "a subcommand is required " + subcommands);
  check_error(run_fedsim("runn " + tiny),
              "unknown subcommand 'runn', did you mean 'run'? " + subcommands + ")");
  check_error(run_fedsim("swep " + tiny + " --seeds 2"),
              "unknown subcommand 'swep', did you mean 'sweep'? " + subcommands + ")");
  check_error(run_fedsim("frobnicate"), "unknown subcommand 'frobnicate' " + subcommands + ")");
  check_error(run_fedsim("--verison"),
              "unknown option '--verison', did you mean '--version'? and no subcommand " +
                  subcommands + ")");
}

TEST_CASE("an unknown option of a subcommand is one line with did you mean",
          "[cli][did-you-mean]") {
  const fs::path out = fresh_dir("did-you-mean-option");
  check_error(run_fedsim("run --seeds 3 " + tiny + " --out " + out.string()),
              "run: unknown option '--seeds', did you mean '--seed'? (fedsim run --help "
              "lists them)");
  check_error(run_fedsim("run " + tiny + " --seeds=3 --out " + out.string()),
              "run: unknown option '--seeds', did you mean '--seed'?");
  check_error(run_fedsim("sweep " + tiny + " --jbos 2 --out " + out.string()),
              "sweep: unknown option '--jbos', did you mean '--jobs'?");
  const auto none = run_fedsim("run " + tiny + " --frobnicate --out " + out.string());
  check_error(none, "run: unknown option '--frobnicate' (fedsim run --help lists them)");
  CHECK_FALSE(has(none.output, "did you mean"));
  // Option values that take names.
  check_error(run_fedsim("run " + tiny + " --driver lop --out " + out.string()),
              "--driver: unknown value 'lop', did you mean 'loop'? (allowed: actors, loop)");
  check_error(run_fedsim("privacy --q 0.25 --z 1 --steps 10 --delta 1e-5 --accountant momnets"),
              "unknown --accountant 'momnets', did you mean 'moments'? (allowed: moments, tight)");
  check_error(run_fedsim("xarmed --algorithm fed-pen --out " + out.string()),
              "unknown --algorithm 'fed-pen', did you mean 'fed-pne'? (allowed: ");
  // Other refusals keep CLI11's words.
  const auto value = run_fedsim("run " + tiny + " --threads many --out " + out.string());
  INFO(value.output);
  CHECK(value.exit_code == 2);
  CHECK(has(value.output, "--threads"));
  CHECK_FALSE(has(value.output, "unknown option"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("an unknown scenario key or value is one line with did you mean",
          "[cli][did-you-mean]") {
  const fs::path dir = fresh_dir("did-you-mean-keys");
  const fs::path out = dir / "out";
  check_error(run_fedsim("run " + tiny + " --set policy.kind=dedline --out " + out.string()),
              tiny + ": key 'policy.kind': unknown value 'dedline', did you mean 'deadline'? "
                     "(allowed: sync, deadline, quorum, async, fedbuff) (from --set "
                     "policy.kind=dedline)");
  check_error(run_fedsim("run " + tiny + " --set algorithm.nam=fts-de --out " + out.string()),
              tiny + ": unknown key 'algorithm.nam', did you mean 'algorithm.name'? (allowed: ");
  fs::create_directories(dir);
  std::ofstream(dir / "typo.toml") << "[world]\nagents = 2\n[algorithm]\nname = \"fts-dee\"\n";
  check_error(run_fedsim("run " + (dir / "typo.toml").string() + " --out " + out.string()),
              (dir / "typo.toml").string() +
                  ": key 'algorithm.name': unknown value 'fts-dee', did you mean 'fts-de'?");
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a wall-clock run whose compute model is unused warns once, naming the keys",
          "[cli][did-you-mean][wall-clock]") {
  const fs::path out = fresh_dir("wall-compute-warning");
  const auto r = run_fedsim("run " + tiny +
                            " --set run.time=wall --set run.time_scale=0.005 --set "
                            "policy.round_timeout=inf --set world.network.compute=0.01 --quiet "
                            "--out " + out.string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  const std::string warning =
      "fedsim: warning: run.time = wall charges the real time of evaluations, not the modelled "
      "compute time of world.network.compute: set run.injected_compute = true to hold it as "
      "well (docs/wall-clock.md)\n";
  const auto at = r.output.find(warning);
  REQUIRE(at != std::string::npos);
  CHECK(r.output.find("run.injected_compute", at + warning.size()) == std::string::npos);  // once
}
