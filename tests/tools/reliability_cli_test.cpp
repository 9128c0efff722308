// Regression tests of issue 10's bugs 6, 7, 9, 10 and 11 through the `fedsim` binary: one
// clear line and exit code 2 for bad input, sweeps that tabulate every run, and output folders
// that two commands cannot mix.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"
#include "tools/fedsim/run_folder.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_rows;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;
const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();

/// `s` as one shell word, whatever bytes it holds.
std::string sh(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::size_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

/// A usage error: exit code 2 and exactly one line "fedsim: error: ..." mentioning `names`,
/// with no control byte but its final newline.
void check_one_line_error(const fedsim::test::CommandResult& r, const std::string& names) {
  INFO(r.output.substr(0, 3000));
  CHECK(r.exit_code == 2);
  CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
  CHECK(lines(r.output) == 1);
  CHECK(std::none_of(r.output.begin(), r.output.end() - 1,
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }));
  CHECK(r.output.find(names) != std::string::npos);
}

}  // namespace

TEST_CASE("fedsim privacy answers +inf at once for a release with no noise", "[cli][dp][edge]") {
  const auto start = std::chrono::steady_clock::now();
  const auto moments = run_fedsim("privacy --q 0.25 --z 1e-160 --steps 5 --agents 8 --accountant moments");
  // It did not answer within 20 s before the fix (and said 0 when it did); now milliseconds.
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 10.0);
  const auto tight = run_fedsim("privacy --q 0.25 --z 1e-160 --steps 5 --agents 8 --accountant tight");
  for (const auto& r : {moments, tight}) {
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.rfind("epsilon = inf ", 0) == 0);
  }
}

TEST_CASE("bad overrides and options get one escaped, bounded line and exit code 2",
          "[cli][errors]") {
  const fs::path out = fresh_dir("errors");
  const std::string run = "run " + tiny + " --quiet --out " + out.string() + " ";
  // Was "fedsim: failed: stoul", exit 1.
  check_one_line_error(run_fedsim(run + "--set " + sh("a[99999999999999999999]=1")),
                       "out of range");
  // Was accepted, and writing summary.json threw after config.resolved.toml was written.
  check_one_line_error(run_fedsim(run + "--set " + sh("name=caf\xe9\xff")), "not valid UTF-8");
  CHECK_FALSE(fs::exists(out / "config.resolved.toml"));
  // Newlines and escape sequences in what is echoed stay on the line, escaped.
  check_one_line_error(run_fedsim(run + "--set " + sh("algorithm.q\n\x1b[31m=1")), "\\x1b[31m");
  check_one_line_error(run_fedsim(run + "--set " + sh("policy.kind=fast\x1b]0;x\x07")),
                       "policy.kind");
  // A 100 kB key (the most one argument may hold) gives a short line.
  const auto long_key = run_fedsim(run + "--set " + sh("algorithm." + std::string(100000, 'k') + "=1"));
  check_one_line_error(long_key, "algorithm.kkk");
  CHECK(long_key.output.size() < 2500);
  const auto long_value = run_fedsim(run + "--set " + sh("algorithm.q=" + std::string(100000, 'v')));
  check_one_line_error(long_value, "bytes)");
  CHECK(long_value.output.size() < 2500);
  // --seed was ignored when negative and clamped when too large.
  check_one_line_error(run_fedsim(run + "--seed -5"), "--seed '-5'");
  check_one_line_error(run_fedsim(run + "--seed 9223372036854775808"), "--seed");
  check_one_line_error(run_fedsim(run + "--seed 1e3"), "--seed");
  check_one_line_error(run_fedsim("sweep " + tiny + " --seed-list 1,9223372036854775808 --out " +
                                  out.string()),
                       "--seed-list");
  check_one_line_error(run_fedsim("sweep " + tiny + " --seed-list -3 --out " + out.string()),
                       "--seed-list");
  check_one_line_error(run_fedsim("reference --seed -5 --out " + out.string()), "--seed");  // wrapped to 2^64 - 5
  check_one_line_error(run_fedsim("xarmed --seed -1 --out " + out.string()), "--seed");
  CHECK_FALSE(fs::exists(out / "summary.json"));
}

