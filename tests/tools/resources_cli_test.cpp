// Issue 32 end to end: accepted values that would exhaust the machine are refused at load by
// the resource estimate (--max-memory), a sweep locks the run folders it owns, and the smaller
// edges (one iteration, a name leaving out/, warnings before an error line).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"
#include "tools/fedsim/run_folder.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::run_shell;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;
const std::string tiny = (scenarios / "tiny.toml").string();

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// stderr alone of `fedsim ARGS`.
fedsim::test::CommandResult stderr_of(const std::string& args) {
  return run_shell(fedsim::test::fedsim_binary() + " " + args + " 2>&1 1>/dev/null");
}

}  // namespace

TEST_CASE("fedsim run refuses a run above the machine's memory in one line naming the key",
          "[cli][resources]") {
  const fs::path out = fresh_dir("resources-features");
  for (const char* set : {"algorithm.features=2147483647", "world.agents=2147483647",
                          "world.objective.grid_size=2147483647"}) {
    INFO(set);
    const auto r = stderr_of("run " + tiny + " --quiet --set " + set + " --out " + out.string());
    CHECK(r.exit_code == 2);
    CHECK(lines(r.output) == 1);
    CHECK(r.output.rfind("fedsim: error: the run needs about ", 0) == 0);
    const std::string key = std::string(set).substr(0, std::string(set).find('='));
    CHECK(r.output.find("'" + key + "'") != std::string::npos);
    CHECK(r.output.find("physical memory") != std::string::npos);
    CHECK_FALSE(fs::exists(out / "summary.json"));
  }
}

TEST_CASE("the option --max-memory sets the limit, none lifts it, a bad size is a usage error",
          "[cli][resources]") {
  const fs::path out = fresh_dir("resources-max-memory");
  const auto small = stderr_of("run " + tiny + " --quiet --max-memory 1M --out " + out.string());
  CHECK(small.exit_code == 2);
  CHECK(lines(small.output) == 1);
  CHECK(small.output.find("--max-memory 1M") != std::string::npos);
  const auto bad = stderr_of("run " + tiny + " --quiet --max-memory 8X --out " + out.string());
  CHECK(bad.exit_code == 2);
  CHECK(lines(bad.output) == 1);
  CHECK(bad.output.find("expected a size like 8G") != std::string::npos);
  const auto none = run_fedsim("run " + tiny + " --quiet --max-memory none --out " + out.string());
  INFO(none.output);
  CHECK(none.exit_code == 0);
  CHECK(fs::exists(out / "summary.json"));
}

TEST_CASE("fedsim sweep refuses a plan above the limit before planning it", "[cli][resources][sweep]") {
  const fs::path out = fresh_dir("resources-sweep");
  // 1000 x 1000 grid points: a million configurations, refused without loading one.
  std::string values;
  for (int i = 1; i <= 1000; ++i) values += (i > 1 ? "," : "") + std::to_string(i);
  const auto r = stderr_of("sweep " + tiny + " --quiet --grid algorithm.n_init=" + values +
                           " --grid algorithm.iterations=" + values + " --max-memory 4G --out " +
                           out.string());
  CHECK(r.exit_code == 2);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.find("the sweep's plan (1e+06 runs") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // The runs at once: --jobs of the largest run.
  const auto jobs = stderr_of("sweep " + tiny + " --quiet --grid algorithm.features=10,100000 "
                              "--jobs 2 --max-memory 64G --out " + out.string());
  CHECK(jobs.exit_code == 2);
  CHECK(lines(jobs.output) == 1);
  CHECK(jobs.output.find("2 runs at once") != std::string::npos);
  CHECK(jobs.output.find("algorithm.features=100000") != std::string::npos);
}

TEST_CASE("a sweep locks each run folder it owns", "[cli][resources][sweep]") {
  const fs::path root = fresh_dir("resources-sweep-lock");
  {
    // Another command holds the run folder seed=1 (as `fedsim run --out ROOT/seed=1` would):
    // the sweep's run there is refused, the other seed runs.
    const fedsim::cli::FolderLock held(root / "seed=1", "fedsim run (the test)");
    const auto r = run_fedsim("sweep " + tiny + " --seeds 2 --out " + root.string());
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("seed=1") != std::string::npos);
    CHECK(r.output.find("is in use by") != std::string::npos);
    CHECK(fs::exists(root / "seed=2" / "summary.json"));
    CHECK_FALSE(fs::exists(root / "seed=1" / "summary.json"));
  }
  const auto again = run_fedsim("sweep " + tiny + " --seeds 2 --out " + root.string());
  INFO(again.output);
  CHECK(again.exit_code == 0);
  // The sweep released its run folders: a later run into one is refused for its content only.
  const auto run = run_fedsim("run " + tiny + " --quiet --seed 7 --out " + (root / "seed=1").string());
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("another configuration") != std::string::npos);
}

