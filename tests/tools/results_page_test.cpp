#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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

const fs::path source_root = fs::path(FEDSIM_SCENARIO_DIR).parent_path();

/// Runs tools/results_page.py ARGS with FEDSIM_PYTHON or /usr/bin/python3, its verdicts by the
/// fedsim built with these tests (ARGS may give another --fedsim); returns its exit code. Not
/// the sanitizer build's under CI's ASan job: a page is about 260 `fedsim compare` processes
/// (3 minutes under ASan for these tests), and `fedsim compare` has its own tests there.
int results_page(const std::string& args) {
  const std::string python = fedsim::test::python_interpreter();
  const std::string command = python + " " + (source_root / "tools" / "results_page.py").string() +
                              " --fedsim " + std::string(FEDSIM_BINARY) + " " + args +
                              " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-15; }

}  // namespace

TEST_CASE("results_page.py --run-metrics sums clipping over rounds and averages the late regret",
          "[cli][results]") {
  // TS (an empty rounds.csv) and DP-FTS-DE with a clipping bound that clips every vector and one
  // that clips none.
  const fs::path sweep = fresh_dir("run-metrics-sweep");
  const auto s = run_fedsim("sweep " + (source_root / "scenarios" / "tiny.toml").string() +
                            " --grid algorithm.name=ts,dp-fts-de --grid algorithm.clip=0.5,100 --seeds 2"
                            " --jobs 2 --quiet --out " + sweep.string());
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const fs::path late = fresh_dir("run-metrics-late.csv"), all = fresh_dir("run-metrics-all.csv");
  REQUIRE(results_page("--run-metrics " + sweep.string() + " --from-iteration 2 --out " + late.string()) == 0);
  REQUIRE(results_page("--run-metrics " + sweep.string() + " --out " + all.string()) == 0);

  const auto runs = read_table(sweep / "sweep_runs.csv");
  const auto rows = read_table(late), rows_all = read_table(all);
  REQUIRE(rows.size() == runs.size());
  REQUIRE(rows_all.size() == runs.size());
  int clipping = 0, private_runs = 0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const auto& run = runs[k];
    const auto& row = rows[k];
    INFO(run.at("folder"));
    CHECK(row.at("algorithm.name") == run.at("algorithm.name"));
    CHECK(row.at("algorithm.clip") == run.at("algorithm.clip"));
    CHECK(row.at("seed") == run.at("seed"));

    long selected = 0, clipped = 0;
    for (const auto& r : read_table(sweep / run.at("folder") / "rounds.csv")) {
      selected += std::stol(r.at("selected"));
      clipped += std::stol(r.at("clipped"));
    }
    CHECK(std::stol(row.at("selected")) == selected);
    CHECK(std::stol(row.at("clipped")) == clipped);
    if (selected == 0) {
      CHECK(row.at("clipped_percent").empty());
    } else {
      ++private_runs;
      CHECK(close(std::stod(row.at("clipped_percent")), 100.0 * clipped / selected));
    }
    if (clipped > 0) ++clipping;

    // The late regret: the mean of summary.json's curve over iterations 2..T; from 0 it is the
    // regret area of sweep_runs.csv.
    const auto curve = nlohmann::json::parse(slurp(sweep / run.at("folder") / "summary.json"))
                           ["mean_simple_regret_by_iteration"].get<std::vector<double>>();
    double sum = 0.0;
    for (std::size_t t = 2; t < curve.size(); ++t) sum += curve[t];
    CHECK(row.at("from_iteration") == "2");
    CHECK(close(std::stod(row.at("late_regret")), sum / static_cast<double>(curve.size() - 2)));
    CHECK(close(std::stod(rows_all[k].at("late_regret")), std::stod(run.at("regret_area"))));
  }
  CHECK(private_runs == 4);  // the DP-FTS-DE runs selected vectors; TS has no rounds
  CHECK(clipping > 0);       // else the clipping sums checked only zeros

  // An iteration past T is an error, not an empty mean.
  CHECK(results_page("--run-metrics " + sweep.string() + " --from-iteration 99 --out " + late.string()) != 0);
}

