// Benchmark: what the network adds in wall-clock time (run.time = "wall", docs/wall-clock.md).
// Runs the shipped scenarios/wall/deadline-chaos.toml (16 agents, loss, crashes, deadline) at
// several time scales and prints, per run, the lateness of its deliveries (the real time a
// message was delivered minus the real time it was due: median and 99th percentile, as
// summary.json's "clock" reports them), the same p99 in model seconds, and the share of the
// run's real time the model accounts for. Per scale it reports the middle run (by p99) of the
// repeats. Nothing is asserted on time. With --json FILE it also writes the measurements and
// their circumstances (version, commit, date, machine, load, build): docs/bench-wall-clock.json,
// which tools/reproduce --bench writes and tools/results_page.py renders on docs/results.md.
// Release build; run from anywhere:
//   build/tools/bench_wall_clock_lateness [--scale S ...] [--repeats R] [--threads T] [--json FILE]
// (default scales 0.25 (the scenario's own), 0.05 and 0.01; 3 repeats; 2 threads).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tools/bench/circumstances.hpp"

using namespace fedsim;
using nlohmann::json;

namespace {

struct Measure {
  double median, p99, model_time, wall_time;
  std::uint64_t delivered;
};

Measure run_once(const scenario::ScenarioConfig& c, int threads) {
  actors::RunOptions opt;
  opt.out_dir = (std::filesystem::temp_directory_path() / "fedsim-bench-wall").string();
  opt.threads = threads;
  const actors::RunResult r = actors::run_federation(c, opt);
  return {r.network.lateness_median, r.network.lateness_p99, r.network.final_time, r.wall_time,
          r.network.delivered};
}

json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> scales;
  int repeats = 3, threads = 2;
  std::string json_out;
  std::string command = "build/tools/bench_wall_clock_lateness";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) scales.push_back(std::atof(argv[++i]));
    else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_out = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--scale S ...] [--repeats R] [--threads T] [--json FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  if (scales.empty()) scales = {0.25, 0.05, 0.01};
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s)) {
      std::fprintf(stderr, "bench_wall_clock_lateness: --scale must be finite and > 0\n");
      return 2;
    }
  if (repeats < 1 || threads < 1) {
    std::fprintf(stderr, "bench_wall_clock_lateness: --repeats and --threads must be >= 1\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  json report = fedsim::bench::report_header(command);
  report["scenario"] = "scenarios/wall/deadline-chaos.toml";
  report["repeats"] = repeats;
  report["threads"] = threads;
  report["scales"] = json::array();

  const std::string file =
      (std::filesystem::path(FEDSIM_SOURCE_DIR) / "scenarios/wall/deadline-chaos.toml").string();
  std::printf("fedsim wall-clock delivery lateness: %s (%s build, %d threads)\n", file.c_str(),
              FEDSIM_BUILD_TYPE, threads);
  std::printf("%-8s %-3s %10s %9s %9s %14s %14s %14s\n", "scale", "run", "delivered", "wall s",
              "model s", "median us", "p99 us", "p99 model ms");
  for (double scale : scales) {
    scenario::ScenarioConfig c = scenario::load_scenario(file);
    c.run.time_scale = scale;
    scenario::validate(c);
    report["agents"] = c.world.agents;
    report["iterations"] = c.algorithm.iterations;
    std::vector<Measure> runs;
    for (int k = 0; k < repeats; ++k) {
      const Measure m = run_once(c, threads);
      runs.push_back(m);
      std::printf("%-8g %-3d %10llu %9.2f %9.2f %14.1f %14.1f %14.3f\n", scale, k + 1,
                  static_cast<unsigned long long>(m.delivered), m.wall_time, m.model_time,
                  1e6 * m.median, 1e6 * m.p99, 1e3 * m.p99 / scale);
    }
    // The middle run by p99 (NaN, a run that delivered nothing, sorts last).
    std::sort(runs.begin(), runs.end(), [](const Measure& a, const Measure& b) {
      return std::isnan(b.p99) ? !std::isnan(a.p99) : a.p99 < b.p99;
    });
    const Measure& mid = runs[runs.size() / 2];
    std::printf("%-8g middle of %d runs: median %.1f us, p99 %.1f us (%.3f%% of a model second)\n\n",
                scale, repeats, 1e6 * mid.median, 1e6 * mid.p99, 100 * mid.p99 / scale);
    report["scales"].push_back({{"time_scale", scale},
                                {"wall_s", number(mid.wall_time)},
                                {"model_s", number(mid.model_time)},
                                {"delivered", mid.delivered},
                                {"lateness_median_s", number(mid.median)},
                                {"lateness_p99_s", number(mid.p99)}});
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!json_out.empty() && !fedsim::bench::finish_report(report, wall, json_out)) {
    std::fprintf(stderr, "bench_wall_clock_lateness: cannot write %s\n", json_out.c_str());
    return 1;
  }
  return 0;
}
