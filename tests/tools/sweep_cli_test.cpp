#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_rows;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// Mean and standard error (sample sd / sqrt(n)) of two or more values.
std::pair<double, double> mean_se(const std::vector<double>& xs) {
  double mean = 0.0;
  for (double x : xs) mean += x / static_cast<double>(xs.size());
  double ss = 0.0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / static_cast<double>(xs.size() - 1) / static_cast<double>(xs.size()))};
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)) + 1e-300; }

const std::vector<std::string> qs = {"0.25", "0.5"};
const std::vector<std::string> names = {"fts-de", "dp-fts-de"};

fs::path run_folder(const fs::path& root, const std::string& q, const std::string& name, int seed) {
  return root / ("algorithm.q=" + q) / ("algorithm.name=" + name) / ("seed=" + std::to_string(seed));
}

}  // namespace

TEST_CASE("fedsim sweep runs a grid in parallel, aggregates over seeds and resumes", "[cli][sweep]") {
  const fs::path root = fresh_dir("sweep");
  const std::string command = "sweep " + (scenarios / "tiny.toml").string() +
                              " --grid algorithm.q=0.25,0.5 --grid algorithm.name=fts-de,dp-fts-de"
                              " --seeds 2 --jobs 2 --out " + root.string();
  const auto first = run_fedsim(command);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK(count(first.output, " done in ") == 8);
  CHECK(count(first.output, "skipped (complete)") == 0);
  CHECK(first.output.find("[8/8] ") != std::string::npos);

  for (const auto& q : qs)
    for (const auto& name : names)
      for (int seed : {1, 2})
        for (const char* f : {"summary.json", "observations.csv", "rounds.csv", "config.resolved.toml"})
          CHECK(fs::exists(run_folder(root, q, name, seed) / f));

  // A run on a worker thread is the same run as `fedsim run` with those values.
  const fs::path single = fresh_dir("sweep-single");
  REQUIRE(run_fedsim("run " + (scenarios / "tiny.toml").string() +
                     " --set algorithm.q=0.5 --set algorithm.name=dp-fts-de --seed 2 --quiet --out " +
                     single.string()).exit_code == 0);
  CHECK(slurp(single / "observations.csv") ==
        slurp(run_folder(root, "0.5", "dp-fts-de", 2) / "observations.csv"));

  // sweep.csv: one row per grid point, mean and standard error over the seeds' summary.json.
  const auto rows = read_rows(root / "sweep.csv");
  const std::vector<std::string> header = {
      "algorithm.q", "algorithm.name", "runs",
      "mean_final_simple_regret_mean", "mean_final_simple_regret_se", "regret_area_mean",
      "regret_area_se", "cumulative_regret_mean", "cumulative_regret_se", "epsilon_mean",
      "epsilon_se", "messages_sent_mean", "messages_sent_se",
      "messages_dropped_mean", "messages_dropped_se", "virtual_time_mean", "virtual_time_se",
      "communication_rounds_mean", "communication_rounds_se", "nodes_sent_per_client_mean",
      "nodes_sent_per_client_se", "nodes_received_per_client_mean",
      "nodes_received_per_client_se", "mean_best_observed_mean", "mean_best_observed_se"};
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] == header);
  std::size_t r = 1;
  for (const auto& q : qs)
    for (const auto& name : names) {
      INFO(q << " " << name);
      const auto& row = rows[r++];
      REQUIRE(row.size() == header.size());
      CHECK(row[0] == q);
      CHECK(row[1] == name);
      CHECK(row[2] == "2");
      std::vector<double> final, area, eps, sent, dropped, vtime;
      for (int seed : {1, 2}) {
        const auto s = nlohmann::json::parse(slurp(run_folder(root, q, name, seed) / "summary.json"));
        CHECK(s["seed"] == seed);
        final.push_back(s["mean_final_simple_regret"].get<double>());
        double a = 0.0;
        for (const auto& v : s["mean_simple_regret_by_iteration"]) a += v.get<double>();
        area.push_back(a / static_cast<double>(s["mean_simple_regret_by_iteration"].size()));
        if (!s["epsilon"].is_null()) eps.push_back(s["epsilon"].get<double>());
        sent.push_back(s["messages"]["sent"].get<double>());
        dropped.push_back(s["messages"]["dropped"].get<double>());
        vtime.push_back(s["virtual_time"].get<double>());
      }
      const auto check_cells = [&row](std::size_t col, const std::vector<double>& xs) {
        INFO("column " << col);
        const auto [mean, se] = mean_se(xs);
        CHECK(close(std::stod(row[col]), mean));
        CHECK(close(std::stod(row[col + 1]), se));
      };
      check_cells(3, final);
      check_cells(5, area);
      CHECK(row[7].empty());  // a Fed-PNE metric: empty for FBO runs
      CHECK(row[8].empty());
      if (name == "dp-fts-de") {
        REQUIRE(eps.size() == 2);
        check_cells(9, eps);
      } else {  // no privacy cost: empty cells, NaN in pandas
        CHECK(row[9].empty());
        CHECK(row[10].empty());
      }
      check_cells(11, sent);
      check_cells(13, dropped);
      check_cells(15, vtime);
      for (std::size_t col = 17; col < 23; ++col)
        CHECK(row[col].empty());  // Fed-PNE's communication counts (loop driver): empty for FBO
      std::vector<double> best;
      for (int seed : {1, 2})
        best.push_back(nlohmann::json::parse(slurp(run_folder(root, q, name, seed) /
                                                   "summary.json"))["mean_best_observed"]
                           .get<double>());
      check_cells(23, best);
    }
  const auto runs = read_rows(root / "sweep_runs.csv");
  REQUIRE(runs.size() == 9);
  CHECK(runs[0][2] == "seed");
  CHECK(runs[0][6] == "cumulative_regret");
  CHECK(runs[0][3] == "folder");
  CHECK(runs[1][3] == "algorithm.q=0.25/algorithm.name=fts-de/seed=1");

  // Again: every run is complete, nothing runs, the table is byte for byte the same.
  const std::string table = slurp(root / "sweep.csv");
  const auto again = run_fedsim(command);
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(count(again.output, "skipped (complete)") == 8);
  CHECK(count(again.output, " done in ") == 0);
  CHECK(slurp(root / "sweep.csv") == table);

  // Without its summary.json a run is incomplete: only that one runs again.
  const fs::path other = run_folder(root, "0.25", "fts-de", 1) / "observations.csv";
  const auto before = fs::last_write_time(other);
  fs::remove(run_folder(root, "0.5", "fts-de", 2) / "summary.json");
  const auto resumed = run_fedsim(command);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(count(resumed.output, "skipped (complete)") == 7);
  CHECK(count(resumed.output, " done in ") == 1);
  CHECK(resumed.output.find("algorithm.q=0.5 algorithm.name=fts-de seed=2 done in") != std::string::npos);
  CHECK(fs::last_write_time(other) == before);
  CHECK(slurp(root / "sweep.csv") == table);

  // Other fixed settings make every folder stale: all run again.
  const auto changed = run_fedsim(command + " --set algorithm.iterations=4");
  INFO(changed.output);
  REQUIRE(changed.exit_code == 0);
  CHECK(count(changed.output, " done in ") == 8);
  CHECK(count(changed.output, "configuration changed") == 8);
  CHECK(nlohmann::json::parse(slurp(run_folder(root, "0.25", "fts-de", 1) / "summary.json"))["iterations"] == 4);
}

