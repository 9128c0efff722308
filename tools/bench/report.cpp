// Benchmark report for the results page: the papers' figure runs timed through the actors and
// through the plain engine loops on the same configurations, with the peak memory of each.
//   (a) DP-FTS-DE figure 2a (scenarios/papers/dp-fts-de-fig2.toml: TS, FTS, FTS-DE P = 2 and
//       P = 3, N = 200, T = 40): the actors (run_federation; the runs of a process share one
//       actor system, as a `fedsim sweep` worker's do) without files (RunOptions::write_files
//       false) against the engine's synchronous reference loop (fbo::run_reference), which
//       writes none either, and with each run's files against the loop driver writing the same
//       files (cli::run_loop, as `fedsim run --driver loop`);
//   (b) Fed-PNE figure 2 (scenarios/papers/fed-pne-{garland,double-sine}.toml, M = 5, 10, 20,
//       50, T = 10000): the same two pairs, the loop being xarmed::run_fed_pne; and the HCT
//       baseline (scenarios/papers/hct-{garland,double-sine}.toml: xarmed::run_hct, as
//       `fedsim run --driver loop` runs it).
//   (c) the same figures end to end: tools/reproduce's `fedsim sweep` commands (the HCT ones
//       with --driver loop) run by the fedsim binary (files written, --jobs 2), timed as whole
//       processes.
// Release build; run from anywhere: build/tools/bench_report [--out FILE] (see --help);
// `tools/reproduce --bench` runs it and puts its numbers on the results page.
// Every (workload, mode, repeat) runs in its own forked process, so its peak RSS (ru_maxrss of
// wait4) is its own, and so does one run of each configuration alone (the peak memory of a
// run); modes alternate within a repeat so a load on the shared machine hits both.
// Times are the best of the repeats per row; the actor/loop ratio is computed from times
// measured in this same run. Both sides run the same configuration and must give the same
// result: the largest relative difference of their regrets is recorded as a check.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/xarmed/hct_run.hpp"
#include "tools/bench/circumstances.hpp"
#include "tools/bench/in_child.hpp"
#include "tools/fedsim/loop_driver.hpp"
#include "scenarios/loader.hpp"

using namespace fedsim;
using fedsim::bench::Measured;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string out = "docs/bench.json";
  int fbo_seeds = 5;      // the DP-FTS-DE paper's 5 runs
  int xarmed_seeds = 10;  // the Fed-PNE paper's 10 runs
  int repeats = 5;
  int threads = 1;        // actor scheduler threads per run (fedsim sweep's default)
  int jobs = 2;           // runs in parallel in the end-to-end `fedsim sweep` (tools/reproduce's)
  std::string fedsim = FEDSIM_BINARY;
};

std::string paper_scenario(const std::string& name) {
  return std::string(FEDSIM_SCENARIO_DIR) + "/papers/" + name;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ------------------------------------------------------------------ the workloads
// A workload is a list of rows (one configuration each, over its seeds); `run_row` runs one
// row's seeds in one mode and returns {seconds, sum of the regrets}.

struct Row {
  json key;                           // what the row is, for the report
  std::vector<std::string> overrides;  // scenario overrides (seeds appended)
  std::string file;
  double work_per_run = 0;            // agent-iterations (N T) or pulls (M T)
};

/// loop: the engine alone; loop_files: the loop driver, writing the run's files; actors: the
/// actors without files; actors_files: the actors writing the run's files.
enum class Mode { loop, loop_files, actors, actors_files };
const char* to_string(Mode m) {
  switch (m) {
    case Mode::loop: return "loop";
    case Mode::loop_files: return "loop with files";
    case Mode::actors: return "actors";
    case Mode::actors_files: return "actors with files";
  }
  return "?";
}
bool is_actors(Mode m) { return m == Mode::actors || m == Mode::actors_files; }

std::vector<Row> fig2a_rows() {
  const std::string file = paper_scenario("dp-fts-de-fig2.toml");
  std::vector<Row> rows;
  for (const auto& [label, sets] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"TS", {"algorithm.name=ts"}},
           {"FTS", {"algorithm.name=fts"}},
           {"FTS-DE, P = 2", {"algorithm.name=fts-de"}},
           {"FTS-DE, P = 3", {"algorithm.name=fts-de", "algorithm.subregions=3"}}}) {
    const auto c = scenario::load_scenario(file, sets);
    rows.push_back({{{"algorithm", label}}, sets, file,
                    double(c.world.agents) * c.algorithm.iterations});
  }
  return rows;
}

