// Benchmark (issue 15): the actor layer's cost against the plain loop as N grows, per event-log
// mode (output.events = all, faults, none) and scheduler thread count. DP-FTS-DE on a perfect
// network, sync policy, the synthetic objective of scenarios/dp-fts-de-synthetic.toml (M = 50,
// grid 1000). Every ratio divides an actor run's wall time by the plain loop's on the same
// work, both measured in this run; each cell is the median of --repeats runs. Release build.
// Two loops: the engine's loop alone (fbo::run_reference, no files), and the loop driver of
// `fedsim run --driver loop` (cli::run_loop), which also builds the objective and writes
// observations.csv and rounds.csv as the actors' recorder does: the like-for-like baseline of
// an actor run, whose outputs are written too.
//
//   build/tools/bench_actor_scaling [--agents 200,2000,10000] [--iterations T] [--repeats K]
//                                   [--memory-agents 1000,10000] [--json FILE]
//
// Defaults: N = 200, 2000 (T = 20) and 10000 (T = 10), 3 repeats (1 at N >= 10000). First,
// memory per agent: the peak RSS of one run (T = 2) at each of the two --memory-agents sizes,
// actors and loop, with each algorithm.posterior_memory, each in a forked process; the
// difference over the difference in N (--memory-agents "" skips it); and what keeping only
// the history costs in time: the loop at N = 2000, T = 20 with either setting.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/loader.hpp"
#include "tools/bench/circumstances.hpp"
#include "tools/bench/in_child.hpp"
#include "tools/fedsim/loop_driver.hpp"

using namespace fedsim;
using Clock = std::chrono::steady_clock;
using EventLog = scenario::OutputConfig::EventLog;

