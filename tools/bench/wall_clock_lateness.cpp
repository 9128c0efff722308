// Benchmark: what the network adds in wall-clock time (run.time = "wall", docs/wall-clock.md).
// Runs the shipped scenarios/wall/deadline-chaos.toml (16 agents, loss, crashes, deadline) at
// several time scales and prints, per run, the lateness of its deliveries (the real time a
// message was delivered minus the real time it was due: median and 99th percentile, as
// summary.json's "clock" reports them), the same p99 in model seconds, and the share of the
// run's real time the model accounts for. Release build; run from anywhere:
//   build/tools/bench_wall_clock_lateness [--scale S ...] [--repeats R] [--threads T]
// (default scales 0.25 (the scenario's own), 0.05 and 0.01; 3 repeats; 2 threads).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"

using namespace fedsim;

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

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> scales;
  int repeats = 3, threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) scales.push_back(std::atof(argv[++i]));
    else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--scale S ...] [--repeats R] [--threads T]\n", argv[0]);
      return 2;
    }
  }
  if (scales.empty()) scales = {0.25, 0.05, 0.01};
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
    std::vector<double> medians, p99s;
    for (int k = 0; k < repeats; ++k) {
      const Measure m = run_once(c, threads);
      medians.push_back(m.median);
      p99s.push_back(m.p99);
      std::printf("%-8g %-3d %10llu %9.2f %9.2f %14.1f %14.1f %14.3f\n", scale, k + 1,
                  static_cast<unsigned long long>(m.delivered), m.wall_time, m.model_time,
                  1e6 * m.median, 1e6 * m.p99, 1e3 * m.p99 / scale);
    }
    std::sort(medians.begin(), medians.end());
    std::sort(p99s.begin(), p99s.end());
    std::printf("%-8g mid of %d runs: median %.1f us, p99 %.1f us (%.3f%% of a model second)\n\n",
                scale, repeats, 1e6 * medians[medians.size() / 2], 1e6 * p99s[p99s.size() / 2],
                100 * p99s[p99s.size() / 2] / scale);
  }
  return 0;
}
