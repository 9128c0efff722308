#include <catch2/catch.hpp>

#include <filesystem>
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