TEST_CASE("fedsim sweep rejects bad grids before running anything, with one line and exit code 2",
          "[cli][sweep]") {
  const std::string tiny = (scenarios / "tiny.toml").string();
  const struct {
    const char* args;
    const char* names;  // what the line must mention
  } cases[] = {
      {"--grid algorithm.qq=0.25,0.5", "algorithm.qq"},         // unknown key
      {"--grid algorithm.q=0.25,1.5", "--grid algorithm.q=1.5"},  // a bad value, not the first
      {"--grid algorithm.q=0.25,abc", "algorithm.q"},           // not a number
      {"--grid algorithm.q", "missing '='"},
      {"--grid algorithm.q=0.25,,0.5", "empty value"},
      {"--grid algorithm.q=0.25,0.25", "given twice"},
      {"--grid algorithm.q=0.25 --grid algorithm.q=0.5", "given twice"},
      {"--grid policy.kind=sync,fastest", "policy.kind"},
      {"--grid seed=1,2", "--seeds"},
      {"--seeds 0", "--seeds"},
      {"--jobs 0", "--jobs"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const fs::path root = fresh_dir("sweep-bad");
    const auto r = run_fedsim("sweep " + tiny + " " + c.args + " --out " + root.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
    CHECK(count(r.output, "\n") == 1);
    CHECK(r.output.find(c.names) != std::string::npos);
    CHECK_FALSE(fs::exists(root));  // nothing ran
  }
}

TEST_CASE("fedsim sweep aggregates Fed-PNE runs by their cumulative regret", "[cli][sweep]") {
  const fs::path root = fresh_dir("sweep-fedpne");
  const auto r = run_fedsim("sweep " + (fs::path(FEDSIM_SCENARIO_DIR) / "xarmed/dp-garland.toml").string() +
                            " --grid algorithm.dp_epsilon=0.5,2 --seeds 2 --jobs 2 --quiet"
                            " --set world.agents=5 --set algorithm.budget=1000 --out " +
                            root.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto rows = read_rows(root / "sweep.csv");
  REQUIRE(rows.size() == 3);
  for (std::size_t k = 1; k < 3; ++k) {
    // Columns: the grid key, runs, then mean and se of each metric.
    CHECK(rows[k][1] == "2");
    CHECK(rows[k][2].empty());                // no simple-regret curve in Fed-PNE runs
    CHECK(std::stod(rows[k][6]) > 0);         // cumulative_regret_mean
    CHECK(std::stod(rows[k][8]) == Approx(rows[k][0] == "0.5" ? 0.5 : 2.0));  // epsilon_mean
  }
}

TEST_CASE("fedsim sweep tabulates runs with no known optimum by their best observed value",
          "[cli][sweep]") {
  // A tuning objective has no optimum: its regret curve is nulls. The tables leave the regret
  // cells empty and give mean_best_observed (the last column pair).
  const fs::path root = fresh_dir("sweep-tuning");
  const auto r = run_fedsim(
      "sweep " + (fs::path(FEDSIM_SCENARIO_DIR) / "papers/real/svm-detection.toml").string() +
      " --grid algorithm.name=ts,fts-de --seeds 2 --jobs 2 --quiet --set world.agents=8"
      " --set algorithm.iterations=4 --set world.objective.samples=800 --out " + root.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto rows = read_rows(root / "sweep.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0][rows[0].size() - 2] == "mean_best_observed_mean");
  for (std::size_t k = 1; k < 3; ++k) {
    CHECK(rows[k][2].empty());  // mean_final_simple_regret_mean
    CHECK(rows[k][4].empty());  // regret_area_mean
    const double best = std::stod(rows[k][rows[k].size() - 2]);
    CHECK(best > 0.5);  // an AUC above chance
    CHECK(best <= 1.0);
  }
  const auto runs = read_rows(root / "sweep_runs.csv");
  REQUIRE(runs.size() == 5);
  CHECK(runs[0].back() == "mean_best_observed");
  for (std::size_t k = 1; k < 5; ++k) CHECK(std::stod(runs[k].back()) > 0.5);
}

TEST_CASE("fedsim sweep: a run that fails leaves its worker's actor system fit for the next runs",
          "[cli][sweep]") {
  // One worker runs everything in one actor system. Agent 5 throws at its first evaluation
  // (a test hook), so the runs with 8 agents fail and those with 4, which come after them on
  // the same worker, must still finish, with the outputs of a run alone.
  const fs::path root = fresh_dir("sweep-failing");
  const std::string command = "FEDSIM_DEBUG_FAIL_AGENT=5 " + fedsim::test::fedsim_binary() +
                              " sweep " + (scenarios / "tiny.toml").string() +
                              " --grid world.agents=8,4 --seeds 2 --jobs 1 --threads 1 --out " +
                              root.string();
  const auto r = fedsim::test::run_shell(command);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(count(r.output, "FAILED: agent 5") == 2);
  CHECK(count(r.output, " done in ") == 2);
  CHECK(r.output.find("2 of 4 runs failed") != std::string::npos);
  const fs::path alone = fresh_dir("sweep-failing-alone");
  REQUIRE(run_fedsim("run " + (scenarios / "tiny.toml").string() +
                     " --set world.agents=4 --seed 2 --threads 1 --quiet --out " + alone.string())
              .exit_code == 0);
  for (const char* f : {"observations.csv", "rounds.csv"})
    CHECK(slurp(alone / f) == slurp(root / "world.agents=4" / "seed=2" / f));
  CHECK_FALSE(fs::exists(root / "world.agents=8" / "seed=1" / "summary.json"));
}