namespace {

scenario::ScenarioConfig perfect(int agents, int iterations, EventLog events,
                                 fbo::PosteriorMemory memory = fbo::PosteriorMemory::factor) {
  scenario::ScenarioConfig c;
  c.name = "bench-scaling";
  c.world.agents = agents;
  c.algorithm.algorithm = fbo::Algorithm::dp_fts_de;
  c.algorithm.iterations = iterations;
  c.algorithm.posterior_memory = memory;
  c.output.events = events;
  scenario::validate(c);
  return c;
}

double actors_seconds(const scenario::ScenarioConfig& c, int threads) {
  actors::RunOptions opt;
  opt.out_dir = (std::filesystem::temp_directory_path() / "fedsim-bench-scaling").string();
  std::filesystem::remove_all(opt.out_dir);
  opt.threads = threads;
  const auto start = Clock::now();
  actors::run_federation(c, opt);  // its outputs written, as a user's run writes them
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double loop_seconds(const scenario::ScenarioConfig& c) {
  const auto start = Clock::now();
  fbo::run_reference(scenario::reference_config(c));
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The loop driver, files and all, into a scratch folder (as `fedsim run --driver loop`).
double loop_driver_seconds(const scenario::ScenarioConfig& c) {
  const auto dir = std::filesystem::temp_directory_path() / "fedsim-bench-scaling-loop";
  std::filesystem::remove_all(dir);
  const auto start = Clock::now();
  cli::run_loop(c, dir);
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  std::filesystem::remove_all(dir);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

const char* name_of(EventLog e) {
  return e == EventLog::all ? "all" : e == EventLog::faults ? "faults" : "none";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> agents = {200, 2000, 10000};
  std::vector<int> memory_agents = {1000, 10000};
  int iterations = 0, repeats = 0;
  std::string json_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_actor_scaling: %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--agents") agents = parse_list(argv[++i]);
    else if (a == "--iterations") iterations = std::atoi(argv[++i]);
    else if (a == "--repeats") repeats = std::atoi(argv[++i]);
    else if (a == "--json") json_file = argv[++i];
    else if (a == "--memory-agents") memory_agents = parse_list(argv[++i]);
    else {
      std::fprintf(stderr, "bench_actor_scaling: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (!memory_agents.empty() && (memory_agents.size() != 2 || memory_agents[0] < 1 ||
                                 memory_agents[1] <= memory_agents[0])) {
    std::fprintf(stderr, "bench_actor_scaling: --memory-agents takes two sizes N0,N1 with "
                         "0 < N0 < N1\n");
    return 2;
  }
  const auto started = Clock::now();
  // Memory first, in child processes forked before this process starts any actor system.
  nlohmann::json memory = nlohmann::json::array();
  if (!memory_agents.empty()) {
    const int n0 = memory_agents[0], n1 = memory_agents[1];
    const int features = perfect(n0, 2, EventLog::none).algorithm.features;
    std::printf("Peak memory of a run of N agents (T = 2, output.events = none, 1 thread; each run "
                "alone in a forked process):\n\n");
    std::printf("| driver | posterior_memory | N = %d (MiB) | N = %d (MiB) | KiB per agent |\n"
                "|---|---|---|---|---|\n", n0, n1);
    for (const fbo::PosteriorMemory pm : {fbo::PosteriorMemory::factor, fbo::PosteriorMemory::history})
      for (const char* driver : {"actors", "loop"}) {
        const bool actors = std::string(driver) == "actors";
        const std::string kept = fbo::to_string(pm);
        auto rss = [&](int n) {
          const std::string what = std::string(driver) + ", posterior_memory " + kept +
                                   ", memory of one run of " + std::to_string(n) + " agents";
          return bench::in_child("bench_actor_scaling", what, [&] {
                   const auto c = perfect(n, 2, EventLog::none, pm);
                   if (actors) actors_seconds(c, 1);
                   else loop_seconds(c);
                   return nlohmann::json::object();
                 })
              .peak_rss_mib;
        };
        const double r0 = rss(n0), r1 = rss(n1);
        const double per_agent = 1024.0 * (r1 - r0) / (n1 - n0);
        std::printf("| %s | %s | %.0f | %.0f | %.1f |\n", driver, kept.c_str(), r0, r1, per_agent);
        memory.push_back({{"driver", driver}, {"posterior_memory", kept}, {"agents", {n0, n1}},
                          {"peak_rss_mib", {r0, r1}}, {"kib_per_agent", per_agent}});
      }
    std::printf("\nAn agent's posterior keeps an M x M Cholesky factor: %.1f KiB at M = %d.\n\n",
                features * features * 8.0 / 1024.0, features);
  }
  // What keeping only the history costs in time: the engine's loop, either way (medians of 3).
  nlohmann::json history_time;
  if (!memory_agents.empty()) {
    const int n = 2000, t = 20;
    std::vector<double> kept[2];
    for (int r = 0; r < 3; ++r)
      for (int m = 0; m < 2; ++m)
        kept[m].push_back(loop_seconds(perfect(
            n, t, EventLog::none, m == 0 ? fbo::PosteriorMemory::factor : fbo::PosteriorMemory::history)));
    const double f = median(kept[0]), h = median(kept[1]);
    std::printf("The loop at N = %d, T = %d: posterior_memory factor %.3f s, history %.3f s (%.2fx)\n\n",
                n, t, f, h, h / f);
    history_time = {{"agents", n}, {"iterations", t}, {"factor_s", f}, {"history_s", h},
                    {"ratio", h / f}};
  }
  nlohmann::json rows = nlohmann::json::array();
  std::printf("DP-FTS-DE, perfect network, sync, M = 50: actors / plain loop (medians)\n\n");
  std::printf("| N | T | loop s | loop with files s | events | 1 thread s (ratio, vs with files) | 2 threads s (ratio, vs with files) | 2 / 1 threads |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int n : agents) {
    const int t = iterations > 0 ? iterations : (n >= 10000 ? 10 : 20);
    const int k = repeats > 0 ? repeats : (n >= 10000 ? 1 : 3);
    const EventLog modes[] = {EventLog::all, EventLog::faults, EventLog::none};
    // Repeats interleave every measurement (the loops, then each mode with 1 and 2 threads), so
    // that a slow spell of a shared machine spreads over all of them instead of one column.
    std::vector<double> loops, drivers, one[3], two[3];
    for (int r = 0; r < k; ++r) {
      loops.push_back(loop_seconds(perfect(n, t, EventLog::none)));
      drivers.push_back(loop_driver_seconds(perfect(n, t, EventLog::none)));
      for (int m = 0; m < 3; ++m) {
        const auto c = perfect(n, t, modes[m]);
        one[m].push_back(actors_seconds(c, 1));
        two[m].push_back(actors_seconds(c, 2));
      }
    }
    const double loop = median(loops), files = median(drivers);
    for (int m = 0; m < 3; ++m) {
      const double a1 = median(one[m]), a2 = median(two[m]);
      std::printf("| %d | %d | %.3f | %.3f | %s | %.3f (%.2f, %.2f) | %.3f (%.2f, %.2f) | %.2f |\n",
                  n, t, loop, files, name_of(modes[m]), a1, a1 / loop, a1 / files, a2, a2 / loop,
                  a2 / files, a2 / a1);
      std::fflush(stdout);
      rows.push_back({{"agents", n}, {"iterations", t}, {"repeats", k}, {"events", name_of(modes[m])},
                      {"loop_s", loop}, {"loop_with_files_s", files},
                      {"actors_1_thread_s", a1}, {"actors_2_threads_s", a2},
                      {"ratio_1_thread", a1 / loop}, {"ratio_2_threads", a2 / loop},
                      {"ratio_1_thread_vs_files", a1 / files},
                      {"ratio_2_threads_vs_files", a2 / files},
                      {"two_over_one_thread", a2 / a1}});
    }
  }
  if (!json_file.empty()) {
    nlohmann::json d = bench::report_header("build/tools/bench_actor_scaling --json " + json_file);
    d["rows"] = rows;
    d["memory"] = memory;
    d["posterior_memory_time"] = history_time;
    const double wall = std::chrono::duration<double>(Clock::now() - started).count();
    if (!bench::finish_report(d, wall, json_file)) {
      std::fprintf(stderr, "bench_actor_scaling: cannot write %s\n", json_file.c_str());
      return 1;
    }
  }
  return 0;
}
