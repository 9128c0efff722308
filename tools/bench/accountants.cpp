// Benchmark: what the privacy accountants cost a run. A private run's accountant is asked
// after every release (rounds.csv's epsilon per round, the budget check before each release),
// and every private run prices its releases both ways (dp::Ledger: epsilon_rdp, epsilon_pld).
// On scenarios/dp-fts-de-synthetic.toml (the papers' synthetic setting) this measures, in one
// run of this program:
//  - the whole run as actors (run_federation, one scheduler thread per run, outputs written),
//    with privacy.accountant = moments and = tight (both price both ways: the same work);
//  - each accountant alone on the run's own release sequence, asked after every release as the
//    accountant actor asks it: moments, tight, and the ledger (both);
// and derives what a run that priced its releases one way only would take: the run's wall
// minus the ledger's time plus that accountant's (the accountant is on the run's critical
// path: the server waits for each charge). The ratio tight-only / moments-only is the issue's
// target (<= 1.2). Modes alternate within a repeat; times are medians. Nothing is asserted on
// time. With --json FILE it writes the numbers and their circumstances for the results page
// (docs/bench-accountants.json; tools/reproduce --bench).
// Release build:  build/tools/bench_accountants [--repeats R] [--json FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "engine/dp/accountant.hpp"
#include "engine/dp/ledger.hpp"
#include "scenarios/loader.hpp"
#include "tools/bench/circumstances.hpp"

using namespace fedsim;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// One run as actors; its wall time (the run's own) and its release count.
std::pair<double, long> run_once(scenario::ScenarioConfig c, const std::string& accountant) {
  c.privacy.accountant = accountant;
  actors::RunOptions opt;
  opt.out_dir = (std::filesystem::temp_directory_path() / "fedsim-bench-accountants").string();
  opt.threads = 1;
  const actors::RunResult r = actors::run_federation(c, opt);
  return {r.wall_time, static_cast<long>(r.releases)};
}

/// `releases` releases of (q, z), the accountant asked after each; seconds.
template <class Ask>
double replay(long releases, Ask&& ask) {
  const auto t = Clock::now();
  for (long k = 1; k <= releases; ++k) ask();
  return seconds_since(t);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  std::string json_out, command = "build/tools/bench_accountants";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_out = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--repeats R] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  if (repeats < 1) {
    std::fprintf(stderr, "bench_accountants: --repeats must be >= 1\n");
    return 2;
  }
  const auto start = Clock::now();
  json r = fedsim::bench::report_header(command);  // the load at the start
  const std::string file =
      (std::filesystem::path(FEDSIM_SOURCE_DIR) / "scenarios/dp-fts-de-synthetic.toml").string();
  const scenario::ScenarioConfig c = scenario::load_scenario(file);
  const double q = c.algorithm.q, z = c.algorithm.z;
  const double delta = scenario::reference_config(c).effective_delta();

  std::vector<double> run_moments, run_tight, only_moments, only_tight, both;
  long releases = 0;
  for (int k = 0; k < repeats; ++k) {
    double w;
    std::tie(w, releases) = run_once(c, "moments");
    run_moments.push_back(w);
    run_tight.push_back(run_once(c, "tight").first);
    for (const char* name : {"moments", "tight"}) {
      auto a = dp::make_accountant(name);
      const double s = replay(releases, [&] {
        a->add_subsampled_gaussian(q, z, 1);
        volatile double e = a->epsilon(delta);
        (void)e;
      });
      (std::string(name) == "moments" ? only_moments : only_tight).push_back(s);
    }
    dp::Ledger ledger(c.privacy.accountant);
    both.push_back(replay(releases, [&] {
      ledger.add_subsampled_gaussian(q, z, 1);
      volatile double e = ledger.epsilon(delta).named;
      (void)e;
    }));
  }
  const double W = median(run_moments), Wt = median(run_tight), m = median(only_moments),
               t = median(only_tight), l = median(both);
  const double moments_run = W - l + m, tight_run = W - l + t;
  std::printf("fedsim accountants: %s, N=%d T=%d, %ld releases, q=%g z=%g delta=%.3g (%s build, "
              "1 thread, %d repeats, medians)\n",
              c.name.c_str(), c.world.agents, c.algorithm.iterations, releases, q, z, delta,
              FEDSIM_BUILD_TYPE, repeats);
  std::printf("run as actors, accountant = moments: %.3f s; = tight: %.3f s (both price both ways)\n",
              W, Wt);
  std::printf("accountants alone, asked after each release: moments %.1f ms, tight %.1f ms, both "
              "(the ledger) %.1f ms\n",
              1e3 * m, 1e3 * t, 1e3 * l);
  std::printf("a run pricing one way only: moments %.3f s, tight %.3f s: tight / moments = %.3f "
              "(target <= 1.2)\n",
              moments_run, tight_run, tight_run / moments_run);
  if (!json_out.empty()) {
    r["scenario"] = "scenarios/dp-fts-de-synthetic.toml";
    r["agents"] = c.world.agents;
    r["iterations"] = c.algorithm.iterations;
    r["releases"] = releases;
    r["q"] = q;
    r["z"] = z;
    r["delta"] = delta;
    r["repeats"] = repeats;
    r["run_moments_s"] = W;
    r["run_tight_s"] = Wt;
    r["moments_alone_s"] = m;
    r["tight_alone_s"] = t;
    r["ledger_s"] = l;
    r["moments_only_run_s"] = moments_run;
    r["tight_only_run_s"] = tight_run;
    r["ratio"] = tight_run / moments_run;
    if (!fedsim::bench::finish_report(r, seconds_since(start), json_out)) {
      std::fprintf(stderr, "bench_accountants: cannot write %s\n", json_out.c_str());
      return 1;
    }
  }
  return 0;
}