std::vector<Row> fed_pne_rows() {
  std::vector<Row> rows;
  for (const std::string objective : {"garland", "double-sine"})
    for (int M : {5, 10, 20, 50}) {
      const std::string file = paper_scenario("fed-pne-" + objective + ".toml");
      const std::vector<std::string> sets = {"world.agents=" + std::to_string(M)};
      const auto c = scenario::load_scenario(file, sets);
      rows.push_back({{{"objective", objective}, {"M", M}}, sets, file,
                      double(M) * c.xarmed.fed_pne.budget});
    }
  return rows;
}

/// Runs `row` over seeds 1..seeds in `mode` (the actors in `system`); returns {seconds,
/// per-seed regrets}.
std::pair<double, std::vector<double>> run_row(const Row& row, Mode mode, int seeds,
                                               const std::string& tmp,
                                               actors::FederationSystem* system) {
  double seconds = 0;
  std::vector<double> regrets;
  for (int seed = 1; seed <= seeds; ++seed) {
    auto sets = row.overrides;
    sets.push_back("seed=" + std::to_string(seed));
    const auto c = scenario::load_scenario(row.file, sets);
    double regret = 0;
    const auto start = Clock::now();
    if (is_actors(mode)) {
      actors::RunOptions opt;
      opt.out_dir = tmp;
      opt.write_files = mode == Mode::actors_files;
      const auto r = actors::run_federation(system->get(), c, opt);
      regret = c.xarmed.enabled ? r.average_cumulative_regret : r.final_simple_regret;
    } else if (mode == Mode::loop_files) {
      const auto r = cli::run_loop(c, tmp).run;
      regret = c.xarmed.enabled ? r.average_cumulative_regret : r.final_simple_regret;
    } else if (c.xarmed.enabled) {
      regret = xarmed::run_fed_pne(scenario::fed_pne_config(c)).average_regret;
    } else {
      regret = fbo::run_reference(scenario::reference_config(c)).final_simple_regret;
    }
    seconds += seconds_since(start);
    regrets.push_back(regret);
  }
  return {seconds, regrets};
}

json run_rows(const std::vector<Row>& rows, Mode mode, int seeds, const Options& o) {
  const std::string tmp =
      (std::filesystem::temp_directory_path() / ("fedsim-bench-" + std::to_string(getpid())))
          .string();
  json out = json::array();
  std::optional<actors::FederationSystem> system;
  if (is_actors(mode)) system.emplace(o.threads);
  for (const auto& row : rows) {
    const auto [s, regrets] = run_row(row, mode, seeds, tmp, system ? &*system : nullptr);
    out.push_back({{"seconds", s}, {"regrets", regrets}});
  }
  std::filesystem::remove_all(tmp);
  return out;
}

/// HCT on both objectives (scenarios/papers/hct-*.toml, T = 10000 evaluations), over seeds
/// 1..seeds: the engine loop that `fedsim run --driver loop` runs, without its files.
json run_hct_rows(int seeds) {
  json out = json::array();
  for (const std::string objective : {"garland", "double-sine"}) {
    const std::string file = paper_scenario("hct-" + objective + ".toml");
    const auto c = scenario::load_scenario(file);
    double seconds = 0;
    std::vector<double> regrets;
    for (int seed = 1; seed <= seeds; ++seed) {
      const xarmed::HctRunConfig h =
          scenario::hct_config(scenario::load_scenario(file, {"seed=" + std::to_string(seed)}));
      const auto start = Clock::now();
      regrets.push_back(xarmed::run_hct(h).cumulative_regret);
      seconds += seconds_since(start);
    }
    out.push_back({{"objective", objective}, {"budget", c.xarmed.fed_pne.budget},
                   {"seconds", seconds}, {"regrets", regrets}});
  }
  return out;
}

// ------------------------------------------------------------------ one process per measurement

/// Runs `work` in a forked child (tools/bench/in_child.hpp): its JSON and peak RSS.
Measured in_child(const std::string& what, const std::function<json()>& work) {
  return fedsim::bench::in_child("bench_report", what, work);
}

/// Runs `argv` (output discarded) and returns its wall seconds and peak RSS; exits on failure.
std::pair<double, double> time_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
  std::fprintf(stderr, "bench_report: + %s\n", line.c_str());
  std::fflush(nullptr);
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) std::perror("fork"), std::exit(1);
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (!std::freopen("/dev/null", "w", stdout)) _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const double seconds = seconds_since(start);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_report: failed: %s\n", line.c_str());
    std::exit(1);
  }
  return {seconds, usage.ru_maxrss / 1024.0};
}