TEST_CASE("an output folder that cannot be made is a usage error, in one line", "[cli][errors]") {
  const fs::path dir = fresh_dir("out-file");
  fs::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  // Was exit 1 with a raw filesystem_error.
  check_one_line_error(run_fedsim("run " + tiny + " --quiet --out " + (dir / "file" / "run").string()),
                       "cannot create the folder");
  REQUIRE(run_fedsim("run " + tiny + " --quiet --out " + (dir / "run").string()).exit_code == 0);
  // `fedsim plot --out` onto a file printed a Python traceback.
  const auto plot = run_fedsim("plot " + (dir / "run").string() + " --out " + (dir / "file").string());
  check_one_line_error(plot, "--out");
  CHECK(plot.output.find("Traceback") == std::string::npos);
}

TEST_CASE("deeply nested keys are refused with a clear line, not a stack overflow",
          "[cli][errors][scenario]") {
  const fs::path dir = fresh_dir("deep");
  fs::create_directories(dir);
  const std::string deep(200000, 'a');
  std::string dotted = "a", header = "[a", inline_table = "x = { a";
  for (int i = 0; i < 100000; ++i) dotted += ".a", header += ".a", inline_table += ".a";
  const struct {
    const char* name;
    std::string text;
  } cases[] = {{"dotted", dotted + " = 1\n"},
               {"header", header + "]\nx = 1\n"},
               {"inline", inline_table + " = 1 }\n"},
               {"arrays", "x = " + std::string(5000, '[') + std::string(5000, ']') + "\n"}};
  for (const auto& c : cases) {
    INFO(c.name);
    const fs::path file = dir / (std::string(c.name) + ".toml");
    std::ofstream(file) << c.text;
    const auto r = run_fedsim("run " + file.string() + " --quiet --out " + (dir / "out").string());
    check_one_line_error(r, "nested deeper than");
  }
  std::string key = "a";
  for (int i = 0; i < 1000; ++i) key += ".a";
  check_one_line_error(run_fedsim("run " + tiny + " --set " + key + "=1"), "deeper than 64");
  check_one_line_error(
      run_fedsim("run " + tiny + " --set " + sh("algorithm.q=" + std::string(100, '[') + std::string(100, ']'))),
      "deeper than 64");
}

TEST_CASE("fedsim sweep tabulates a run whose virtual time is infinite (null)", "[cli][sweep]") {
  const fs::path root = fresh_dir("sweep-null-time");
  const std::string command =
      "sweep " + tiny + " --grid algorithm.q=0.25,0.5 --seeds 1 --quiet --out " + root.string();
  REQUIRE(run_fedsim(command).exit_code == 0);
  // JSON has no infinity: an infinite virtual time is written as null.
  const fs::path summary = root / "algorithm.q=0.5" / "seed=1" / "summary.json";
  auto s = nlohmann::json::parse(slurp(summary));
  s["virtual_time"] = nullptr;
  std::ofstream(summary) << s.dump(2);
  const auto r = run_fedsim(command);  // a resume: both runs complete, the tables rewritten
  INFO(r.output);
  REQUIRE(r.exit_code == 0);  // was 1: "type must be number, but is null"
  const auto rows = read_rows(root / "sweep_runs.csv");
  REQUIRE(rows.size() == 3);
  const auto column = std::find(rows[0].begin(), rows[0].end(), "virtual_time") - rows[0].begin();
  CHECK_FALSE(rows[1][column].empty());
  CHECK(rows[2][column].empty());  // NaN for pandas
}