TEST_CASE("results_page.py --study-metrics finds the first time the agents' mean regret is below "
          "the threshold", "[cli][results]") {
  // Two hand-made runs. In "a", agent 0's two rows at t = 1 count in file order (its regret is
  // 0.3 after them), the mean exists from t = 2 (both agents observed): 0.25, then 0.125 at
  // t = 3 and 0.03 at t = 4. Run "b" never goes below 0.45.
  const fs::path sweep = fresh_dir("study-metrics-sweep");
  auto write = [](const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  };
  const std::string summary =
      R"({"mean_final_simple_regret": 0.03, "epsilon": 1.5, "private_releases": 3,
          "iterations": 3, "agents": 2, "messages": {"sent": 10, "dropped": 1},
          "virtual_time": 4.0})";
  write(sweep / "sweep_runs.csv", "policy.kind,seed,folder\nsync,1,a\nasync,1,b\n");
  write(sweep / "a" / "summary.json", summary);
  write(sweep / "b" / "summary.json", summary);
  const std::string header = "agent,iteration,time,x0,y,f,simple_regret,best_y,branch,source\n";
  write(sweep / "a" / "observations.csv",
        header + "0,0,1.0,0,0,0,0.5,0,init,-1\n0,1,1.0,0,0,0,0.3,0,local,-1\n"
                 "1,0,2.0,0,0,0,0.2,0,init,-1\n0,2,3.0,0,0,0,0.05,0,local,-1\n"
                 "1,1,4.0,0,0,0,0.01,0,local,-1\n");
  write(sweep / "b" / "observations.csv",
        header + "0,0,1.0,0,0,0,0.5,0,init,-1\n1,0,1.0,0,0,0,0.4,0,init,-1\n");
  for (const auto& [threshold, expected] :
       std::vector<std::pair<std::string, std::string>>{{"0.1", "4.0"}, {"0.2", "3.0"},
                                                        {"0.26", "2.0"}}) {
    INFO("threshold " << threshold);
    const fs::path out = fresh_dir("study-metrics-" + threshold + ".csv");
    REQUIRE(results_page("--study-metrics " + sweep.string() + " --threshold " + threshold +
                         " --out " + out.string()) == 0);
    const auto rows = read_table(out);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].at("policy") == "sync");
    CHECK(std::stod(rows[0].at("time_to_threshold")) == std::stod(expected));
    CHECK(rows[0].at("agents_observing") == "2");
    CHECK(rows[1].at("time_to_threshold").empty());  // never
  }
}