/// tools/reproduce's commands for one figure, end to end through the `fedsim` binary (files
/// written, `--jobs` runs in parallel), the best of the repeats: {commands (the temporary
/// output folder `tmp` shown as TMP), seconds, peak RSS}.
json end_to_end(const std::vector<std::vector<std::string>>& commands, const std::string& tmp,
                const Options& o) {
  double best = 1e300, rss = 0;
  json shown = json::array();
  for (int r = 0; r < o.repeats; ++r) {
    double total = 0;
    std::filesystem::remove_all(tmp);  // else `fedsim sweep` skips the runs it finds complete
    for (const auto& argv : commands) {
      const auto [s, m] = time_command(argv);
      total += s;
      rss = std::max(rss, m);
    }
    best = std::min(best, total);
  }
  for (auto argv : commands) {  // as run from the source tree, outputs in a temporary folder
    argv[0] = "build/tools/fedsim";
    std::string line;
    for (auto a : argv) {
      if (a.rfind(FEDSIM_SOURCE_DIR "/", 0) == 0) a = a.substr(sizeof(FEDSIM_SOURCE_DIR));
      if (a.rfind(tmp, 0) == 0) a = "TMP" + a.substr(tmp.size());
      line += (line.empty() ? "" : " ") + a;
    }
    shown.push_back(line);
  }
  return {{"commands", shown}, {"jobs", o.jobs}, {"seconds", best}, {"peak_rss_mib", rss}};
}

// ------------------------------------------------------------------ the report

double min_over(const std::vector<json>& repeats, std::size_t row) {
  double best = 1e300;
  for (const auto& r : repeats) best = std::min(best, r[row]["seconds"].get<double>());
  return best;
}

/// Largest |a - b| / max(|b|, 1e-12) over paired regrets (0: identical results).
double max_rel_diff(const json& a, const json& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i].get<double>(), y = b[i].get<double>();
    d = std::max(d, std::abs(x - y) / std::max(std::abs(y), 1e-12));
  }
  return d;
}

/// Runs one actors-vs-loop workload over the repeats; `unit` names the work ("agent_iterations"
/// or "pulls").
json compare(const std::string& name, const std::vector<Row>& rows, int seeds, const Options& o,
             const std::string& unit) {
  std::vector<json> runs[4];
  double rss[4] = {0, 0, 0, 0};
  for (int r = 0; r < o.repeats; ++r)
    for (const Mode mode : {Mode::loop, Mode::loop_files, Mode::actors, Mode::actors_files}) {
      const auto m = in_child(name + " " + to_string(mode) + ", repeat " + std::to_string(r + 1),
                              [&] { return run_rows(rows, mode, seeds, o); });
      runs[int(mode)].push_back(m.result);
      rss[int(mode)] = std::max(rss[int(mode)], m.peak_rss_mib);
    }
  // The peak memory of one run: seed 1 of each row alone in a process, actors and engine loop.
  double one_run_rss[4][64] = {};
  for (std::size_t i = 0; i < rows.size() && i < 64; ++i)
    for (const Mode mode : {Mode::loop, Mode::actors})
      one_run_rss[int(mode)][i] =
          in_child(name + " " + to_string(mode) + ", one run of row " + std::to_string(i + 1),
                   [&] { return run_rows({rows[i]}, mode, 1, o); })
              .peak_rss_mib;
  json out_rows = json::array();
  const int L = int(Mode::loop), F = int(Mode::loop_files), A = int(Mode::actors),
            AF = int(Mode::actors_files);
  double total[4] = {0, 0, 0, 0}, work = 0, diff = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double loop = min_over(runs[L], i), files = min_over(runs[F], i),
                 act = min_over(runs[A], i), act_files = min_over(runs[AF], i);
    const double w = rows[i].work_per_run * seeds;
    double d = 0;
    for (const int m : {A, F, AF})
      d = std::max(d, max_rel_diff(runs[m][0][i]["regrets"], runs[L][0][i]["regrets"]));
    json row = rows[i].key;
    row.update({{"runs", seeds},
                {"loop_s", loop},
                {"loop_files_s", files},
                {"actors_s", act},
                {"actors_files_s", act_files},
                {"ratio", act / loop},
                {"ratio_vs_files", act_files / files},
                {"loop_" + unit + "_per_s", w / loop},
                {"actors_" + unit + "_per_s", w / act},
                {"max_rel_diff", d},
                {"loop_one_run_peak_rss_mib", one_run_rss[L][i]},
                {"actors_one_run_peak_rss_mib", one_run_rss[A][i]}});
    out_rows.push_back(row);
    total[L] += loop;
    total[F] += files;
    total[A] += act;
    total[AF] += act_files;
    work += w;
    diff = std::max(diff, d);
  }
  return {{"rows", out_rows},
          {"total",
           {{"runs", seeds * rows.size()},
            {"loop_s", total[L]},
            {"loop_files_s", total[F]},
            {"actors_s", total[A]},
            {"actors_files_s", total[AF]},
            {"ratio", total[A] / total[L]},
            {"ratio_vs_files", total[AF] / total[F]},
            {"loop_" + unit + "_per_s", work / total[L]},
            {"actors_" + unit + "_per_s", work / total[A]},
            {"max_rel_diff", diff}}},
          {"peak_rss_mib", {{"loop", rss[L]}, {"actors", rss[A]}}}};  // all runs, one process
}

