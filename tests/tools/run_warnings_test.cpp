// fedsim run and fedsim sweep print the loader's warnings about keys without effect.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;

namespace {

/// Occurrences of `part` in `text`.
int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("fedsim run and sweep warn once of keys without effect", "[cli][warnings]") {
  const std::filesystem::path scenarios = FEDSIM_SCENARIO_DIR;
  const std::filesystem::path dir = fresh_dir("warnings");
  const std::string tiny = (scenarios / "tiny.toml").string();
  const auto run = run_fedsim("run " + tiny + " --quiet --set policy.deadline=2 --out " +
                              (dir / "run").string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(count(run.output, "fedsim: warning: key 'policy.deadline' has no effect: used by "
                          "policy.kind = deadline, quorum, not sync\n") == 1);
  // Its own resolved config runs again without a warning.
  const auto again = run_fedsim("run " + (dir / "run" / "config.resolved.toml").string() +
                                " --quiet --out " + (dir / "again").string());
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(count(again.output, "fedsim: warning") == 0);
  // A sweep of two seeds warns once.
  const auto sweep = run_fedsim("sweep " + tiny + " --seeds 2 --set policy.deadline=2 --out " +
                                (dir / "sweep").string());
  INFO(sweep.output);
  REQUIRE(sweep.exit_code == 0);
  CHECK(count(sweep.output, "fedsim: warning: key 'policy.deadline'") == 1);
}

TEST_CASE("fedsim run warns that a fedbuff buffer larger than the run's reports never fills",
          "[cli][warnings][fedbuff]") {
  const std::filesystem::path dir = fresh_dir("warnings-fedbuff");
  const std::string tiny = (std::filesystem::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
  const auto run = run_fedsim("run " + tiny + " --quiet --set policy.kind=fedbuff "
                              "--set policy.buffer_size=41 --out " + dir.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);  // the run completes: every agent made its iterations, alone
  CHECK(count(run.output, "policy 'fedbuff' with policy.buffer_size = 41 can never aggregate: "
                          "the agents send at most 40 reports") == 1);
  CHECK(fedsim::test::read_rows(dir / "rounds.csv").size() == 1);  // the header alone
  // summary.json: complete (the agents' work is done), and it says why nothing was aggregated.
  const auto summary = nlohmann::json::parse(fedsim::test::slurp(dir / "summary.json"));
  CHECK(summary["completed"] == true);
  CHECK(summary["reason"].is_null());
  CHECK(summary["private_releases"] == 0);
  REQUIRE(summary["warnings"].size() == 1);
  CHECK(summary["warnings"][0].get<std::string>().find("can never aggregate") != std::string::npos);
  // A buffer the run fills: no warning, in the output or the summary.
  const std::filesystem::path filled = fresh_dir("warnings-fedbuff-40");
  const auto ok = run_fedsim("run " + tiny + " --quiet --set policy.kind=fedbuff "
                             "--set policy.buffer_size=40 --out " + filled.string());
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK(count(ok.output, "never aggregate") == 0);
  CHECK_FALSE(nlohmann::json::parse(fedsim::test::slurp(filled / "summary.json")).contains("warnings"));
  CHECK(fedsim::test::read_rows(filled / "rounds.csv").size() == 2);  // one aggregation
}

TEST_CASE("privacy budgets given to an algorithm that releases nothing private are warned about",
          "[cli][warnings][privacy]") {
  const std::filesystem::path dir = fresh_dir("warnings-privacy");
  const std::string tiny = (std::filesystem::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
  const auto run = run_fedsim("run " + tiny + " --quiet --set algorithm.name=fts-de "
                              "--set privacy.budget=3 --set privacy.agent_budget=2 --out " +
                              (dir / "run").string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  for (const char* key : {"privacy.budget", "privacy.agent_budget"})
    CHECK(count(run.output, std::string("fedsim: warning: key '") + key +
                                "' has no effect: used by the private algorithms (dp-fts, "
                                "dp-fts-de), not by fts-de\n") == 1);
  // Its resolved configuration (every key written) runs again without a warning.
  const auto again = run_fedsim("run " + (dir / "run" / "config.resolved.toml").string() +
                                " --quiet --out " + (dir / "again").string());
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(count(again.output, "fedsim: warning") == 0);
}
