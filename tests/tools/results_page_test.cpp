#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_table;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const fs::path source_root = fs::path(FEDSIM_SCENARIO_DIR).parent_path();

/// Runs tools/results_page.py ARGS with FEDSIM_PYTHON or /usr/bin/python3; returns its exit code.
int results_page(const std::string& args) {
  const std::string python = fedsim::test::python_interpreter();
  const std::string command =
      python + " " + (source_root / "tools" / "results_page.py").string() + " " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-15; }

}  // namespace

TEST_CASE("results_page.py --run-metrics sums clipping over rounds and averages the late regret",
          "[cli][results]") {
  // TS (an empty rounds.csv) and DP-FTS-DE with a clipping bound that clips every vector and one
  // that clips none.
  const fs::path sweep = fresh_dir("run-metrics-sweep");
  const auto s = run_fedsim("sweep " + (source_root / "scenarios" / "tiny.toml").string() +
                            " --grid algorithm.name=ts,dp-fts-de --grid algorithm.clip=0.5,100 --seeds 2"
                            " --jobs 2 --quiet --out " + sweep.string());
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const fs::path late = fresh_dir("run-metrics-late.csv"), all = fresh_dir("run-metrics-all.csv");
  REQUIRE(results_page("--run-metrics " + sweep.string() + " --from-iteration 2 --out " + late.string()) == 0);
  REQUIRE(results_page("--run-metrics " + sweep.string() + " --out " + all.string()) == 0);

  const auto runs = read_table(sweep / "sweep_runs.csv");
  const auto rows = read_table(late), rows_all = read_table(all);
  REQUIRE(rows.size() == runs.size());
  REQUIRE(rows_all.size() == runs.size());
  int clipping = 0, private_runs = 0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const auto& run = runs[k];
    const auto& row = rows[k];
    INFO(run.at("folder"));
    CHECK(row.at("algorithm.name") == run.at("algorithm.name"));
    CHECK(row.at("algorithm.clip") == run.at("algorithm.clip"));
    CHECK(row.at("seed") == run.at("seed"));

    long selected = 0, clipped = 0;
    for (const auto& r : read_table(sweep / run.at("folder") / "rounds.csv")) {
      selected += std::stol(r.at("selected"));
      clipped += std::stol(r.at("clipped"));
    }
    CHECK(std::stol(row.at("selected")) == selected);
    CHECK(std::stol(row.at("clipped")) == clipped);
    if (selected == 0) {
      CHECK(row.at("clipped_percent").empty());
    } else {
      ++private_runs;
      CHECK(close(std::stod(row.at("clipped_percent")), 100.0 * clipped / selected));
    }
    if (clipped > 0) ++clipping;

    // The late regret: the mean of summary.json's curve over iterations 2..T; from 0 it is the
    // regret area of sweep_runs.csv.
    const auto curve = nlohmann::json::parse(slurp(sweep / run.at("folder") / "summary.json"))
                           ["mean_simple_regret_by_iteration"].get<std::vector<double>>();
    double sum = 0.0;
    for (std::size_t t = 2; t < curve.size(); ++t) sum += curve[t];
    CHECK(row.at("from_iteration") == "2");
    CHECK(close(std::stod(row.at("late_regret")), sum / static_cast<double>(curve.size() - 2)));
    CHECK(close(std::stod(rows_all[k].at("late_regret")), std::stod(run.at("regret_area"))));
  }
  CHECK(private_runs == 4);  // the DP-FTS-DE runs selected vectors; TS has no rounds
  CHECK(clipping > 0);       // else the clipping sums checked only zeros

  // An iteration past T is an error, not an empty mean.
  CHECK(results_page("--run-metrics " + sweep.string() + " --from-iteration 99 --out " + late.string()) != 0);
}

TEST_CASE("results_page.py --study-metrics finds the first time the agents' mean regret is below "
          "the threshold", "[cli][results]") {
  // Two hand-made runs. In "a", agent 0's two rows at t = 1 count in file order (its regret is
  // 0.3 after them), the mean exists from t = 2 (both agents observed): 0.25, then 0.125 at
  // t = 3 and 0.03 at t = 4. Run "b" never goes below 0.45.
  const fs::path sweep = fresh_dir("study-metrics-sweep");
  auto write = [](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  const std::string summary =
      R"({"mean_final_simple_regret": 0.03, "epsilon": 1.5, "private_releases": 3,
          "iterations": 3, "agents": 2, "messages": {"sent": 10, "dropped": 1},
          "virtual_time": 4.0})";
  write(sweep / "sweep_runs.csv", "policy.kind,seed,folder\nsync,1,a\nasync,1,b\n");
  write(sweep / "a" / "summary.json", summary);
  write(sweep / "b" / "summary.json", summary);
  const std::string header = "agent,iteration,time,x0,y,f,simple_regret,best_y,branch,source\n";
  write(sweep / "a" / "observations.csv",
        header + "0,0,1.0,0,0,0,0.5,0,init,-1\n0,1,1.0,0,0,0,0.3,0,local,-1\n"
                 "1,0,2.0,0,0,0,0.2,0,init,-1\n0,2,3.0,0,0,0,0.05,0,local,-1\n"
                 "1,1,4.0,0,0,0,0.01,0,local,-1\n");
  write(sweep / "b" / "observations.csv",
        header + "0,0,1.0,0,0,0,0.5,0,init,-1\n1,0,1.0,0,0,0,0.4,0,init,-1\n");
  for (const auto& [threshold, expected] :
       std::vector<std::pair<std::string, std::string>>{{"0.1", "4.0"}, {"0.2", "3.0"},
                                                        {"0.26", "2.0"}}) {
    INFO("threshold " << threshold);
    const fs::path out = fresh_dir("study-metrics-" + threshold + ".csv");
    REQUIRE(results_page("--study-metrics " + sweep.string() + " --threshold " + threshold +
                         " --out " + out.string()) == 0);
    const auto rows = read_table(out);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].at("policy") == "sync");
    CHECK(std::stod(rows[0].at("time_to_threshold")) == std::stod(expected));
    CHECK(rows[0].at("agents_observing") == "2");
    CHECK(rows[1].at("time_to_threshold").empty());  // never
  }
}
