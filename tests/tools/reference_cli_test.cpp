#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/tools/run_command.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;
using fedsim::test::run_fedsim;


TEST_CASE("fedsim reference is an alias of fedsim run --driver loop on the scenario it writes",
          "[cli]") {
  const fs::path dir = fresh_dir("reference");
  const auto r = run_fedsim("reference --algorithm dp-fts-de --agents 6 --iterations 5 --init 3 "
                            "--features 10 --subregions 2 --seed 3 --out " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("dp-fts-de: N=6 T=5") != std::string::npos);
  const std::string command = "fedsim run " + (dir / "scenario.toml").string() +
                              " --driver loop --out " + dir.string();
  CHECK(r.output.find("fedsim reference is an alias of: " + command + "\n") != std::string::npos);
  const std::string csv = slurp(dir / "observations.csv");
  CHECK(csv.rfind("agent,iteration,time,x,y,f,simple_regret,branch,source\n", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 6 * (3 + 5));
  CHECK(slurp(dir / "rounds.csv").rfind("round,time,participants,selected,late", 0) == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["driver"] == "loop");
  CHECK(summary["algorithm"] == "dp-fts-de");
  CHECK(summary["agents"] == 6);
  CHECK(summary["seed"] == 3);
  CHECK(summary["epsilon"].get<double>() > 0);
  CHECK(summary["mean_simple_regret_by_iteration"].size() == 6);

  // The printed command gives the same files, byte for byte (summary.json but for wall time).
  const fs::path again = fresh_dir("reference-again");
  const auto run = run_fedsim("run " + (dir / "scenario.toml").string() +
                              " --driver loop --quiet --out " + again.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(slurp(again / "observations.csv") == csv);
  CHECK(slurp(again / "rounds.csv") == slurp(dir / "rounds.csv"));
  CHECK(slurp(again / "config.resolved.toml") == slurp(dir / "config.resolved.toml"));
  auto s2 = nlohmann::json::parse(slurp(again / "summary.json"));
  auto s1 = summary;
  s1.erase("wall_time_s");
  s2.erase("wall_time_s");
  CHECK(s1 == s2);
}

TEST_CASE("fedsim reference rejects bad arguments with one line and exit code 2", "[cli]") {
  const char* bad[] = {"--q 0",          "--q 1.5",           "--z 0",
                       "--features 0",   "--agents 0",        "--algorithm gp-ucb",
                       "--p-schedule 2", "--subregions 5000", "--temperature hot",
                       "--local-sampler mcmc", "--no-such-option", "--accountant best"};
  for (const char* args : bad) {
    const auto r = run_fedsim(std::string("reference --iterations 1 ") + args +
                              " --out " + fresh_dir("bad").string());
    INFO(args << " -> " << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}