void usage() {
  std::puts(
      "Usage: bench_report [--out FILE] [--fbo-seeds K] [--xarmed-seeds K] [--repeats R] "
      "[--threads N]\n"
      "Times DP-FTS-DE figure 2a (TS, FTS, FTS-DE P = 2, 3; N = 200, T = 40) and Fed-PNE figure 2\n"
      "(Garland, DoubleSine; M = 5, 10, 20, 50; T = 10000) as actors and as plain engine loops,\n"
      "and HCT, with each process's peak RSS; writes JSON for tools/results_page.py.\n"
      "  --out FILE        default docs/bench.json\n"
      "  --fbo-seeds K     seeds 1..K of each figure 2a run (default 5, the paper's)\n"
      "  --xarmed-seeds K  seeds 1..K of each Fed-PNE and HCT run (default 10, the paper's)\n"
      "  --repeats R       each measurement R times, the best kept (default 5)\n"
      "  --threads N       actor scheduler threads per run (default 1)\n"
      "  --jobs J          parallel runs of the end-to-end `fedsim sweep` (default 2)\n"
      "  --fedsim PATH     the fedsim binary for the end-to-end runs (default the build's)");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string command = "build/tools/bench_report";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command += " " + a;
    if (a == "-h" || a == "--help") return usage(), 0;
    if (i + 1 >= argc) return std::fprintf(stderr, "bench_report: bad argument '%s'\n", a.c_str()), 2;
    const std::string v = argv[++i];
    command += " " + v;
    const int n = std::atoi(v.c_str());
    if (a == "--out") o.out = v;
    else if (a == "--fbo-seeds" && n > 0) o.fbo_seeds = n;
    else if (a == "--xarmed-seeds" && n > 0) o.xarmed_seeds = n;
    else if (a == "--repeats" && n > 0) o.repeats = n;
    else if (a == "--threads" && n > 0) o.threads = n;
    else if (a == "--jobs" && n > 0) o.jobs = n;
    else if (a == "--fedsim") o.fedsim = v;
    else return std::fprintf(stderr, "bench_report: bad argument '%s %s'\n", a.c_str(), v.c_str()), 2;
  }
#ifndef NDEBUG
  std::fprintf(stderr, "bench_report: warning: not a Release build (assertions on)\n");
