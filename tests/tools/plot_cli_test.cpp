#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
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

/// Every image is there, in the format asked for and no other, is what its name says, and is
/// listed in plots.json; plots.json lists no other.
void check_images(const fs::path& dir, const std::vector<std::string>& names,
                  const std::string& format = "png") {
  const auto shown = nlohmann::json::parse(slurp(dir / "plots.json"));
  CHECK(shown["format"] == format);
  std::set<std::string> listed;
  for (const auto& f : shown["figures"]) listed.insert(f["name"].get<std::string>());
  CHECK(listed == std::set<std::string>(names.begin(), names.end()));
  for (const std::string& name : names) {
    INFO(name);
    const std::string image = slurp(dir / (name + "." + format));
    if (format == "png") CHECK(image.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
    if (format == "pdf") CHECK(image.rfind("%PDF-", 0) == 0);
    if (format == "svg") {
      CHECK((image.rfind("<?xml", 0) == 0 || image.rfind("<svg", 0) == 0));
      CHECK(image.find("</svg>") != std::string::npos);
    }
    for (const char* other : {"png", "pdf", "svg"})
      if (other != format) CHECK_FALSE(fs::exists(dir / (name + "." + other)));
  }
}

/// plot_data.csv's rows by column name: a label holding a comma ("fts-de, q = 0.25") is quoted,
/// as Python's csv module (and pandas) write and read it.
std::vector<std::map<std::string, std::string>> read_plot_data(const fs::path& path) {
  std::istringstream in(slurp(path));
  auto cells = [](const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t k = 0; k < line.size(); ++k) {
      const char c = line[k];
      if (c == '"' && quoted && k + 1 < line.size() && line[k + 1] == '"') out.back() += line[++k];
      else if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) out.emplace_back();
      else out.back() += c;
    }
    return out;
  };
  std::string line;
  std::getline(in, line);
  const auto header = cells(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto row = cells(line);
    REQUIRE(row.size() == header.size());
    rows.emplace_back();
    for (std::size_t k = 0; k < row.size(); ++k) rows.back()[header[k]] = row[k];
  }
  return rows;
}

/// A PNG's width and height in pixels (its IHDR chunk).
std::pair<unsigned long, unsigned long> png_size(const fs::path& path) {
  const std::string png = slurp(path);
  REQUIRE(png.size() > 24);
  auto be32 = [&](std::size_t at) {
    unsigned long v = 0;
    for (std::size_t k = at; k < at + 4; ++k) v = (v << 8) | static_cast<unsigned char>(png[k]);
    return v;
  };
  return {be32(16), be32(20)};
}

/// plots.json's entry for a figure.
nlohmann::json figure(const fs::path& dir, const std::string& name) {
  const auto shown = nlohmann::json::parse(slurp(dir / "plots.json"));  // outlives the loop
  for (const auto& f : shown["figures"])
    if (f["name"] == name) return f;
  FAIL("no figure " << name << " in plots.json");
  return {};
}

