#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
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

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

/// The mean over agents of simple regret after iterations 0..T, recomputed from a run's
/// observations.csv: each agent's last value carries over iterations it did not run. Only the
/// learners count (FTS's target alone when the others are peers).
std::vector<double> regret_curve(const fs::path& run) {
  const auto summary = nlohmann::json::parse(slurp(run / "summary.json"));
  const int agents = summary["learners"], iterations = summary["iterations"];
  std::vector<std::vector<double>> regret(agents, std::vector<double>(iterations + 1, -1.0));
  for (const auto& o : read_table(run / "observations.csv")) {
    const int a = std::stoi(o.at("agent")), t = std::stoi(o.at("iteration"));
    if (t >= 0 && t <= iterations) regret[a][t] = std::stod(o.at("simple_regret"));
  }
  std::vector<double> curve(iterations + 1, 0.0);
  for (int a = 0; a < agents; ++a) {
    double last = 0.0;
    for (int t = 0; t <= iterations; ++t) {
      if (regret[a][t] >= 0) last = regret[a][t];
      curve[t] += last / agents;
    }
  }
  return curve;
}

/// A run's mean simple regret over virtual time: at each distinct time of observations.csv
/// (once every agent that observes has observed), the mean of each agent's latest regret.
std::map<double, double> regret_timeline(const fs::path& run) {
  std::map<double, std::map<int, double>> by_time;  // time -> agent -> its last regret then
  std::set<int> agents;
  for (const auto& o : read_table(run / "observations.csv")) {
    const int a = std::stoi(o.at("agent"));
    by_time[std::stod(o.at("time"))][a] = std::stod(o.at("simple_regret"));
    agents.insert(a);
  }
  std::map<int, double> latest;
  std::map<double, double> out;
  for (const auto& [t, updates] : by_time) {
    for (const auto& [a, r] : updates) latest[a] = r;
    if (latest.size() < agents.size()) continue;
    double sum = 0.0;
    for (const auto& [a, r] : latest) sum += r;
    out[t] = sum / static_cast<double>(agents.size());
  }
  return out;
}

/// How many rounds late each "late" event of a run was: the rounds closed (rounds.csv) by the
/// event's time minus the report's round.
std::vector<int> staleness(const fs::path& run) {
  std::vector<double> closed;
  for (const auto& r : read_table(run / "rounds.csv")) closed.push_back(std::stod(r.at("time")));
  std::sort(closed.begin(), closed.end());
  std::vector<int> out;
  std::istringstream in(slurp(run / "events.jsonl"));
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] != "late") continue;
    const auto current = std::upper_bound(closed.begin(), closed.end(), e["time"].get<double>()) - closed.begin();
    out.push_back(std::max<int>(1, static_cast<int>(current) - e["round"].get<int>()));
  }
  return out;
}

struct MeanSe {
  double mean, se;
};

MeanSe mean_se(const std::vector<double>& xs) {
  double mean = 0.0;
  for (double x : xs) mean += x / static_cast<double>(xs.size());
  if (xs.size() < 2) return {mean, std::nan("")};
  double ss = 0.0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / static_cast<double>(xs.size() - 1) / static_cast<double>(xs.size()))};
}

bool close(double a, double b, double rel = 1e-9) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)) + 1e-15;
}

/// Checks a plot's (x, y, se) for one label against expected values at x = 0, 1, ...
void check_points(const std::vector<std::map<std::string, std::string>>& data, const std::string& plot,
                  const std::string& label, const std::vector<MeanSe>& expected, std::size_t x0 = 0) {
  INFO(plot << " / " << label);
  std::vector<std::map<std::string, std::string>> rows;
  for (const auto& r : data)
    if (r.at("plot") == plot && r.at("label") == label) rows.push_back(r);
  REQUIRE(rows.size() == expected.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    INFO("x = " << rows[k].at("x"));
    CHECK(std::stoul(rows[k].at("x")) == x0 + k);
    CHECK(close(std::stod(rows[k].at("y")), expected[k].mean));
    if (std::isnan(expected[k].se)) {
      CHECK(rows[k].at("se").empty());
    } else {
      CHECK(close(std::stod(rows[k].at("se")), expected[k].se));
    }
  }
}

/// Every image is there and is what its name says.
void check_images(const fs::path& dir,
                  const std::vector<std::string>& names = {"regret", "regret_time",
                                                           "privacy_utility", "stragglers",
                                                           "staleness"}) {
  for (const std::string& name : names) {
    INFO(name);
    const std::string png = slurp(dir / (name + ".png"));
    CHECK(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
    const std::string svg = slurp(dir / (name + ".svg"));
    CHECK((svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0));
    CHECK(svg.find("</svg>") != std::string::npos);
  }
}

/// The plot command needs matplotlib: say so plainly instead of failing later on.
void require_matplotlib() {
  const std::string python = fedsim::test::python_interpreter();
  const int rc = std::system((python + " -c 'import matplotlib, numpy' >/dev/null 2>&1").c_str());
  if (rc != 0)
    FAIL(python + " cannot import matplotlib and numpy, which fedsim plot needs: run tools/setup "
                  "(Debian's python3-matplotlib, python3-numpy) or set FEDSIM_PYTHON");
}

}  // namespace

