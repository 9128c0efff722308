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
  const std::string command = "fedsim run " + (dir / "config.resolved.toml").string() +
                              " --driver loop --out " + dir.string();
  CHECK(r.output.find("fedsim reference is an alias of: " + command + "\n") != std::string::npos);
  const std::string csv = slurp(dir / "observations.csv");
  CHECK(csv.rfind("agent,iteration,time,x0,y,f,simple_regret,best_y,branch,source\n", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 6 * (3 + 5));
  CHECK(slurp(dir / "rounds.csv").rfind("round,time,participants,selected,late", 0) == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["driver"] == "loop");
  CHECK(summary["algorithm"] == "dp-fts-de");
  CHECK(summary["agents"] == 6);
  CHECK(summary["seed"] == 3);
  CHECK(summary["epsilon"].get<double>() > 0);
  CHECK(summary["mean_simple_regret_by_iteration"].size() == 6);

  // The printed command gives the same files, byte for byte (summary.json but for wall time and
  // the source file; config.resolved.toml but for its comment naming that file).
  const fs::path again = fresh_dir("reference-again");
  const auto run = run_fedsim("run " + (dir / "config.resolved.toml").string() +
                              " --driver loop --quiet --out " + again.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(slurp(again / "observations.csv") == csv);
  CHECK(slurp(again / "rounds.csv") == slurp(dir / "rounds.csv"));
  auto uncommented = [](const fs::path& f) {
    std::istringstream in(slurp(f));
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind("#", 0) != 0) out += line + "\n";
    return out;
  };
  CHECK(uncommented(again / "config.resolved.toml") == uncommented(dir / "config.resolved.toml"));
  auto s2 = nlohmann::json::parse(slurp(again / "summary.json"));
  auto s1 = summary;
  for (auto* s : {&s1, &s2}) {
    s->erase("wall_time_s");
    s->erase("source");
  }
  CHECK(s1 == s2);

  // Run into its own folder, the printed command replaces the run with the same one.
  const auto same = run_fedsim("run " + (dir / "config.resolved.toml").string() +
                               " --driver loop --quiet --out " + dir.string());
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(slurp(dir / "observations.csv") == csv);
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