/// Checks a plot's rows for one label against the mean over runs of step functions (time,
/// value) on 200 evenly spaced times up to the last time of any: a run counts from its first
/// time and keeps its last value after its end. Returns how many points there were.
std::size_t check_time_grid(const std::vector<std::map<std::string, std::string>>& data,
                            const std::string& plot, const std::string& label,
                            const std::vector<std::map<double, double>>& runs) {
  INFO(plot << " / " << label);
  double end = 0.0;
  for (const auto& r : runs) end = std::max(end, r.rbegin()->first);
  REQUIRE(end > 0);
  std::vector<std::map<std::string, std::string>> rows;
  for (const auto& row : data)
    if (row.at("plot") == plot && row.at("label") == label) rows.push_back(row);
  std::size_t k = 0;
  for (int i = 0; i < 200; ++i) {
    const double t = end * i / 199.0;
    std::vector<double> xs;
    for (const auto& line : runs) {
      auto it = line.upper_bound(t);
      if (it != line.begin()) xs.push_back(std::prev(it)->second);
    }
    if (xs.empty()) continue;  // no run has started yet
    INFO("t = " << t);
    REQUIRE(k < rows.size());
    CHECK(close(std::stod(rows[k].at("x")), t, 1e-6));
    CHECK(close(std::stod(rows[k].at("y")), mean_se(xs).mean, 1e-8));
    CHECK(rows[k].at("n") == std::to_string(xs.size()));
    ++k;
  }
  CHECK(k == rows.size());
  return k;
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
  // Agents that finish their iterations leave the count of those alive: alive is drawn too.
  check_images(out, {"regret", "regret_time", "privacy_utility", "alive", "stragglers", "staleness"});
  const auto data = read_plot_data(out / "plot_data.csv");
  bool some_late = false;
  for (const std::string deadline : {"0.5", "1"}) {
    const std::string label = "deadline = " + deadline;  // the grid point policy.deadline=...
    const fs::path point = sweep / ("policy.deadline=" + deadline);
    std::vector<fs::path> runs = {point / "seed=1", point / "seed=2"};

    // Regret: the mean over agents per run, then mean and standard error over seeds.
    std::vector<std::vector<double>> curves;
    for (const auto& r : runs) curves.push_back(regret_curve(r));
    std::vector<MeanSe> regret;
    for (std::size_t t = 0; t < curves[0].size(); ++t) regret.push_back(mean_se({curves[0][t], curves[1][t]}));
    check_points(data, "regret", label, regret);

    // Regret against virtual time: 200 evenly spaced times up to the label's last observation;
    // a run counts from the time all its agents have observed, and keeps its final value.
    const std::size_t k =
        check_time_grid(data, "regret_time", label, {regret_timeline(runs[0]), regret_timeline(runs[1])});
    CHECK(k > 10);
    CHECK(k < 200);  // the points before every agent has observed are left out

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
  // tiny's network is perfect: no time passes, nobody is late, dropped or dies, so those
  // figures would be empty and are not drawn (they were, with negative counts on the axis).
  check_images(out, {"regret", "privacy_utility"});
  for (const char* name : {"regret_time", "stragglers", "staleness", "alive", "too_stale"}) {
    INFO(name);
    CHECK_FALSE(fs::exists(out / (std::string(name) + ".png")));
    CHECK(p.output.find(std::string(name) + " not drawn") != std::string::npos);
  }
  const auto data = read_plot_data(out / "plot_data.csv");
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
  check_points(read_plot_data(out / "plot_data.csv"), "regret", "fts", expected);
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
  for (const auto& r : read_plot_data(out / "plot_data.csv"))
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

TEST_CASE("fedsim plot names grid points by their values, titles the scenario, keeps colours",
          "[cli][plot]") {
  require_matplotlib();
  const fs::path sweep = fresh_dir("plot-labels");
  const auto s = run_fedsim("sweep " + (scenarios / "tiny.toml").string() +
                            " --grid algorithm.q=0.25,0.5 --grid algorithm.name=dp-fts,dp-fts-de "
                            "--seeds 2 --jobs 2 --quiet --out " + sweep.string());
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const fs::path out = fresh_dir("plot-labels-out");
  const auto p = run_fedsim("plot " + sweep.string() + " --log-y --out " + out.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  check_images(out, {"regret", "privacy_utility"});
  // The raw "algorithm.q=0.25 algorithm.name=dp-fts" reads "dp-fts, q = 0.25": the name first.
  const std::set<std::string> labels = {"dp-fts, q = 0.25", "dp-fts-de, q = 0.25",
                                        "dp-fts, q = 0.5", "dp-fts-de, q = 0.5"};
  std::set<std::string> plotted;
  for (const auto& row : read_plot_data(out / "plot_data.csv"))
    if (row.at("plot") == "regret") plotted.insert(row.at("label"));
  CHECK(plotted == labels);
  // The title: the scenario with N and T from summary.json (tiny: N = 8, T = 5).
  const auto shown = nlohmann::json::parse(slurp(out / "plots.json"));
  CHECK(shown["title"] == "tiny (N = 8, T = 5)");
  CHECK(shown["log_y"] == true);
  std::map<std::string, std::string> colour;  // label -> colour, the same in every figure
  for (const char* name : {"regret", "privacy_utility"}) {
    const auto f = figure(out, name);
    INFO(name);
    CHECK(f["title"] == "tiny (N = 8, T = 5)");
    CHECK(f["yscale"] == "log");
    REQUIRE(f["legend"].size() == 4);
    for (const auto& entry : f["legend"]) {
      const std::string shown_label = entry[0], c = entry[1];
      // The regret legend adds the mean eps of private runs: "dp-fts, q = 0.25 (ε = ...)".
      const std::string label = shown_label.substr(0, shown_label.find(" (ε = "));
      CHECK(labels.count(label) == 1);
      if (std::string(name) == "regret") CHECK(shown_label.find(" (ε = ") != std::string::npos);
      const auto [it, fresh] = colour.emplace(label, c);
      CHECK(it->second == c);
    }
  }
  std::set<std::string> distinct;
  for (const auto& [label, c] : colour) distinct.insert(c);
  CHECK(distinct.size() == 4);

  // A label before the values; "" leaves them alone; --no-title: no title; linear by default.
  const fs::path out2 = fresh_dir("plot-labels-out2");
  const auto p2 = run_fedsim("plot " + sweep.string() + " " + sweep.string() +
                             " --label '' --label mine --no-title --out " + out2.string());
  INFO(p2.output);
  REQUIRE(p2.exit_code == 0);
  std::set<std::string> twice;
  for (const auto& row : read_plot_data(out2 / "plot_data.csv"))
    if (row.at("plot") == "regret") twice.insert(row.at("label"));
  CHECK(twice.count("dp-fts, q = 0.25") == 1);
  CHECK(twice.count("mine, dp-fts, q = 0.25") == 1);
  CHECK(twice.size() == 8);
  const auto regret = figure(out2, "regret");
  CHECK(regret["title"] == "");
  CHECK(regret["yscale"] == "linear");
  // More than four labels: the legend goes below the axes, not beside them: the image is no
  // wider than the one with four labels inside, and taller.
  const auto [w8, h8] = png_size(out2 / "regret.png");
  const auto [w4, h4] = png_size(out / "regret.png");
  CHECK(w8 <= w4 + 60);
  CHECK(h8 > h4 + 60);
}

TEST_CASE("fedsim plot --format pdf and svg write only that format, the same bytes every time",
          "[cli][plot]") {
  require_matplotlib();
  const fs::path run = fresh_dir("plot-format");
  REQUIRE(run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " + run.string())
              .exit_code == 0);
  for (const std::string format : {"pdf", "svg", "png"}) {
    INFO(format);
    const fs::path a = fresh_dir("plot-format-" + format + "-a"), b = fresh_dir("plot-format-" + format + "-b");
    for (const auto& out : {a, b}) {
      const auto p = run_fedsim("plot " + run.string() + " --format " + format + " --out " + out.string());
      INFO(p.output);
      REQUIRE(p.exit_code == 0);
    }
    check_images(a, {"regret", "privacy_utility"}, format);
    for (const std::string& name : {"regret." + format, "privacy_utility." + format, std::string("plot_data.csv"),
                                   std::string("plots.json")})
      CHECK(slurp(a / name) == slurp(b / name));
  }
}

TEST_CASE("fedsim plot draws agents alive over time and the async runs' too-stale vectors",
          "[cli][plot]") {
  require_matplotlib();
  const fs::path sweep = fresh_dir("plot-alive");
  const auto s = run_fedsim(
      "sweep " + (scenarios / "stragglers/study/base.toml").string() +
      " --set world.agents=30 --set algorithm.iterations=10 --set policy.async_every=5"
      " --set policy.max_staleness=1 --set 'world.network.crashes=[{fraction=0.3,time=5.0,recover=inf}]'"
      " --grid policy.kind=sync,async --seeds 2 --jobs 2 --quiet --out " + sweep.string());
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const fs::path out = fresh_dir("plot-alive-out");
  const auto p = run_fedsim("plot " + sweep.string() + " --out " + out.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  const auto data = read_plot_data(out / "plot_data.csv");
  double too_stale = 0;
  for (const std::string policy : {"sync", "async"}) {
    const fs::path point = sweep / ("policy.kind=" + policy);
    std::vector<std::map<double, double>> alive;
    std::vector<std::vector<double>> dropped;
    for (const char* seed : {"seed=1", "seed=2"}) {
      alive.emplace_back();
      dropped.emplace_back();
      for (const auto& r : read_table(point / seed / "rounds.csv")) {
        alive.back()[std::stod(r.at("time"))] = std::stod(r.at("alive"));
        dropped.back().push_back(std::stod(r.at("dropped")));
      }
    }
    // Agents alive: rounds.csv's column on the time grid, like regret_time.
    CHECK(check_time_grid(data, "alive", policy, alive) > 10);
    // Async's dropped vectors (too stale) in too_stale, the others' in stragglers' dropped.
    std::vector<MeanSe> expected;
    for (std::size_t k = 0; k < std::max(dropped[0].size(), dropped[1].size()); ++k) {
      std::vector<double> xs;
      for (const auto& d : dropped)
        if (k < d.size()) xs.push_back(d[k]);
      expected.push_back(mean_se(xs));
      if (policy == "async") too_stale += expected.back().mean;
    }
    if (policy == "async") {
      check_points(data, "too_stale", policy, expected);
    } else {
      // Sync waits for every live agent: nothing late or dropped, so no stragglers figure.
      for (const auto& e : expected) CHECK(e.mean == 0);
      check_points(data, "dropped", policy, {});
    }
    check_points(data, policy == "async" ? "dropped" : "too_stale", policy, {});
  }
  CHECK(too_stale > 0);  // else too_stale would not be drawn, and this checked nothing
  check_images(out, {"regret", "regret_time", "privacy_utility", "alive", "too_stale"});
  CHECK(figure(out, "alive")["xlabel"] == "virtual time (s)");
}

TEST_CASE("fedsim plot refuses a bad --format with exit code 2, in one line", "[cli][plot]") {
  const fs::path run = fresh_dir("plot-bad-format");
  REQUIRE(run_fedsim("run " + (scenarios / "tiny.toml").string() + " --quiet --out " + run.string())
              .exit_code == 0);
  for (const std::string format : {"jpg", "PNG", "''"}) {
    INFO(format);
    const auto r = run_fedsim("plot " + run.string() + " --format " + format);
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind("fedsim: error: --format", 0) == 0);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(run / "plots"));  // refused before anything was written
}
