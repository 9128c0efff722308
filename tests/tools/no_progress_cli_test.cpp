// Runs that make no progress end, and say why (issue 32 items 4 and 5, issue 38's breaker):
// evaluations that keep failing stop the run with exit 3 and one line naming the failure and
// where the workers' stderr is; a run whose agents observed nothing because their evaluations
// failed is not "completed"; a wall-clock run whose next event is beyond run.wall_horizon ends
// at once. Loopback only; no assertion on time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();

/// A folder with worker.py (`body`: what it does for each request line `r`, parsed) and
/// run.toml: 2 agents, 4 workers, defaults otherwise (on_failure = retry).
fs::path external_run(const std::string& name, const std::string& body,
                      const std::string& extra = "") {
  const fs::path dir = fresh_dir(name);
  fs::create_directories(dir);
  std::ofstream(dir / "worker.py") << "import json, sys\n"
                                      "for line in sys.stdin:\n"
                                      "    r = json.loads(line)\n"
                                   << body;
  std::ofstream(dir / "run.toml")
      << "name = \"" << name << "\"\n[world]\nagents = 2\n[world.objective]\nkind = \"command\"\n"
      << "command = [\"" << fedsim::test::python_interpreter() << "\", \""
      << (dir / "worker.py").string() << "\"]\ndimension = 2\nworkers = 4\n" << extra
      << "[algorithm]\nname = \"fts-de\"\niterations = 3\nn_init = 3\nfeatures = 20\n"
         "kernel_lengthscale = 0.2\nacquisition_candidates = 100\n";
  return dir;
}

/// The answer a worker prints for request r.
const std::string answer =
    "    print(json.dumps({'id': r['id'], 'y': -sum((v - 0.5) ** 2 for v in r['x'])}), "
    "flush=True)\n";

/// Exit 3, and the last line is the one "fedsim: run did not complete: ..." holding `what`.
void check_incomplete(const fedsim::test::CommandResult& r, const std::string& what) {
  INFO(r.output);
  CHECK(r.exit_code == 3);
  const auto at = r.output.find("fedsim: run did not complete: ");
  REQUIRE(at != std::string::npos);
  CHECK(r.output.find(what, at) != std::string::npos);
}

}  // namespace

TEST_CASE("a worker that prints one stray line to stdout stops the run with exit 3, naming "
          "not_json and the worker logs", "[cli][external][no-progress]") {
  const fs::path dir = external_run("stray-print", "    print('evaluating', r['x'], flush=True)\n" + answer);
  const auto r = run_fedsim("run " + (dir / "run.toml").string() + " --quiet --out " +
                            (dir / "out").string());
  check_incomplete(r, "evaluations in a row failed (run.max_consecutive_failures = 3)");
  CHECK(r.output.find("not_json") != std::string::npos);
  CHECK(r.output.find("workers/worker-<slot>.log") != std::string::npos);
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  CHECK(summary["completed"] == false);
  CHECK(summary["reason"].get<std::string>().find("not_json") != std::string::npos);
}

TEST_CASE("a worker that exits at once stops the run with exit 3", "[cli][external][no-progress]") {
  const fs::path dir = external_run("exits-at-once", "    sys.exit(1)\n");
  const auto r = run_fedsim("run " + (dir / "run.toml").string() + " --quiet --out " +
                            (dir / "out").string());
  check_incomplete(r, "exited: worker ");
}