TEST_CASE("results_page.py shows the distributed-runs benchmark in the Performance section, or how "
          "to make it", "[cli][results]") {
  // The page from the shipped results (docs/results/, docs/bench.json) with a hand-made
  // build/tools/bench_distributed --json file: in-process and served to 1 and 2 agent processes.
  const fs::path dir = fresh_dir("results-page-distributed");
  fs::create_directories(dir);
  const fs::path page = dir / "results.md", bench_file = dir / "bench-distributed.json";
  nlohmann::json mode_in = {{"mode", "in-process"}, {"processes", 0}, {"runs", 3}, {"failed", 0},
                            {"records_differ", 0}, {"records_equal", true},
                            {"run_wall_s", 0.4121}, {"command_wall_s", 0.4557},
                            {"agent_iterations_per_s", 4853.19}, {"ratio", 1.0},
                            {"messages", 5990}, {"added_us_per_message", nullptr},
                            {"added_us_per_message_command", nullptr}};
  nlohmann::json mode_1 = {{"mode", "served"}, {"processes", 1}, {"runs", 3}, {"failed", 0},
                           {"records_differ", 0}, {"records_equal", true},
                           {"run_wall_s", 1.2344}, {"command_wall_s", 1.3001},
                           {"agent_iterations_per_s", 1620.22}, {"ratio", 0.33384},
                           {"messages", 5990}, {"added_us_per_message", 137.24},
                           {"added_us_per_message_command", 140.97}};
  nlohmann::json mode_2 = mode_1;
  mode_2.update({{"processes", 2}, {"run_wall_s", 2.5}, {"command_wall_s", 2.61},
                 {"agent_iterations_per_s", 800.0}, {"ratio", 0.16484},
                 {"added_us_per_message", 348.56}, {"added_us_per_message_command", 359.68}});
  nlohmann::json bench = {
      {"command", "build/tools/bench_distributed --json docs/bench-distributed.json"},
      {"fedsim_version", "9.8.7"}, {"git_commit", "abc1234"}, {"date", "2031-01-02T03:04:05Z"},
      {"wall_seconds", 61.7},
      {"machine", {{"cpu", "Test CPU"}, {"logical_cores", 2}, {"kernel", "Linux 9.9"},
                   {"load_average_at_start", {1.25, 1.0, 1.0}},
                   {"load_average_at_end", {1.75, 1.0, 1.0}}}},
      {"build", {{"type", "Release"}, {"compiler", "GCC 12.2.0"}, {"assertions", false}}},
      {"fedsim", "build/tools/fedsim"}, {"scenario", "scenarios/stragglers/deadline.toml"},
      {"agents", 100}, {"iterations", 20}, {"agent_iterations", 2000}, {"repeats", 3},
      {"threads", 0}, {"time", "virtual"}, {"network", "loopback (127.0.0.1), plain TCP"},
      {"records_compared", {"observations.csv", "rounds.csv", "events.jsonl"}},
      {"modes", {mode_in, mode_1, mode_2}}, {"records_equal", true},
      {"crowded_processes", {2}}};
  const std::string shipped = "--results " + (source_root / "docs" / "results").string() +
                              " --bench " + (source_root / "docs" / "bench.json").string() +
                              " --page " + page.string() + " --bench-distributed ";
  const std::string heading = "### Distributed runs (fedsim serve + fedsim agents)";
  // The subsection is inside the Performance section: after its heading, before the next section.
  auto subsection = [&] {
    const std::string text = slurp(page);
    const auto at = text.find(heading), performance = text.find("## Performance"),
               next = text.find("\n## ", performance + 1);
    REQUIRE(at != std::string::npos);
    REQUIRE(performance != std::string::npos);
    CHECK(performance < at);
    CHECK(at < next);
    return text.substr(at, next == std::string::npos ? std::string::npos : next - at);
  };

  SECTION("every served run's records equal the in-process run's") {
    std::ofstream(bench_file) << bench.dump(2);
    REQUIRE(results_page(shipped + bench_file.string()) == 0);
    const std::string s = subsection();
    INFO(s);
    CHECK(s.find("Measured by `build/tools/bench_distributed --json docs/bench-distributed.json`") !=
          std::string::npos);
    CHECK(s.find("fedsim 9.8.7, commit `abc1234`, 2031-01-02T03:04:05Z, in 62 s") != std::string::npos);
    CHECK(s.find("2 logical cores") != std::string::npos);
    CHECK(s.find("load average 1.25 at the start and 1.75 at the end") != std::string::npos);
    CHECK(s.find("Build: Release") != std::string::npos);
    CHECK(s.find("`scenarios/stragglers/deadline.toml` with N = 100 agents and T = 20 iterations") !=
          std::string::npos);
    CHECK(s.find("| in-process (`fedsim run`) | 0 | 0.412 | 0.456 | 4853 | 1.000 | 5990 | – | "
                 "reference |") != std::string::npos);
    CHECK(s.find("| served to 1 agent process | 1 | 1.234 | 1.300 | 1620 | 0.334 | 5990 | 137 (141) "
                 "| identical |") != std::string::npos);
    CHECK(s.find("| served to 2 agent processes | 2 | 2.500 | 2.610 | 800 | 0.165 | 5990 | 349 (360) "
                 "| identical |") != std::string::npos);
    CHECK(s.find("Every served run's records were byte-identical to the in-process run's: 6 served "
                 "runs") != std::string::npos);
    CHECK(s.find("WARNING") == std::string::npos);
    CHECK(s.find("This machine has 2 logical cores: served to 2 agent processes") != std::string::npos);
  }

  SECTION("a served run whose records differ, and one that failed, are said loudly") {
    bench["modes"][2].update({{"records_differ", 1}, {"records_equal", false}});
    bench["modes"][1].update({{"failed", 1}, {"runs", 2}, {"records_equal", false}});
    bench["records_equal"] = false;
    std::ofstream(bench_file) << bench.dump(2);
    REQUIRE(results_page(shipped + bench_file.string()) == 0);
    const std::string s = subsection();
    INFO(s);
    CHECK(s.find("**WARNING: NOT every served run's records were byte-identical to the in-process "
                 "run's**") != std::string::npos);
    CHECK(s.find("| 349 (360) | **DIFFER** in 1 of 3 runs |") != std::string::npos);
    CHECK(s.find("| 137 (141) | **1 of 3 runs FAILED** |") != std::string::npos);
    CHECK(s.find("were byte-identical to the in-process run's:") == std::string::npos);
  }

  SECTION("no benchmark file: a note on how to make it") {
    const fs::path missing = dir / "none.json";
    REQUIRE(results_page(shipped + missing.string()) == 0);
    const std::string s = subsection();
    INFO(s);
    CHECK(s.find("No distributed-runs benchmark at `" + missing.string() +
                 "`: run `tools/reproduce --bench` (or `build/tools/bench_distributed --json " +
                 missing.string() + "`, then `tools/reproduce`).") != std::string::npos);
    CHECK(s.find("| mode |") == std::string::npos);
  }
}

