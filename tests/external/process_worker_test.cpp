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
