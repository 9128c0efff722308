// Benchmark: the actor runtime against the plain reference loop on the same work, and the
// largest federation this machine runs. Release build; run: build/tools/bench_actors_vs_loop
// [--large N T] (default large run: 10000 agents x 50 rounds, M = 50).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/loader.hpp"

using namespace fedsim;
using Clock = std::chrono::steady_clock;

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // kilobytes on Linux
}

scenario::ScenarioConfig perfect(int agents, int iterations) {
  scenario::ScenarioConfig c;
  c.name = "bench";
  c.world.agents = agents;
  c.algorithm.algorithm = fbo::Algorithm::dp_fts_de;
  c.algorithm.iterations = iterations;
  c.output.events = scenario::OutputConfig::EventLog::none;  // events.jsonl would dominate at scale
  scenario::validate(c);
  return c;
}

double time_actor_run(const scenario::ScenarioConfig& c, int threads) {
  actors::RunOptions opt;
  opt.out_dir = (std::filesystem::temp_directory_path() / "fedsim-bench").string();
  opt.threads = threads;
  return actors::run_federation(c, opt).wall_time;
}

double time_reference(const scenario::ScenarioConfig& c) {
  const auto start = Clock::now();
  fbo::run_reference(scenario::reference_config(c));
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int large_n = 10000, large_t = 50;
  if (argc == 4 && std::strcmp(argv[1], "--large") == 0) {
    large_n = std::atoi(argv[2]);
    large_t = std::atoi(argv[3]);
  }
  std::printf("fedsim actors vs reference loop (DP-FTS-DE, perfect network, sync, M = 50)\n\n");
  const auto c = perfect(200, 40);
  time_reference(c);  // warm-up
  double loop = 0, actor1 = 0, actor2 = 0;
  const int repeats = 3;
  for (int k = 0; k < repeats; ++k) {
    loop += time_reference(c) / repeats;
    actor1 += time_actor_run(c, 1) / repeats;
    actor2 += time_actor_run(c, 2) / repeats;
  }
  std::printf("N=200 T=40: reference loop %.3f s | actors, 1 thread %.3f s (ratio %.2f) | "
              "actors, 2 threads %.3f s (ratio %.2f)\n",
              loop, actor1, actor1 / loop, actor2, actor2 / loop);

  const double rss_before = peak_rss_mib();
  const auto big = perfect(large_n, large_t);
  const double big_time = time_actor_run(big, 2);
  const double rss_after = peak_rss_mib();
  std::printf("N=%d T=%d: actors, 2 threads %.1f s, %.1f us per agent-iteration; peak RSS %.0f MiB "
              "(%.1f KiB per agent above the small runs)\n",
              large_n, large_t, big_time, 1e6 * big_time / (double(large_n) * (large_t + 10)),
              rss_after, 1024.0 * (rss_after - rss_before) / large_n);
  return 0;
}