#endif
  const auto start = Clock::now();
  json report;
  report["machine"] = fedsim::bench::machine();
  report["build"] = fedsim::bench::build();
  report["fedsim_version"] = FEDSIM_VERSION;
  report["git_commit"] = fedsim::bench::git_commit();
  report["command"] = command;
  // The peak RSS of a forked process that runs nothing: what every figure below includes.
  report["baseline_peak_rss_mib"] = in_child("baseline", [] { return json::object(); }).peak_rss_mib;
  report["threads"] = o.threads;
  report["repeats"] = o.repeats;
  report["fig2a"] = compare("figure 2a", fig2a_rows(), o.fbo_seeds, o, "agent_iterations");
  {  // N and T as the scenario sets them (the page prints N·T per run)
    const auto fig2 = scenario::load_scenario(paper_scenario("dp-fts-de-fig2.toml"));
    report["fig2a"]["agents"] = fig2.world.agents;
    report["fig2a"]["iterations"] = fig2.algorithm.iterations;
  }
  report["fed_pne"] = compare("Fed-PNE figure 2", fed_pne_rows(), o.xarmed_seeds, o, "pulls");
  {
    std::vector<json> runs;
    double rss = 0;
    for (int r = 0; r < o.repeats; ++r) {
      auto m = in_child("HCT, repeat " + std::to_string(r + 1), [&] { return run_hct_rows(o.xarmed_seeds); });
      runs.push_back(m.result);
      rss = std::max(rss, m.peak_rss_mib);
    }
    json rows = json::array();
    for (std::size_t i = 0; i < runs[0].size(); ++i) {
      const double s = min_over(runs, i);
      const double evals = runs[0][i]["budget"].get<double>() * o.xarmed_seeds;
      rows.push_back({{"objective", runs[0][i]["objective"]},
                      {"runs", o.xarmed_seeds},
                      {"budget", runs[0][i]["budget"]},
                      {"seconds", s},
                      {"evaluations_per_s", evals / s}});
    }
    report["hct"] = {{"rows", rows}, {"peak_rss_mib", rss}};
  }
  {
    const std::string tmp =
        (std::filesystem::temp_directory_path() / ("fedsim-bench-cli-" + std::to_string(getpid())))
            .string();
    const std::string fbo_seeds = std::to_string(o.fbo_seeds), xa = std::to_string(o.xarmed_seeds),
                      jobs = std::to_string(o.jobs), fig2 = paper_scenario("dp-fts-de-fig2.toml");
    const std::vector<std::string> common = {"--jobs", jobs, "--quiet"};
    auto sweep = [&](std::vector<std::string> args, const std::string& out) {
      args.insert(args.begin(), {o.fedsim, "sweep"});
      args.insert(args.end(), common.begin(), common.end());
      args.insert(args.end(), {"--out", tmp + "/" + out});
      return args;
    };
    report["fig2a"]["end_to_end"] = end_to_end(
        {sweep({fig2, "--seeds", fbo_seeds, "--grid", "algorithm.name=ts,fts,fts-de"}, "fig2a"),
         sweep({fig2, "--seeds", fbo_seeds, "--set", "algorithm.name=fts-de", "--grid",
                "algorithm.subregions=3"},
               "fig2a-p3")},
        tmp, o);
    std::vector<std::vector<std::string>> xarmed;
    for (const std::string objective : {"garland", "double-sine"}) {
      xarmed.push_back(sweep({paper_scenario("fed-pne-" + objective + ".toml"), "--seeds", xa, "--grid",
                              "world.agents=5,10,20,50"},
                             "fed-pne-" + objective));
      xarmed.push_back(sweep({paper_scenario("hct-" + objective + ".toml"), "--driver", "loop",
                              "--seeds", xa},
                             "hct-" + objective));
    }
    report["fed_pne"]["end_to_end"] = end_to_end(xarmed, tmp, o);
    std::filesystem::remove_all(tmp);
  }
  report["machine"]["load_average_at_end"] = fedsim::bench::load_average_json();
  report["wall_seconds"] = seconds_since(start);
  report["date"] = fedsim::bench::utc_now();

  const std::filesystem::path out(o.out);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  std::ofstream(out) << report.dump(2) << "\n";
  for (const auto& [name, key, unit] :
       {std::tuple{"figure 2a", "fig2a", "agent_iterations"}, std::tuple{"Fed-PNE figure 2", "fed_pne", "pulls"}}) {
    const auto& t = report[key]["total"];
    std::printf(
        "%s (%d runs): without files loop %.3f s, actors %.3f s, ratio %.2f; with files loop "
        "%.3f s, actors %.3f s, ratio %.2f; %.3g %s/s as actors; peak RSS loop %.0f MiB, actors "
        "%.0f MiB\n",
        name, t["runs"].get<int>(), t["loop_s"].get<double>(), t["actors_s"].get<double>(),
        t["ratio"].get<double>(), t["loop_files_s"].get<double>(),
        t["actors_files_s"].get<double>(), t["ratio_vs_files"].get<double>(),
        t[std::string("actors_") + unit + "_per_s"].get<double>(), unit,
        report[key]["peak_rss_mib"]["loop"].get<double>(),
        report[key]["peak_rss_mib"]["actors"].get<double>());
  }
  std::printf("end to end (fedsim sweep --jobs %d): figure 2a %.2f s, Fed-PNE figure 2 with HCT %.2f s\n",
              o.jobs, report["fig2a"]["end_to_end"]["seconds"].get<double>(),
              report["fed_pne"]["end_to_end"]["seconds"].get<double>());
  std::printf("wall %.1f s -> %s\n", report["wall_seconds"].get<double>(), o.out.c_str());
  return 0;
}