TEST_CASE("a share of failed evaluations above run.max_failure_rate stops the run",
          "[cli][external][no-progress]") {
  // The odd iterations of each agent fail (-1 of the initial design, 1, 3, ...): never 2 in a
  // row, and at most half of them.
  const fs::path dir = external_run(
      "failure-rate",
      "    if r['iteration'] % 2 == 1:\n"
      "        print(json.dumps({'id': r['id'], 'error': 'even'}), flush=True)\n"
      "        continue\n" + answer,
      "on_failure = \"skip\"\n");
  const std::string run = "run " + (dir / "run.toml").string() +
                          " --set algorithm.iterations=20 --set run.max_consecutive_failures=0"
                          " --quiet --out ";
  auto r = run_fedsim(run + (dir / "a").string() + " --set run.max_failure_rate=0.3");
  check_incomplete(r, "evaluations failed (run.max_failure_rate = 0.3)");
  CHECK(r.output.find("worker_error") != std::string::npos);
  // At the default (0.5) half failing is not above it: the run completes.
  r = run_fedsim(run + (dir / "b").string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

TEST_CASE("with the breaker off, a run whose agents observed nothing because every evaluation "
          "failed is not completed", "[cli][external][no-progress]") {
  const fs::path dir = external_run("breaker-off", "    print('no json', flush=True)\n",
                                    "on_failure = \"skip\"\n");
  const auto r = run_fedsim("run " + (dir / "run.toml").string() +
                            " --set run.max_consecutive_failures=0 --set run.max_failure_rate=1"
                            " --quiet --out " + (dir / "out").string());
  check_incomplete(r, "2 agent(s) never observed anything");
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  CHECK(summary["completed"] == false);
  CHECK(summary["failed_evaluations"].get<int>() > 0);
}

TEST_CASE("a wall-clock run whose next event is beyond run.wall_horizon ends with exit 3 at "
          "once", "[cli][wall-clock][no-progress]") {
  // Each evaluation is held for its modelled compute time: 1e9 model seconds (the largest
  // speed factor accepted at load, 1e6, times 1e3 s), 5e6 real seconds at this time scale.
  const fs::path dir = fresh_dir("wall-horizon");
  const std::string wall = "run " + tiny +
                           " --set run.time=wall --set run.time_scale=0.005"
                           " --set policy.round_timeout=inf --set run.injected_compute=true"
                           " --set 'world.network.compute={kind=\"constant\", value=1000.0}'"
                           " --set world.network.speed_factor=1e6 --quiet --out ";
  auto r = run_fedsim(wall + (dir / "a").string());
  check_incomplete(r, "beyond run.wall_horizon = 3600 s");
  // A horizon shorter than the run's real waits ends it as well, naming the key's value.
  r = run_fedsim("run " + tiny +
                 " --set run.time=wall --set run.time_scale=1 --set run.wall_horizon=0.001"
                 " --set policy.round_timeout=inf"
                 " --set 'world.network.uplink={kind=\"constant\", value=5.0}' --quiet --out " +
                 (dir / "b").string());
  check_incomplete(r, "beyond run.wall_horizon = 0.001 s");
  // The same scenario in virtual time has no horizon.
  r = run_fedsim("run " + tiny + " --set run.wall_horizon=0.001 --quiet --out " +
                 (dir / "c").string());
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

TEST_CASE("run.wall_horizon and the breaker's keys refuse values out of range",
          "[cli][no-progress]") {
  for (const char* bad : {"run.wall_horizon=0", "run.wall_horizon=-1",
                          "run.max_consecutive_failures=-1", "run.max_failure_rate=1.5"}) {
    INFO(bad);
    const auto r = run_fedsim("run " + tiny + " --set " + bad + " --quiet --out " +
                              fresh_dir("no-progress-keys").string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(std::string(bad).substr(0, std::string(bad).find('='))) !=
          std::string::npos);
  }
}

TEST_CASE("SIGTERM ends a run whose members wait for ever, without a checkpoint, in one line",
          "[cli][external][no-progress][signal]") {
  // A worker that never answers, with a timeout of days: the run reaches no quiet moment at
  // which a checkpoint could be saved. Before, the signal only set a flag no one looked at.
  const fs::path dir = external_run("sigterm-stuck",
                                    "    open(sys.argv[0] + '.started', 'w').close()\n"
                                    "    sys.stdin.readline()\n",
                                    "timeout = 1e6\n");
  const std::string started = (dir / "worker.py.started").string();
  const auto r = fedsim::test::run_shell(
      "FEDSIM_DEBUG_INTERRUPT_GRACE=0.5 " + fedsim::test::fedsim_binary() + " run " +
      (dir / "run.toml").string() + " --quiet --out " + (dir / "out").string() +
      " & pid=$!; ( trap exit TERM; sleep 60 & wait $!; kill -KILL $pid ) >/dev/null 2>&1 & "
      "guard=$!; "
      "for i in $(seq 200); do [ -f " + started + " ] && break; sleep 0.05; done; "
      "kill -TERM $pid; wait $pid; code=$?; kill $guard; echo \"exit $code\"");
  INFO(r.output);
  CHECK(r.output.find("exit 143") != std::string::npos);  // 128 + SIGTERM, not SIGKILL's 137
  CHECK(r.output.find("fedsim: interrupted: SIGTERM: the run reached no quiet moment") !=
        std::string::npos);
}

TEST_CASE("a TCP service that accepts and never answers stops the run with exit 3",
          "[cli][external][no-progress]") {
  const fs::path dir = fresh_dir("tcp-silent");
  fs::create_directories(dir);
  // Accepts every connection, reads, never writes; prints its port first.
  std::ofstream(dir / "silent.py")
      << "import socket, threading\n"
         "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(16)\n"
         "print(s.getsockname()[1], flush=True)\n"
         "held = []\n"
         "while True:\n"
         "    c, _ = s.accept(); held.append(c)\n";
  const auto port = fedsim::test::run_shell(
      fedsim::test::python_interpreter() + " " + (dir / "silent.py").string() + " > " +
      (dir / "port").string() + " 2>/dev/null & echo $! > " + (dir / "pid").string() +
      "; for i in $(seq 100); do [ -s " + (dir / "port").string() + " ] && break; sleep 0.05; "
      "done; cat " + (dir / "port").string());
  std::string pid = slurp(dir / "pid");
  pid.erase(std::remove(pid.begin(), pid.end(), '\n'), pid.end());
  const std::string p = port.output.substr(0, port.output.find('\n'));
  REQUIRE_FALSE(p.empty());
  std::ofstream(dir / "run.toml")
      << "name = \"silent\"\n[world]\nagents = 2\n[world.objective]\nkind = \"tcp\"\n"
         "address = \"127.0.0.1:" << p << "\"\ndimension = 2\nworkers = 4\ntimeout = 0.2\n"
         "[algorithm]\nname = \"fts-de\"\niterations = 3\nn_init = 3\nfeatures = 20\n"
         "kernel_lengthscale = 0.2\nacquisition_candidates = 100\n";
  const auto r = run_fedsim("run " + (dir / "run.toml").string() + " --quiet --out " +
                            (dir / "out").string());
  fedsim::test::run_shell("kill " + pid);
  check_incomplete(r, "timeout: worker ");
  CHECK(r.output.find("see the evaluation service's own log") != std::string::npos);
}
