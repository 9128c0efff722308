// Benchmark (issue 15): the actor layer's cost against the plain loop as N grows, per event-log
// mode (output.events = all, faults, none) and scheduler thread count. DP-FTS-DE on a perfect
// network, sync policy, the synthetic objective of scenarios/dp-fts-de-synthetic.toml (M = 50,
// grid 1000). Every ratio divides an actor run's wall time by the plain loop's on the same
// work, both measured in this run; each cell is the median of --repeats runs. Release build.
//
//   build/tools/bench_actor_scaling [--agents 200,2000,10000] [--iterations T] [--repeats K]
//                                   [--json FILE]
//
// Defaults: N = 200, 2000 (T = 20) and 10000 (T = 10), 3 repeats (1 at N >= 10000).
#include <sys/resource.h>

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

using namespace fedsim;
using Clock = std::chrono::steady_clock;
using EventLog = scenario::OutputConfig::EventLog;

namespace {

scenario::ScenarioConfig perfect(int agents, int iterations, EventLog events) {
  scenario::ScenarioConfig c;
  c.name = "bench-scaling";
  c.world.agents = agents;
  c.algorithm.algorithm = fbo::Algorithm::dp_fts_de;
  c.algorithm.iterations = iterations;
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
    else {
      std::fprintf(stderr, "bench_actor_scaling: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  const auto started = Clock::now();
  nlohmann::json rows = nlohmann::json::array();
  std::printf("DP-FTS-DE, perfect network, sync, M = 50: actors / plain loop (medians)\n\n");
  std::printf("| N | T | loop s | events | 1 thread s (ratio) | 2 threads s (ratio) | 2 / 1 threads |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int n : agents) {
    const int t = iterations > 0 ? iterations : (n >= 10000 ? 10 : 20);
    const int k = repeats > 0 ? repeats : (n >= 10000 ? 1 : 3);
    std::vector<double> loops;
    for (int r = 0; r < k; ++r) loops.push_back(loop_seconds(perfect(n, t, EventLog::none)));
    const double loop = median(loops);
    for (EventLog e : {EventLog::all, EventLog::faults, EventLog::none}) {
      const auto c = perfect(n, t, e);
      std::vector<double> one, two;
      for (int r = 0; r < k; ++r) {
        one.push_back(actors_seconds(c, 1));
        two.push_back(actors_seconds(c, 2));
      }
      const double a1 = median(one), a2 = median(two);
      std::printf("| %d | %d | %.3f | %s | %.3f (%.2f) | %.3f (%.2f) | %.2f |\n", n, t, loop,
                  name_of(e), a1, a1 / loop, a2, a2 / loop, a2 / a1);
      std::fflush(stdout);
      rows.push_back({{"agents", n}, {"iterations", t}, {"repeats", k}, {"events", name_of(e)},
                      {"loop_s", loop}, {"actors_1_thread_s", a1}, {"actors_2_threads_s", a2},
                      {"ratio_1_thread", a1 / loop}, {"ratio_2_threads", a2 / loop},
                      {"two_over_one_thread", a2 / a1}});
    }
  }
  if (!json_file.empty()) {
    nlohmann::json d = bench::report_header("build/tools/bench_actor_scaling --json " + json_file);
    d["rows"] = rows;
    const double wall = std::chrono::duration<double>(Clock::now() - started).count();
    if (!bench::finish_report(d, wall, json_file)) {
      std::fprintf(stderr, "bench_actor_scaling: cannot write %s\n", json_file.c_str());
      return 1;
    }
  }
  return 0;
}
