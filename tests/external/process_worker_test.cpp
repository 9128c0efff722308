// What a process worker gets and leaves behind: no file descriptor of fedsim but its three,
// and nothing still running after it is killed (its whole process group goes).
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "external/external_evaluator.hpp"
#include "tests/external/external_test_support.hpp"
#include "tests/test_files.hpp"

using namespace fedsim::external;
using namespace fedsim::external::test;

namespace {

/// Running (not a zombie awaiting a reaper, as in a container whose init does not reap).
bool running(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

}  // namespace

TEST_CASE("a process worker inherits none of fedsim's descriptors", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-fds");
  std::filesystem::create_directories(dir);
  const auto marker = dir / "leak-marker";
  const int leaked = ::open(marker.c_str(), O_WRONLY | O_CREAT, 0644);  // no O_CLOEXEC
  REQUIRE(leaked >= 0);
  const auto script = write_script(dir, "fds.py", R"PY(
import json, os, sys
for line in sys.stdin:
    req = json.loads(line)
    seen = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + fd).endswith("leak-marker"): seen += 1
        except OSError:
            pass
    print(json.dumps({"id": req["id"], "y": seen}), flush=True)
)PY");
  Settings settings;
  settings.command = {python3(), script.string()};
  ExternalEvaluator evaluator(settings);
  const Outcome outcome = evaluate_now(evaluator, {1, 0, 0, {0.5}});
  ::close(leaked);
  REQUIRE(outcome.ok());
  CHECK(outcome.answer().y == 0);
}

TEST_CASE("a shell worker timing out takes what it started with it", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-group");
  const auto pid_file = dir / "sleep.pid";
  const auto script = write_script(dir, "hang.sh",
                                   "while IFS= read -r line; do\n"
                                   "  sleep 30 &\n"
                                   "  echo $! > '" +
                                       pid_file.string() +
                                       "'\n"
                                       "  wait $!\n"
                                       "done\n");
  Settings settings;
  settings.command = {"/bin/sh", script.string()};
  settings.timeout = 0.5;
  ExternalEvaluator evaluator(settings);
  const Outcome failed = evaluate_now(evaluator, {1, 0, 0, {0.5}});
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::timeout);
  int sleeper = 0;
  std::ifstream(pid_file) >> sleeper;
  REQUIRE(sleeper > 0);
  wait_until([&] { return !running(sleeper); });  // killed with the shell's process group
  CHECK_FALSE(running(sleeper));
}

TEST_CASE("what a worker started in a session of its own (setsid) goes with it",
          "[external][descendants]") {
  // The worker's child leaves its process group (setsid), which killing the group misses; a
  // grandchild of a double fork is not even a descendant once its parent exits.
  const auto dir = fedsim::test::fresh_dir("external-setsid");
  const auto pids = dir / "pids";
  const auto script = write_script(dir, "escape.py", R"PY(
import json, os, subprocess, sys
child = subprocess.Popen(["sleep", "30"], start_new_session=True)
if os.fork() == 0:  # a daemon: fork, setsid, fork, the middle one exits
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[1] + ".new", "w") as f:
            f.write(str(os.getpid()) + "\n")
        os.rename(sys.argv[1] + ".new", sys.argv[1] + ".daemon")
        os.execvp("sleep", ["sleep", "31"])
    os._exit(0)
with open(sys.argv[1], "w") as f:
    f.write(str(child.pid) + "\n")
while not os.path.exists(sys.argv[1] + ".daemon"):
    pass
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps({"id": req["id"], "y": 1.0}), flush=True)
)PY");
  int child = 0;
  {
    Settings settings;
    settings.command = {python3(), script.string(), pids.string()};
    ExternalEvaluator evaluator(settings);
    REQUIRE(evaluate_now(evaluator, {1, 0, 0, {0.5}}).ok());
    std::ifstream(pids) >> child;
    REQUIRE(child > 0);
    CHECK(running(child));
  }  // the evaluator is destroyed: its workers are stopped
  int daemon = 0;
  std::ifstream(pids.string() + ".daemon") >> daemon;
  REQUIRE(daemon > 0);
  wait_until([&] { return !running(child) && !running(daemon); });  // SIGKILL takes a moment
  CHECK_FALSE(running(child));
  CHECK_FALSE(running(daemon));
}

TEST_CASE("a worker's stderr log keeps its head and its tail, at most 1 MiB",
          "[external][worker-log]") {
  const auto dir = fedsim::test::fresh_dir("external-log-cap");
  // 8 MiB of numbered lines per request, then the answer.
  const auto script = write_script(dir, "chatty.py", R"PY(
import json, sys
n = 0
for line in sys.stdin:
    req = json.loads(line)
    for _ in range(100000):
        n += 1
        sys.stderr.write("line %010d of a chatty worker, padded to about 80 bytes ..........\n" % n)
    sys.stderr.flush()
    print(json.dumps({"id": req["id"], "y": 1.0}), flush=True)
)PY");
  Settings settings;
  settings.command = {python3(), script.string()};
  settings.log_folder = dir / "logs";
  {
    ExternalEvaluator evaluator(settings);
    for (std::uint64_t id = 1; id <= 2; ++id)
      REQUIRE(evaluate_now(evaluator, {id, 0, 0, {0.5}}).ok());
  }
  const auto log = dir / "logs" / "worker-0.log";
  const auto size = std::filesystem::file_size(log);
  CHECK(size <= (std::size_t{1} << 20) + 200);  // the cap and the line that says so
  CHECK(size >= (std::size_t{1} << 20) - 200);
  const std::string text = fedsim::test::slurp(log);
  CHECK(text.find("line 0000000001 ") == 0);                 // the head
  CHECK(text.find("line 0000200000 ") != std::string::npos);  // the tail: the very last line
  CHECK(text.find("bytes of stderr cut here") != std::string::npos);
  CHECK(text.find("line 0000100000 ") == std::string::npos);  // the middle is cut
}
