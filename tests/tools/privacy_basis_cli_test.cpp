// summary.json states what a private run's per-agent epsilon rests on, and the command line
// refuses a pld filter where participation is adaptive (issue 37, item 2).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
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
}

TEST_CASE("summary.json's privacy_basis: a virtual-time run and a wall-clock run", "[cli][privacy-basis]") {
  const fs::path plain = fresh_dir("basis-plain");
  auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " + plain.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto s = nlohmann::json::parse(slurp(plain / "summary.json"));
  CHECK(s["privacy_basis"]["participation"] == "not adaptive");
  CHECK(s["privacy_basis"]["filter"] == "pld");
  CHECK(s["privacy_basis"]["rdp_order"].is_null());
  CHECK(s["privacy_basis"]["reasons"].empty());
  CHECK(s["privacy_basis"]["epsilon_guarantee"] == s["epsilon"]);

  const fs::path wall = fresh_dir("basis-wall");
  r = run_fedsim("run " + (scenarios / "wall/deadline-chaos.toml").string() +
                 " --set world.agents=6 --set algorithm.iterations=3 --quiet --out " + wall.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  s = nlohmann::json::parse(slurp(wall / "summary.json"));
  CHECK(s["privacy_basis"]["participation"] == "adaptive");
  CHECK(s["privacy_basis"]["filter"] == "pld");  // nothing filtered: the count's epsilon
  CHECK(s["privacy_basis"]["rdp_order"].is_null());
  CHECK(s["privacy_basis"]["reasons"][0].get<std::string>().find("run.time = \"wall\"") == 0);
  CHECK(s["privacy_basis"]["per_agent_epsilon"].get<std::string>().find("not a guarantee") !=
        std::string::npos);
  // Adaptive, without privacy.budget: no count of releases is fixed in advance.
  CHECK(s["privacy_basis"]["epsilon_guarantee"].is_null());
  CHECK(slurp(wall / "config.resolved.toml").find("filter = \"auto\"") != std::string::npos);

  // With a per-agent budget the wall-clock run filters with the Rényi filter.
  const fs::path filtered = fresh_dir("basis-wall-filtered");
  r = run_fedsim("run " + (scenarios / "wall/deadline-chaos.toml").string() +
                 " --set world.agents=6 --set algorithm.iterations=3 --set privacy.agent_budget=1.5"
                 " --quiet --out " + filtered.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  s = nlohmann::json::parse(slurp(filtered / "summary.json"));
  CHECK(s["privacy_basis"]["filter"] == "rdp");
  CHECK(s["privacy_basis"]["rdp_order"].get<double>() > 1.0);
  CHECK(s["epsilon_per_agent"]["max"].get<double>() <= 1.5);
  CHECK(s["agents_filtered"].get<int>() > 0);
}

TEST_CASE("a pld filter where participation is adaptive is refused in one line", "[cli][privacy-basis]") {
  const auto wall = run_fedsim("run " + (scenarios / "wall/deadline-chaos.toml").string() +
                               " --set privacy.filter='\"pld\"' --out " + fresh_dir("basis-refused").string());
  INFO(wall.output);
  CHECK(wall.exit_code == 2);
  CHECK(wall.output.find("fedsim: error: ") != std::string::npos);
  CHECK(wall.output.find("key 'privacy.filter'") != std::string::npos);
  CHECK(std::count(wall.output.begin(), wall.output.end(), '\n') == 1);

  // Served agents: refused before listening.
  const fs::path dir = fresh_dir("basis-serve");
  fs::create_directories(dir);
  std::ofstream(dir / "secret") << "0123456789abcdef0123456789abcdef\n";
  const auto served = run_fedsim("serve " + (scenarios / "tiny.toml").string() +
                                 " --set privacy.filter='\"pld\"' --listen 127.0.0.1:0 --secret-file " +
                                 (dir / "secret").string() + " --join-timeout 5 --out " + (dir / "run").string());
  INFO(served.output);
  CHECK(served.exit_code == 2);
  CHECK(served.output.find("key 'privacy.filter'") != std::string::npos);
  CHECK(served.output.find("agents served in other processes") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "run" / "summary.json"));
}
