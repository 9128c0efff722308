// `fedsim run --resume` trusts nothing in a checkpoint: one of another build (commit), one whose
// configuration is not the run's that its folder holds, one whose decoded state breaks an
// invariant of a member: each is one line and exit code 2, and the folder is left as it was.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/checkpoint/checkpoint.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
const std::string tiny = q(scenarios / "tiny.toml") + " --quiet";

/// A run of tiny.toml (with `extra` options) stopped at its first checkpoint, in `dir`.
void interrupted_run(const fs::path& dir, const std::string& extra = "") {
  const auto r = fedsim::test::run_shell("FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS=1 " +
                                         fedsim::test::fedsim_binary() + " run " + tiny + " " +
                                         extra + " --checkpoint-every 1 --out " + q(dir));
  INFO(r.output);
  REQUIRE(r.exit_code == 130);
}

void check_refused(const fedsim::test::CommandResult& r, const std::string& says) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
  CHECK(r.output.find(says) != std::string::npos);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

/// Rewrites DIR's checkpoint after `change` (its checksum recomputed: a deliberate change).
template <class Change>
void alter_checkpoint(const fs::path& dir, Change change) {
  fedsim::actors::Checkpoint c = fedsim::actors::read_checkpoint(dir / "checkpoint");
  change(c);
  fedsim::actors::write_checkpoint_state(dir / "checkpoint", c);
}

}  // namespace

TEST_CASE("fedsim run --resume refuses a checkpoint of another build unless --resume-any-build",
          "[cli][checkpoint][errors]") {
  const fs::path dir = fresh_dir("cli-resume-build");
  const fs::path run = dir / "run", reference = dir / "reference";
  REQUIRE(run_fedsim("run " + tiny + " --out " + q(reference)).exit_code == 0);
  const auto summary = nlohmann::json::parse(slurp(reference / "summary.json"));
  const std::string build = summary.at("build").get<std::string>();
  CHECK(!build.empty());
  interrupted_run(run);
  // The checkpoint carries the build that wrote it: this one's.
  const auto header = nlohmann::json::parse(fedsim::actors::read_checkpoint(run / "checkpoint").header);
  CHECK(header.at("fedsim_build") == build);
  alter_checkpoint(run, [](fedsim::actors::Checkpoint& c) {
    auto h = nlohmann::json::parse(c.header);
    h["fedsim_build"] = "0123456789abcdef0123456789abcdef01234567";
    c.header = h.dump();
  });
  check_refused(run_fedsim("run --resume " + q(run)),
                "written by the build of commit 0123456789abcdef0123456789abcdef01234567, this is "
                "the build of " + build);
  CHECK(fs::exists(run / "checkpoint" / "state.bin"));  // still there to resume
  check_refused(run_fedsim("run " + tiny + " --resume-any-build --out " + q(dir / "x")),
                "--resume-any-build goes with --resume");
  // The override: resumed to the end (the same program here, so the same files).
  const auto resumed = run_fedsim("run --resume " + q(run) + " --resume-any-build --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(slurp(run / "observations.csv") == slurp(reference / "observations.csv"));
  CHECK_FALSE(fs::exists(run / "checkpoint"));
}

TEST_CASE("fedsim run --resume refuses a checkpoint of another configuration in a folder "
          "holding a finished run", "[cli][checkpoint][errors]") {
  const fs::path dir = fresh_dir("cli-resume-foreign");
  const fs::path a = dir / "a", b = dir / "b";
  interrupted_run(a, "--set seed=5");
  REQUIRE(run_fedsim("run " + tiny + " --out " + q(b)).exit_code == 0);
  const std::string finished = slurp(b / "summary.json"), observations = slurp(b / "observations.csv");
  // A's checkpoint copied into B, which holds a finished run of another configuration: resuming
  // it there replaced B's run (exit 0).
  fs::copy(a / "checkpoint", b / "checkpoint", fs::copy_options::recursive);
  check_refused(run_fedsim("run --resume " + q(b)), "holds a run of another configuration");
  CHECK(slurp(b / "summary.json") == finished);
  CHECK(slurp(b / "observations.csv") == observations);
  // In its own folder it resumes.
  CHECK(run_fedsim("run --resume " + q(a)).exit_code == 0);
}

TEST_CASE("fedsim run --resume: a run started with --force over another run resumes and "
          "replaces it", "[cli][checkpoint]") {
  const fs::path dir = fresh_dir("cli-resume-forced");
  REQUIRE(run_fedsim("run " + tiny + " --out " + q(dir)).exit_code == 0);
  const std::string before = slurp(dir / "config.resolved.toml");
  interrupted_run(dir, "--set seed=9 --force");
  // The folder still holds the first run (a run is published when complete) ...
  CHECK(slurp(dir / "config.resolved.toml") == before);
  // ... which the resumed run, the one --force started, replaces; so does a second interruption.
  const auto stopped = fedsim::test::run_shell("FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS=1 " +
                                               fedsim::test::fedsim_binary() + " run --resume " +
                                               q(dir) + " --quiet --checkpoint-every 1");
  CHECK(stopped.exit_code == 130);
  const auto resumed = run_fedsim("run --resume " + q(dir) + " --quiet");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(slurp(dir / "config.resolved.toml").find("seed = 9") != std::string::npos);
}

TEST_CASE("fedsim run --resume refuses a checkpoint whose member state breaks an invariant: one "
          "line, exit code 2, the folder as it was", "[cli][checkpoint][errors]") {
  const fs::path dir = fresh_dir("cli-resume-invariant");
  interrupted_run(dir);
  const auto good = fedsim::actors::read_checkpoint(dir / "checkpoint");
  auto entries = [&] {
    std::string out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      out += e.path().string() + "\n";
    return out;
  };
  // An agent's state cut short.
  alter_checkpoint(dir, [](fedsim::actors::Checkpoint& c) { c.members[0].resize(c.members[0].size() / 2); });
  const std::string listing = entries();
  check_refused(run_fedsim("run --resume " + q(dir)), ": agent 0: checkpoint: cannot read a state");
  CHECK(entries() == listing);
  // The server's: its state of a run of another number of agents.
  alter_checkpoint(dir, [&](fedsim::actors::Checkpoint& c) {
    c = good;
    c.members.pop_back();
  });
  check_refused(run_fedsim("run --resume " + q(dir)), "the scenario has");
  // The recorder's in place of the server's.
  alter_checkpoint(dir, [&](fedsim::actors::Checkpoint& c) {
    c = good;
    c.server = c.recorder;
  });
  check_refused(run_fedsim("run --resume " + q(dir)), ": server: ");
  // Unaltered, it resumes.
  alter_checkpoint(dir, [&](fedsim::actors::Checkpoint& c) { c = good; });
  CHECK(run_fedsim("run --resume " + q(dir)).exit_code == 0);
}