TEST_CASE("results_page.py shows the wall-clock lateness benchmark in the Performance section",
          "[cli][results]") {
  // A hand-made build/tools/bench_wall_clock_lateness --json file: two scales, one of which
  // delivered nothing (null lateness).
  const fs::path dir = fresh_dir("results-page-wall-clock");
  fs::create_directories(dir);
  const fs::path page = dir / "results.md", bench_file = dir / "bench-wall-clock.json";
  nlohmann::json bench = {
      {"command", "build/tools/bench_wall_clock_lateness --json docs/bench-wall-clock.json"},
      {"fedsim_version", "9.8.7"}, {"git_commit", "abc1234"}, {"date", "2031-01-02T03:04:05Z"},
      {"wall_seconds", 20.2},
      {"machine", {{"cpu", "Test CPU"}, {"logical_cores", 2}, {"kernel", "Linux 9.9"},
                   {"load_average_at_start", {0.5, 1.0, 1.0}},
                   {"load_average_at_end", {1.5, 1.0, 1.0}}}},
      {"build", {{"type", "Release"}, {"compiler", "GCC 12.2.0"}, {"assertions", false}}},
      {"scenario", "scenarios/wall/deadline-chaos.toml"}, {"agents", 16}, {"iterations", 15},
      {"repeats", 3}, {"threads", 2},
      {"scales",
       {{{"time_scale", 0.25}, {"wall_s", 5.41}, {"model_s", 21.6}, {"delivered", 629},
         {"lateness_median_s", 0.000128}, {"lateness_p99_s", 0.000260}},
        {{"time_scale", 0.01}, {"wall_s", 0.26}, {"model_s", 24.2}, {"delivered", 0},
         {"lateness_median_s", nullptr}, {"lateness_p99_s", nullptr}}}}};
  const std::string args = "--results " + (source_root / "docs" / "results").string() +
                           " --bench " + (source_root / "docs" / "bench.json").string() +
                           " --page " + page.string() + " --bench-wall-clock ";
  const std::string heading = "### Wall-clock time: what the network adds over the modelled delay";

  SECTION("one row per scale; p99 also in model milliseconds; null is a dash") {
    std::ofstream(bench_file) << bench.dump(2);
    REQUIRE(results_page(args + bench_file.string()) == 0);
    const std::string text = slurp(page);
    const auto at = text.find(heading), performance = text.find("## Performance");
    REQUIRE(at != std::string::npos);
    REQUIRE(performance != std::string::npos);
    CHECK(performance < at);
    const std::string s = text.substr(at);
    INFO(s);
    CHECK(s.find("Measured by `build/tools/bench_wall_clock_lateness --json "
                 "docs/bench-wall-clock.json`") != std::string::npos);
    CHECK(s.find("load average 0.50 at the start and 1.50 at the end") != std::string::npos);
    CHECK(s.find("N = 16 agents, T = 15 iterations") != std::string::npos);
    // 260 us at a scale of 0.25 is 1.04 model ms.
    CHECK(s.find("| 0.25 | 5.41 | 21.60 | 629 | 128 | 260 | 1.04 |") != std::string::npos);
    CHECK(s.find("| 0.01 | 0.26 | 24.20 | 0 | – | – | – |") != std::string::npos);
  }

  SECTION("no benchmark file: a note on how to make it") {
    const fs::path missing = dir / "none.json";
    REQUIRE(results_page(args + missing.string()) == 0);
    const std::string text = slurp(page);
    CHECK(text.find(heading) != std::string::npos);
    CHECK(text.find("No wall-clock benchmark at `" + missing.string() + "`") != std::string::npos);
  }
}

