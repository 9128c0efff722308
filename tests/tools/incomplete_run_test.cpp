#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {
const fs::path scenarios = FEDSIM_SCENARIO_DIR;
}  // namespace

TEST_CASE("fedsim run: a completed run says so in summary.json", "[cli][run][liveness]") {
  const fs::path dir = fresh_dir("complete-run");
  const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " +
                            dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["completed"] == true);
  CHECK(summary["reason"].is_null());
}

TEST_CASE("fedsim run: a run that cannot complete warns, writes why and exits 3",
          "[cli][run][liveness]") {
  const fs::path dir = fresh_dir("incomplete-run");
  const auto r = run_fedsim(
      "run " + (scenarios / "tiny.toml").string() +
      " --set policy.round_timeout=inf"
      " --set 'world.network.crashes=[{agents=[1],time=0.0,recover=inf}]' --quiet --out " +
      dir.string());
  INFO(r.output);
  CHECK(r.exit_code == 3);
  // Foreseen at load time...
  CHECK(r.output.find("policy.round_timeout = inf may never close a round") != std::string::npos);
  // ...and stated at the end, in one line on stderr and in summary.json.
  CHECK(r.output.find("fedsim: run did not complete: round 0 never closed") != std::string::npos);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["completed"] == false);
  CHECK(summary["reason"].get<std::string>().find("round 0 never closed") != std::string::npos);
  // The run's files are written all the same.
  CHECK(fs::exists(dir / "rounds.csv"));
}

TEST_CASE("fedsim run: a Fed-PNE run prints a progress line per phase (pulls of T per client)",
          "[cli][run][xarmed]") {
  const fs::path dir = fresh_dir("fed-pne-progress");
  const auto r = run_fedsim("run " + (scenarios / "xarmed" / "garland.toml").string() +
                            " --set world.agents=4 --set algorithm.budget=600 --out " +
                            dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // stderr is not a terminal here: plain lines, one per closed phase, as phases.csv has them.
  const std::string phases = slurp(dir / "phases.csv");
  const auto closed = std::count(phases.begin(), phases.end(), '\n') - 1;
  REQUIRE(closed >= 2);
  long lines = 0;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) lines += line.rfind("pulls ", 0) == 0;
  CHECK(lines == closed);
  CHECK(r.output.find("/600 per client  phase 1  t ") != std::string::npos);
  CHECK(r.output.find("  regret R(t) ") != std::string::npos);
  CHECK(r.output.find("  alive 4/4") != std::string::npos);
  // With --quiet: none.
  const fs::path quiet = fresh_dir("fed-pne-progress-quiet");
  const auto q = run_fedsim("run " + (scenarios / "xarmed" / "garland.toml").string() +
                            " --set world.agents=4 --set algorithm.budget=600 --quiet --out " +
                            quiet.string());
  CHECK(q.output.find("pulls ") == std::string::npos);
}