TEST_CASE("a one-iteration run with the default policy finishes", "[cli][resources]") {
  const fs::path out = fresh_dir("resources-one-iteration");
  const auto r = run_fedsim("run " + tiny + " --quiet --set algorithm.iterations=1 --out " + out.string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(out / "summary.json"));
}

TEST_CASE("a name that would leave out/ is refused, warnings never precede the error line",
          "[cli][resources]") {
  const fs::path cwd = fresh_dir("resources-name");
  // In a folder of its own: were it accepted, it would write two levels above out/.
  const fs::path deep = cwd / "a" / "b";
  fs::create_directories(deep);
  const auto name = run_shell("cd " + deep.string() + " && " + fedsim::test::fedsim_binary() +
                              " run " + tiny + " --quiet --set 'name=\"../../x\"' 2>&1 1>/dev/null");
  CHECK(name.exit_code == 2);
  CHECK(lines(name.output) == 1);
  CHECK(name.output.find("'name'") != std::string::npos);
  CHECK_FALSE(fs::exists(cwd / "a" / "x"));
  // A key without effect (a warning) and an --out that is a file (the error): the error alone.
  const fs::path file = cwd / "a-file";
  std::ofstream(file) << "x\n";
  const auto held = stderr_of("run " + tiny + " --quiet --set policy.deadline=2 --out " + file.string());
  CHECK(held.exit_code == 2);
  CHECK(lines(held.output) == 1);
  CHECK(held.output.rfind("fedsim: error: ", 0) == 0);
  // The same warning is printed when the run goes ahead.
  const auto warned = stderr_of("run " + tiny + " --quiet --set policy.deadline=2 --out " +
                                (cwd / "run").string());
  CHECK(warned.exit_code == 0);
  CHECK(warned.output.find("fedsim: warning: key 'policy.deadline' has no effect") !=
        std::string::npos);
}

TEST_CASE("fedsim privacy refuses a --max-bins above the machine's memory", "[cli][resources][dp]") {
  const auto r = stderr_of("privacy --q 0.25 --z 1 --steps 40 --agents 200 --accountant tight "
                           "--max-bins 1099511627776");
  CHECK(r.exit_code == 2);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.find("--max-bins") != std::string::npos);
}

TEST_CASE("fedsim run refuses a run above the work limit in one line naming the key",
          "[cli][resources][work]") {
  const fs::path out = fresh_dir("resources-work");
  // All 60,000 samples of Fashion-MNIST over 2 agents: 30,000 to factor per evaluation.
  const std::string svm = (scenarios / "papers/real/svm-detection.toml").string();
  const auto r = stderr_of("run " + svm +
                           " --quiet --set world.objective.samples=0 --set "
                           "world.agents=2 --out " +
                           out.string());
  CHECK(r.exit_code == 2);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.rfind("fedsim: error: the run needs about ", 0) == 0);
  CHECK(r.output.find("CPU-") != std::string::npos);
  CHECK(r.output.find("key 'world.objective.samples'") != std::string::npos);
  CHECK(r.output.find("the default --max-work 24h") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // fedsim serve checks it too, before it listens.
  const auto served = stderr_of("serve " + svm +
                                " --quiet --set world.objective.samples=0 --set "
                                "world.agents=2 --listen 127.0.0.1:0 --secret-file /nonexistent "
                                "--out " +
                                out.string());
  CHECK(served.exit_code == 2);
  CHECK(served.output.find("key 'world.objective.samples'") != std::string::npos);
}

TEST_CASE("the option --max-work sets the limit, none lifts it, a bad time is a usage error",
          "[cli][resources][work]") {
  const fs::path out = fresh_dir("resources-max-work");
  const auto small = stderr_of("run " + tiny + " --quiet --max-work 0.001s --out " + out.string());
  CHECK(small.exit_code == 2);
  CHECK(lines(small.output) == 1);
  CHECK(small.output.find("--max-work 0.001s") != std::string::npos);
  const auto bad = stderr_of("run " + tiny + " --quiet --max-work 8x --out " + out.string());
  CHECK(bad.exit_code == 2);
  CHECK(lines(bad.output) == 1);
  CHECK(bad.output.find("expected a CPU time like 24h") != std::string::npos);
  const auto none = run_fedsim("run " + tiny + " --quiet --max-work none --out " + out.string());
  INFO(none.output);
  CHECK(none.exit_code == 0);
  CHECK(fs::exists(out / "summary.json"));
}

TEST_CASE("fedsim sweep refuses runs whose work, summed, is above the limit",
          "[cli][resources][work][sweep]") {
  const fs::path out = fresh_dir("resources-sweep-work");
  const auto r =
      stderr_of("sweep " + tiny + " --quiet --seeds 3 --max-work 0.001s --out " + out.string());
  CHECK(r.exit_code == 2);
  CHECK(lines(r.output) == 1);
  CHECK(r.output.rfind("fedsim: error: the sweep needs about ", 0) == 0);
  CHECK(r.output.find("over the 3 runs") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  const auto ok = stderr_of("sweep " + tiny + " --quiet --seeds 2 --out " + out.string());
  CHECK(ok.exit_code == 0);
}