TEST_CASE("results_page.py shows what the privacy accountants cost a run", "[cli][results]") {
  const fs::path dir = fresh_dir("results-page-accountants");
  fs::create_directories(dir);
  const fs::path page = dir / "results.md", bench_file = dir / "bench-accountants.json";
  nlohmann::json bench = {
      {"command", "build/tools/bench_accountants --json docs/bench-accountants.json"},
      {"fedsim_version", "9.8.7"}, {"git_commit", "abc1234"}, {"date", "2031-01-02T03:04:05Z"},
      {"wall_seconds", 9.6},
      {"machine", {{"cpu", "Test CPU"}, {"logical_cores", 2}, {"kernel", "Linux 9.9"},
                   {"load_average_at_start", {0.5, 1.0, 1.0}},
                   {"load_average_at_end", {1.5, 1.0, 1.0}}}},
      {"build", {{"type", "Release"}, {"compiler", "GCC 12.2.0"}, {"assertions", false}}},
      {"scenario", "scenarios/dp-fts-de-synthetic.toml"}, {"agents", 200}, {"iterations", 40},
      {"releases", 40}, {"q", 0.25}, {"z", 1.0}, {"delta", 0.00294}, {"repeats", 5},
      {"run_moments_s", 0.531}, {"run_tight_s", 0.493}, {"moments_alone_s", 0.0126},
      {"tight_alone_s", 0.0507}, {"ledger_s", 0.0566}, {"moments_only_run_s", 0.487},
      {"tight_only_run_s", 0.525}, {"ratio", 1.078}};
  const std::string args = "--results " + (source_root / "docs" / "results").string() +
                           " --bench " + (source_root / "docs" / "bench.json").string() +
                           " --page " + page.string() + " --bench-accountants ";
  const std::string heading = "### Privacy accountants: what they cost a run";
  auto section = [&] {
    const std::string text = slurp(page);
    const auto at = text.find(heading), performance = text.find("## Performance");
    REQUIRE(at != std::string::npos);
    REQUIRE(performance != std::string::npos);
    CHECK(performance < at);
    return text.substr(at, text.find("\n### ", at + 1) - at);
  };

  SECTION("the table and the verdict within the target") {
    std::ofstream(bench_file) << bench.dump(2);
    REQUIRE(results_page(args + bench_file.string()) == 0);
    const std::string s = section();
    INFO(s);
    CHECK(s.find("40 private releases of q = 0.25, z = 1") != std::string::npos);
    CHECK(s.find("| a run pricing with tight only | 0.525 |") != std::string::npos);
    CHECK(s.find("| the tight accountant alone, after each release | 0.0507 |") != std::string::npos);
    CHECK(s.find("Tight / moments: **1.078**, within the target of 1.2.") != std::string::npos);
  }

  SECTION("a ratio above the target is said so") {
    bench["ratio"] = 1.5;
    std::ofstream(bench_file) << bench.dump(2);
    REQUIRE(results_page(args + bench_file.string()) == 0);
    CHECK(section().find("Tight / moments: **1.500**, **above** the target of 1.2.") !=
          std::string::npos);
  }

  SECTION("no benchmark file: a note on how to make it") {
    const fs::path missing = dir / "none.json";
    REQUIRE(results_page(args + missing.string()) == 0);
    CHECK(section().find("No accountants benchmark at `" + missing.string() + "`") !=
          std::string::npos);
  }
}