TEST_CASE("fedsim plot draws a sweep folder from its runs' files", "[cli][plot]") {
  require_matplotlib();
  // Stragglers with a deadline: late reports exist, so every view has numbers to check.
  const fs::path sweep = fresh_dir("plot-sweep");
  const auto s = run_fedsim("sweep " + (scenarios / "stragglers/deadline.toml").string() +
                            " --set world.agents=12 --set algorithm.iterations=6 --grid "
                            "policy.deadline=0.5,1 --seeds 2 --jobs 2 --quiet --out " + sweep.string());
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const fs::path out = fresh_dir("plot-sweep-out");
  const auto p = run_fedsim("plot " + sweep.string() + " --out " + out.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  check_images(out);
  const auto data = read_table(out / "plot_data.csv");
  bool some_late = false;
  for (const std::string deadline : {"0.5", "1"}) {
    const std::string label = "policy.deadline=" + deadline;
    std::vector<fs::path> runs = {sweep / label / "seed=1", sweep / label / "seed=2"};

    // Regret: the mean over agents per run, then mean and standard error over seeds.
    std::vector<std::vector<double>> curves;
    for (const auto& r : runs) curves.push_back(regret_curve(r));
    std::vector<MeanSe> regret;
    for (std::size_t t = 0; t < curves[0].size(); ++t) regret.push_back(mean_se({curves[0][t], curves[1][t]}));
    check_points(data, "regret", label, regret);

    // Regret against virtual time: 200 evenly spaced times up to the label's last observation;
    // a run counts from the time all its agents have observed, and keeps its final value.
    const auto t1 = regret_timeline(runs[0]), t2 = regret_timeline(runs[1]);
    const double end = std::max(t1.rbegin()->first, t2.rbegin()->first);
    REQUIRE(end > 0);
    std::vector<std::map<std::string, std::string>> timed;
    for (const auto& row : data)
      if (row.at("plot") == "regret_time" && row.at("label") == label) timed.push_back(row);
    std::size_t k = 0;
    for (int i = 0; i < 200; ++i) {
      const double t = end * i / 199.0;
      std::vector<double> xs;
      for (const auto* line : {&t1, &t2}) {
        auto it = line->upper_bound(t);
        if (it != line->begin()) xs.push_back(std::prev(it)->second);
      }
      if (xs.empty()) continue;  // no run has all its agents observed yet
      INFO("t = " << t);
      REQUIRE(k < timed.size());
      CHECK(close(std::stod(timed[k].at("x")), t, 1e-6));
      const MeanSe expected = mean_se(xs);
      CHECK(close(std::stod(timed[k].at("y")), expected.mean, 1e-8));
      CHECK(timed[k].at("n") == std::to_string(xs.size()));
      ++k;
    }
    CHECK(k == timed.size());
    CHECK(k > 10);  // the points before every agent has observed are left out

    // Late reports per round (rounds.csv), over the rounds both seeds have or one has.
    std::vector<std::vector<double>> late;
    for (const auto& r : runs) {
      late.emplace_back();
      for (const auto& row : read_table(r / "rounds.csv")) late.back().push_back(std::stod(row.at("late")));
    }
    std::vector<MeanSe> late_points;
    for (std::size_t k = 0; k < std::max(late[0].size(), late[1].size()); ++k) {
      std::vector<double> xs;
      for (const auto& l : late)
        if (k < l.size()) xs.push_back(l[k]);
      late_points.push_back(mean_se(xs));
    }
    check_points(data, "late", label, late_points);

    // Staleness histogram: mean count per run of reports k = 1, 2, ... rounds late.
    std::vector<std::vector<int>> stale = {staleness(runs[0]), staleness(runs[1])};
    int top = 0;
    for (const auto& st : stale)
      for (int v : st) top = std::max(top, v);
    some_late = some_late || top > 0;
    std::vector<MeanSe> hist;
    for (int k = 1; k <= top; ++k)
      hist.push_back(mean_se({static_cast<double>(std::count(stale[0].begin(), stale[0].end(), k)),
                              static_cast<double>(std::count(stale[1].begin(), stale[1].end(), k))}));
    check_points(data, "staleness", label, hist, 1);

    // Privacy-utility: mean eps and final regret over the seeds (summary.json).
    std::vector<double> eps, final;
    for (const auto& r : runs) {
      const auto summary = nlohmann::json::parse(slurp(r / "summary.json"));
      eps.push_back(summary["epsilon"].get<double>());
      final.push_back(summary["mean_final_simple_regret"].get<double>());
    }
    for (const auto& row : data)
      if (row.at("plot") == "privacy_utility" && row.at("label") == label) {
        CHECK(close(std::stod(row.at("x")), mean_se(eps).mean));
        CHECK(close(std::stod(row.at("y")), mean_se(final).mean));
        CHECK(close(std::stod(row.at("se")), mean_se(final).se));
      }
  }
  CHECK(some_late);  // else the staleness check above checked nothing
}

TEST_CASE("fedsim plot draws a single run folder", "[cli][plot]") {
  require_matplotlib();
  const fs::path run = fresh_dir("plot-run");
  REQUIRE(run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " + run.string())
              .exit_code == 0);
  const fs::path out = fresh_dir("plot-run-out");
  const auto p = run_fedsim("plot " + run.string() + " --label tiny --out " + out.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  check_images(out, {"regret", "privacy_utility", "stragglers", "staleness"});
  CHECK(!fs::exists(out / "regret_time.png"));  // tiny's network is perfect: no time passes
  CHECK(p.output.find("regret_time not drawn") != std::string::npos);
  const auto data = read_table(out / "plot_data.csv");
  std::vector<MeanSe> expected;
  for (double y : regret_curve(run)) expected.push_back({y, std::nan("")});  // one seed: no se
  check_points(data, "regret", "tiny", expected);
  // It is the curve of summary.json (up to the 10 digits observations.csv keeps).
  const auto summary = nlohmann::json::parse(slurp(run / "summary.json"));
  const auto& curve = summary["mean_simple_regret_by_iteration"];
  REQUIRE(curve.size() == expected.size());
  for (std::size_t t = 0; t < expected.size(); ++t) CHECK(close(expected[t].mean, curve[t].get<double>(), 1e-8));
}

TEST_CASE("fedsim plot draws the target's regret in FTS's target-agent setting", "[cli][plot]") {
  require_matplotlib();
  const fs::path run = fresh_dir("plot-target");
  REQUIRE(run_fedsim("run " + (scenarios / "papers" / "fts-fig1.toml").string() +
                     " --set world.agents=6 --set algorithm.iterations=8 --set "
                     "world.objective.grid_size=200 --quiet --out " + run.string())
              .exit_code == 0);
  const fs::path out = fresh_dir("plot-target-out");
  const auto p = run_fedsim("plot " + run.string() + " --label fts --out " + out.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  // The target's own regret, not a mean diluted by the 5 peers (who record nothing).
  std::vector<MeanSe> expected(9, {std::nan(""), std::nan("")});
  for (const auto& o : read_table(run / "observations.csv")) {
    REQUIRE(o.at("agent") == "0");
    const int t = std::stoi(o.at("iteration"));
    if (t >= 0) expected[t].mean = std::stod(o.at("simple_regret"));
  }
  check_points(read_table(out / "plot_data.csv"), "regret", "fts", expected);
}

TEST_CASE("fedsim plot draws an HCT sweep (the baseline's curve) thinned to 1000 steps",
          "[cli][plot]") {
  require_matplotlib();
  const fs::path hct = fresh_dir("plot-hct");
  REQUIRE(run_fedsim("sweep " + (fs::path(FEDSIM_SCENARIO_DIR) / "papers/hct-garland.toml").string() +
                     " --driver loop --set world.agents=2 --set algorithm.budget=2500 --seeds 2 "
                     "--quiet --out " + hct.string())
              .exit_code == 0);
  const fs::path out = fresh_dir("plot-hct-out");
  const auto p = run_fedsim("plot " + hct.string() + " --label hct --out " + out.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  // Each seed's curve: one row per evaluation (client 0).
  std::vector<std::map<long, double>> seeds;
  for (const char* seed : {"seed=1", "seed=2"}) {
    seeds.emplace_back();
    for (const auto& r : read_table(hct / seed / "observations.csv"))
      seeds.back()[std::stol(r.at("step"))] = std::stod(r.at("cumulative_regret"));
    REQUIRE(seeds.back().size() == 2500);
  }
  std::vector<std::map<std::string, std::string>> points;
  for (const auto& r : read_table(out / "plot_data.csv"))
    if (r.at("plot") == "cumulative_regret" && r.at("label") == "hct") points.push_back(r);
  REQUIRE(points.size() == 1000);
  CHECK(points.front().at("x") == "1");
  CHECK(points.back().at("x") == "2500");
  long previous = 0;
  for (const auto& pt : points) {
    const long step = std::stol(pt.at("x"));
    CHECK(step > previous);
    CHECK(step - previous <= 3);  // evenly spaced: 2500 steps in 1000 points
    previous = step;
    const double a = seeds[0].at(step), b = seeds[1].at(step);
    CHECK(close(std::stod(pt.at("y")), (a + b) / 2, 1e-12));
    CHECK(close(std::stod(pt.at("se")), std::abs(a - b) / 2, 1e-9));  // sd / sqrt(2), n = 2
    CHECK(pt.at("n") == "2");
  }
}

TEST_CASE("fedsim plot rejects folders that are not runs or sweeps with exit code 2", "[cli][plot]") {
  const fs::path empty = fresh_dir("plot-empty");
  fs::create_directories(empty);
  for (const std::string& args : std::vector<std::string>{
           "plot " + empty.string(), "plot /no/such/folder",
           "plot " + empty.string() + " " + empty.string() + " --label a"}) {
    INFO(args);
    const auto r = run_fedsim(args);
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}
