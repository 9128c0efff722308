// `fedsim run --checkpoint-every`, SIGINT/SIGTERM and `fedsim run --resume` through the binary:
// an interrupted run continues to the files an uninterrupted run writes, and every misuse of a
// checkpoint is one clear line and exit code 2.
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
using fedsim::test::slurp;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// summary.json without its wall-clock line.
std::string summary_without_wall_time(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.find("wall_time") == std::string::npos) out += line + "\n";
  return out;
}

void check_same_outputs(const fs::path& a, const fs::path& b) {
  for (const char* f : {"observations.csv", "rounds.csv", "phases.csv", "events.jsonl",
                        "config.resolved.toml"}) {
    INFO(f);
    CHECK(fs::exists(a / f) == fs::exists(b / f));
    if (fs::exists(a / f)) CHECK(slurp(a / f) == slurp(b / f));
  }
  CHECK(summary_without_wall_time(a) == summary_without_wall_time(b));
  CHECK_FALSE(summary_without_wall_time(a).empty());
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("fedsim run: stopped at a checkpoint, resumed to the uninterrupted run's files",
          "[cli][checkpoint]") {
  const fs::path dir = fresh_dir("cli-checkpoint");
  struct Case {
    const char* scenario;
    const char* shrink;
  };
  for (const Case& c : {Case{"stragglers/deadline.toml", "--set world.agents=12 --set algorithm.iterations=10"},
                        Case{"xarmed/stragglers-garland.toml", "--set world.agents=5 --set algorithm.budget=2000"},
                        // A continuous box (Branin): points and pending answers in the state.
                        Case{"stragglers/deadline.toml",
                             "--set world.agents=12 --set algorithm.iterations=10 --set "
                             "'world.objective.kind=\"branin\"' --set "
                             "algorithm.acquisition_candidates=200"}}) {
    INFO(c.scenario);
    const std::string base = q(scenarios / c.scenario) + " " + c.shrink + " --quiet";
    const fs::path ref = dir / "reference", run = dir / "interrupted";
    fs::remove_all(ref);
    fs::remove_all(run);
    REQUIRE(run_fedsim("run " + base + " --out " + q(ref)).exit_code == 0);
    // Stopped as by SIGINT after its second checkpoint (every 2 rounds or phases).
    const auto stopped = fedsim::test::run_shell("FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS=2 " +
                                                 fedsim::test::fedsim_binary() + " run " + base +
                                                 " --checkpoint-every 2 --out " + q(run));
    INFO(stopped.output);
    CHECK(stopped.exit_code == 130);
    CHECK(stopped.output.find("fedsim: interrupted: SIGINT after 4 rounds") != std::string::npos);
    CHECK(stopped.output.find("continue with: fedsim run --resume " + run.string()) != std::string::npos);
    CHECK(fs::exists(run / "checkpoint" / "state.bin"));
    CHECK_FALSE(fs::exists(run / "summary.json"));
    // A new run into the folder would lose the interrupted one: refused, naming --resume.
    const auto again = run_fedsim("run " + base + " --out " + q(run));
    CHECK(again.exit_code == 2);
    CHECK(again.output.find("holds the checkpoint of an interrupted run") != std::string::npos);
    // Resumed (checkpointing on, to the end), it writes the uninterrupted run's files.
    const auto resumed = run_fedsim("run --resume " + q(run) + " --quiet --checkpoint-every 3");
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    check_same_outputs(ref, run);
    CHECK_FALSE(fs::exists(run / "checkpoint"));  // a completed run keeps no checkpoint
  }
}

TEST_CASE("fedsim run: SIGINT saves a checkpoint and exits 130, the resumed run is unchanged",
          "[cli][checkpoint]") {
  const fs::path dir = fresh_dir("cli-sigint");
  // About 2 s in a Release build: the signal comes after the first progress line, with most
  // of the run still to go. The sanitizer's build is many times slower: a tenth of the
  // iterations still leaves it seconds of run.
  const std::string base = q(scenarios / "stragglers/study/base.toml") +
                           " --set world.agents=150 --set algorithm.iterations=" +
                           (fedsim::test::under_sanitizer() ? "40" : "400") +
                           " --set policy.kind=deadline";
  const fs::path ref = dir / "reference", run = dir / "interrupted", log = dir / "log";
  fs::create_directories(dir);
  REQUIRE(run_fedsim("run " + base + " --quiet --out " + q(ref)).exit_code == 0);
  const std::string script =
      fedsim::test::fedsim_binary() + " run " + base + " --out " + q(run) + " > " + q(log) +
      " 2>&1 & pid=$!; n=0; until grep -q '^round' " + q(log) +
      " || [ $n -gt 600 ]; do sleep 0.05; n=$((n+1)); done; kill -INT $pid; wait $pid; echo exit=$?";
  const auto killed = fedsim::test::run_shell(script);
  const std::string out = slurp(log);
  INFO(killed.output << out);
  CHECK(killed.output.find("exit=130") != std::string::npos);
  CHECK(out.find("fedsim: interrupted: SIGINT after ") != std::string::npos);
  REQUIRE(fs::exists(run / "checkpoint" / "state.bin"));
  const auto resumed = run_fedsim("run --resume " + q(run) + " --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  check_same_outputs(ref, run);
}

TEST_CASE("fedsim run --resume and --checkpoint-every: misuse is one line and exit code 2",
          "[cli][checkpoint][errors]") {
  const fs::path dir = fresh_dir("cli-resume-errors");
  const std::string tiny = q(scenarios / "tiny.toml");
  auto check_usage = [](const fedsim::test::CommandResult& r, const std::string& says) {
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(says) != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  };
  check_usage(run_fedsim("run --resume " + q(dir / "nothing")), "no checkpoint there");
  check_usage(run_fedsim("run"), "give a SCENARIO file to run, or --resume DIR");
  check_usage(run_fedsim("run " + tiny + " --resume " + q(dir)), "--resume DIR continues the run");
  check_usage(run_fedsim("run --resume " + q(dir) + " --set seed=3"), "give no SCENARIO, --set");
  check_usage(run_fedsim("run " + tiny + " --checkpoint-every -1 --out " + q(dir / "a")),
              "--checkpoint-every must be >= 0");
  check_usage(run_fedsim("run " + tiny + " --driver loop --checkpoint-every 2 --out " + q(dir / "b")),
              "the loop driver takes no checkpoints");

  // A damaged checkpoint: refused, naming the file and what is wrong.
  const fs::path run = dir / "run";
  REQUIRE(fedsim::test::run_shell("FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS=1 " +
                                   fedsim::test::fedsim_binary() + " run " + tiny +
                                   " --quiet --checkpoint-every 1 --out " + q(run))
              .exit_code == 130);
  const fs::path state = run / "checkpoint" / "state.bin";
  std::string bytes = slurp(state);
  std::ofstream(state, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  check_usage(run_fedsim("run --resume " + q(run)), "checksum mismatch");
  std::ofstream(state, std::ios::binary) << bytes;
  // --force starts over: the checkpoint goes, the new run completes.
  const auto forced = run_fedsim("run " + tiny + " --quiet --force --out " + q(run));
  CHECK(forced.exit_code == 0);
  CHECK_FALSE(fs::exists(run / "checkpoint"));
  CHECK(fs::exists(run / "summary.json"));
}