TEST_CASE("results_page.py judges a claim by fedsim compare on the runs table, paired by seed",
          "[cli][results]") {
  // The shipped results with figure 7a's runs table replaced: FTS-DE's regret area 0.01 below
  // TS's on every seed but for ±0.001 on two, so the paired differences are -0.010, -0.011,
  // -0.009, -0.010, -0.010: mean -0.01, sd 0.000707, and with t(0.975, 4) = 2.7764 the 95 %
  // interval is -0.01 ± 0.000878. Unpaired, the two sets of regret areas overlap (0.02..0.06
  // against 0.03..0.07): only the pairing decides. The sweep table (dp-fts-de-fig7a.csv) is
  // left as shipped, so a verdict read from it would not change.
  const fs::path dir = fresh_dir("results-page-verdicts");
  fs::create_directories(dir);
  const fs::path results = dir / "results", page = dir / "results.md";
  fs::copy(source_root / "docs" / "results", results, fs::copy_options::recursive);
  std::ofstream(results / "dp-fts-de-fig7a_runs.csv")
      << "algorithm.name,seed,folder,regret_area\n"
         "ts,1,a,0.03\nts,2,b,0.04\nts,3,c,0.05\nts,4,d,0.06\nts,5,e,0.07\n"
         "fts-de,1,f,0.02\nfts-de,2,g,0.029\nfts-de,3,h,0.041\nfts-de,4,i,0.05\nfts-de,5,j,0.06\n";
  const std::string args = "--results " + results.string() + " --bench " +
                           (source_root / "docs" / "bench.json").string() + " --page " + page.string();

  SECTION("the verdict, a - b, its interval and n, from the runs table") {
    REQUIRE(results_page(args) == 0);
    const std::string text = slurp(page);
    CHECK(text.find("## How the claims are judged") != std::string::npos);
    CHECK(text.find("(a) α = 0.7, regret area, a = FTS-DE, b = TS, a below b: **reproduced** "
                    "(a − b = −0.01, 95 % CI [−0.0109, −0.00912], n = 5)") != std::string::npos);
    // The sampler table's row for the claim, the default sampler's cell first.
    CHECK(text.find("| 7a: α = 0.7, FTS-DE below TS | **reproduced**: a − b = −0.01, 95 % CI "
                    "[−0.0109, −0.00912], n = 5 |") != std::string::npos);
    CHECK(text.find("within noise") == std::string::npos);
    CHECK(text.find("standard error of the difference") == std::string::npos);
  }

  SECTION("no fedsim binary: an error naming --fedsim, and no page") {
    CHECK(results_page(args + " --fedsim " + (dir / "no-such-fedsim").string()) == 2);
    CHECK_FALSE(fs::exists(page));
  }
}