TEST_CASE("an output folder in use is locked: a second writer exits 2 naming the holder",
          "[cli][folders]") {
  const fs::path root = fresh_dir("locked");
  {
    const fedsim::cli::FolderLock held(root, "fedsim sweep held-by-the-test");
    for (const std::string& cmd :
         {"sweep " + tiny + " --grid algorithm.q=0.25,0.5 --quiet --out " + root.string(),
          "run " + tiny + " --quiet --out " + root.string()}) {
      const auto r = run_fedsim(cmd);
      check_one_line_error(r, "in use by 'pid " + std::to_string(::getpid()));
      CHECK(r.output.find("held-by-the-test") != std::string::npos);
    }
  }
  CHECK_FALSE(fs::exists(root / ".fedsim.lock"));  // released and removed
  // Two real sweeps into one folder at once: the second one refuses while the first runs.
  const std::string sweep =
      "sweep " + tiny + " --grid algorithm.q=0.1,0.2,0.3,0.4,0.5,0.6 --seeds 2 --jobs 1 --quiet --out " +
      root.string();
  const fs::path first_output = fs::temp_directory_path() / "fedsim-test-locked-first.txt";
  FILE* first = popen((fedsim::test::fedsim_binary() + " " + sweep + " > " + first_output.string() +
                       " 2>&1").c_str(),
                      "r");
  REQUIRE(first);
  for (int i = 0; i < 2000 && !fs::exists(root / ".fedsim.lock"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto second = run_fedsim(sweep);
  const int first_status = pclose(first);
  INFO(slurp(first_output));
  CHECK(WIFEXITED(first_status));
  CHECK(WEXITSTATUS(first_status) == 0);
  check_one_line_error(second, "is in use by 'pid ");
}

TEST_CASE("fedsim run refuses to replace another configuration's run without --force",
          "[cli][folders]") {
  const fs::path dir = fresh_dir("replace");
  const std::string run = "run " + tiny + " --quiet --out " + dir.string();
  REQUIRE(run_fedsim(run).exit_code == 0);
  const auto first = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(first["config_hash"].get<std::string>().rfind("fnv1a64:", 0) == 0);
  const auto version = run_fedsim("--version");
  CHECK(version.output == "fedsim " + first["version"].get<std::string>() + "\n");
  // The same configuration again: allowed, the run is replaced by an identical one.
  REQUIRE(run_fedsim(run).exit_code == 0);
  // Another configuration: was overwritten without a word.
  const auto refused = run_fedsim(run + " --set algorithm.q=0.5");
  check_one_line_error(refused, "--force");
  CHECK(slurp(dir / "config.resolved.toml").find("q = 0.25") != std::string::npos);
  CHECK(nlohmann::json::parse(slurp(dir / "summary.json"))["config_hash"] == first["config_hash"]);
  const auto forced = run_fedsim(run + " --set algorithm.q=0.5 --force");
  REQUIRE(forced.exit_code == 0);
  CHECK(slurp(dir / "config.resolved.toml").find("q = 0.5") != std::string::npos);
  CHECK(nlohmann::json::parse(slurp(dir / "summary.json"))["config_hash"] != first["config_hash"]);
  // A folder of other files is never a run folder to replace, even with --force.
  const fs::path other = fresh_dir("replace-other");
  fs::create_directories(other);
  std::ofstream(other / "notes.txt") << "mine";
  check_one_line_error(run_fedsim("run " + tiny + " --quiet --force --out " + other.string()),
                       "not a run's");
  CHECK(slurp(other / "notes.txt") == "mine");
}

TEST_CASE("a run that fails leaves the previous run whole and no staging folder",
          "[cli][folders]") {
  const fs::path dir = fresh_dir("failed-rerun");
  REQUIRE(run_fedsim("run " + tiny + " --quiet --out " + dir.string()).exit_code == 0);
  const std::string summary = slurp(dir / "summary.json"), rounds = slurp(dir / "rounds.csv");
  // A trace the run reads only once it started (after config.resolved.toml was written).
  const fs::path trace = fs::temp_directory_path() / "fedsim-test-bad-trace.csv";
  std::ofstream(trace) << "agent,start,end\nzero,0,1\n";
  const auto r = run_fedsim("run " + tiny + " --quiet --force --out " + dir.string() +
                            " --set world.network.availability_file=" + trace.string());
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(lines(r.output) == 1);
  CHECK(slurp(dir / "summary.json") == summary);
  CHECK(slurp(dir / "rounds.csv") == rounds);
  CHECK(slurp(dir / "config.resolved.toml").find("fedsim-test-bad-trace") == std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir.parent_path()))
    CHECK(entry.path().filename().string().rfind("." + dir.filename().string() + ".tmp-", 0) ==
          std::string::npos);
}

TEST_CASE("a sweep resume reruns a folder whose summary belongs to another configuration",
          "[cli][folders][sweep]") {
  const fs::path root = fresh_dir("sweep-stale");
  const std::string command =
      "sweep " + tiny + " --grid algorithm.q=0.25,0.5 --seeds 1 --out " + root.string();
  REQUIRE(run_fedsim(command).exit_code == 0);
  // What two sweeps writing one folder left: q = 0.5's folder with q = 0.25's summary.
  const fs::path stale = root / "algorithm.q=0.5" / "seed=1";
  fs::copy_file(root / "algorithm.q=0.25" / "seed=1" / "summary.json", stale / "summary.json",
                fs::copy_options::overwrite_existing);
  const auto r = run_fedsim(command);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("algorithm.q=0.5 seed=1: configuration changed") != std::string::npos);
  CHECK(r.output.find("algorithm.q=0.25 seed=1 skipped (complete)") != std::string::npos);
  const auto fixed = nlohmann::json::parse(slurp(stale / "summary.json"));
  const auto good = nlohmann::json::parse(slurp(root / "algorithm.q=0.25" / "seed=1" / "summary.json"));
  CHECK(fixed["config_hash"] != good["config_hash"]);
}
