// In-process tests of `fedsim xarmed` (tools/fedsim/xarmed_command.cpp, an alias of
// `fedsim sweep --driver loop`), calling the command through its own CLI11 app.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
void add_xarmed_command(CLI::App& app);
}

namespace fs = std::filesystem;

namespace {

void run_xarmed(std::vector<std::string> args) {
  CLI::App app{"test"};
  fedsim::cli::add_xarmed_command(app);
  args.insert(args.begin(), "xarmed");
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments reversed
  app.parse(args);
}

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("fedsim-xarmed-" + name);
  fs::remove_all(dir);
  return dir;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("fedsim xarmed writes its scenario and runs it as a loop sweep over the seeds",
          "[xarmed][cli]") {
  const fs::path dir = fresh("fedpne");
  run_xarmed({"--algorithm", "dp-fed-pne", "--eps", "0.5", "--objective", "double-sine",
              "--clients", "4", "--budget", "300", "--seeds", "2", "--seed", "5", "--out",
              dir.string()});
  CHECK(slurp(dir / "scenario.toml").find("name = \"dp-fed-pne\"") != std::string::npos);
  for (const char* seed : {"seed=5", "seed=6"}) {
    INFO(seed);
    const auto summary = nlohmann::json::parse(slurp(dir / seed / "summary.json"));
    CHECK(summary["driver"] == "loop");
    CHECK(summary["algorithm"] == "dp-fed-pne");
    CHECK(summary["clients"] == 4);
    CHECK(summary["budget"] == 300);
    CHECK(summary["epsilon"] == 0.5);
    CHECK(summary["delta"] == 0.01);  // min(1/M, 0.01): 1/M = 0.25 would be no guarantee
    CHECK(summary["communication"]["rounds"].get<int>() >= 1);
    CHECK(slurp(dir / seed / "phases.csv").rfind("phase,", 0) == 0);
  }
  const std::string table = slurp(dir / "sweep.csv");
  CHECK(std::count(table.begin(), table.end(), '\n') == 2);  // header + the one grid point

  // Same arguments, byte-identical table.
  const fs::path again = fresh("fedpne-again");
  run_xarmed({"--algorithm", "dp-fed-pne", "--eps", "0.5", "--objective", "double-sine",
              "--clients", "4", "--budget", "300", "--seeds", "2", "--seed", "5", "--out",
              again.string()});
  CHECK(slurp(again / "sweep.csv") == table);

  const fs::path hct = fresh("hct");
  run_xarmed({"--algorithm", "hct", "--objective", "garland", "--budget", "200", "--out",
              hct.string()});
  CHECK(slurp(hct / "scenario.toml").find("rho = 0.75") != std::string::npos);  // HCT's default
  const auto summary = nlohmann::json::parse(slurp(hct / "seed=1" / "summary.json"));
  CHECK(summary["algorithm"] == "hct");
  CHECK_FALSE(summary.contains("communication"));
  CHECK_FALSE(fs::exists(hct / "seed=1" / "phases.csv"));
}

TEST_CASE("fedsim xarmed refuses bad values with a usage error", "[xarmed][cli]") {
  const std::vector<std::vector<std::string>> bad = {
      {"--algorithm", "ucb"},         {"--objective", "branin"},
      {"--clients", "0"},             {"--budget", "0"},
      {"--seeds", "0"},               {"--algorithm", "dp-fed-pne"},
      {"--eps", "1"},                 {"--algorithm", "hct", "--c1", "2"},
      {"--rho", "1.5"},               {"--split", "diagonal"},
      {"--point", "corner"},          {"--noise", "-1"},
      {"--algorithm", "dp-fed-pne", "--eps", "1", "--dp-delta", "1"}};
  for (auto args : bad) {
    args.insert(args.end(), {"--out", fresh("bad").string()});
    INFO(args[0] << " " << args[1]);
    CHECK_THROWS_AS(run_xarmed(args), fedsim::cli::UsageError);
  }
}
