// In-process tests of `fedsim xarmed` (tools/fedsim/xarmed_command.cpp), calling the command
// through its own CLI11 app, so they run before the command is registered in main.cpp.
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

TEST_CASE("fedsim xarmed writes regret.csv, clients.csv, phases.csv and summary.json",
          "[xarmed][cli]") {
  const fs::path dir = fresh("fedpne");
  run_xarmed({"--algorithm", "dp-fed-pne", "--eps", "0.5", "--objective", "double-sine",
              "--clients", "4", "--budget", "300", "--seeds", "2", "--seed", "5", "--out",
              dir.string()});
  const std::string curve = slurp(dir / "regret.csv");
  CHECK(curve.rfind("step,average_cumulative_regret_per_client,se,seeds\n", 0) == 0);
  CHECK(std::count(curve.begin(), curve.end(), '\n') == 1 + 300);
  const std::string clients = slurp(dir / "clients.csv");
  CHECK(std::count(clients.begin(), clients.end(), '\n') == 1 + 2 * 4);
  CHECK(slurp(dir / "phases.csv").rfind("seed,phase,depth,nodes,pulls_per_node", 0) == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["algorithm"] == "dp-fed-pne");
  CHECK(summary["per_seed"].size() == 2);
  CHECK(summary["per_seed"][0]["seed"] == 5);
  CHECK(summary["privacy"]["epsilon"] == 0.5);
  CHECK(summary["privacy"]["delta"] == 0.25);  // 1 / M
  CHECK(summary["privacy"]["clients"] == 4);
  CHECK(summary["global_optimum"]["value"] == 0.0);

  // Same arguments, byte-identical curve.
  const fs::path again = fresh("fedpne-again");
  run_xarmed({"--algorithm", "dp-fed-pne", "--eps", "0.5", "--objective", "double-sine",
              "--clients", "4", "--budget", "300", "--seeds", "2", "--seed", "5", "--out",
              again.string()});
  CHECK(slurp(again / "regret.csv") == curve);

  const fs::path hct = fresh("hct");
  run_xarmed({"--algorithm", "hct", "--objective", "garland", "--budget", "200", "--out",
              hct.string()});
  CHECK(slurp(hct / "regret.csv").rfind("step,cumulative_regret,se,seeds\n", 0) == 0);
  CHECK(nlohmann::json::parse(slurp(hct / "summary.json"))["config"]["rho"] == 0.75);
  CHECK_FALSE(fs::exists(hct / "clients.csv"));
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
