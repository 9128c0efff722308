// Running out of memory inside an actor stays loud (issue 32 item 3): `fedsim run` under an
// address-space limit, with FEDSIM_DEBUG_OOM_AGENT making one agent take memory until the
// allocator refuses (and keep it), ends with exit 1 and one line naming a member, never a
// signal (before: std::terminate in about half the tries, once a SIGSEGV at the external
// evaluator's shutdown). Repeated, as the failure was intermittent. Not under sanitizers (their
// allocators reserve terabytes of address space).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;

namespace {

const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();

/// Room for fedsim itself (libraries, thread stacks, jemalloc's arenas) and its run; the
/// agent's hook takes the rest.
constexpr const char* address_space_kib = "1500000";

/// `fedsim run ARGS` with agent `agent` running out of memory, under the limit.
fedsim::test::CommandResult run_out_of_memory(const std::string& args, int agent) {
  return fedsim::test::run_shell("ulimit -v " + std::string(address_space_kib) +
                                 " && FEDSIM_DEBUG_OOM_AGENT=" + std::to_string(agent) + " " +
                                 fedsim::test::fedsim_binary() + " run " + args + " --quiet");
}

/// Exit 1 and exactly one line, "fedsim: failed: agent N: out of memory ...", N matching.
void check_loud(const fedsim::test::CommandResult& r, const std::string& agent) {
  INFO(r.output);
  CHECK(r.exit_code == 1);  // a signal would be 128 + N through the shell
  CHECK(std::regex_match(r.output, std::regex("fedsim: failed: agent " + agent +
                                              ": out of memory \\(std::bad_alloc in a "
                                              "handler\\)\n")));
}

}  // namespace

TEST_CASE("an agent out of memory fails the run naming it, exit 1, every time",
          "[cli][failure][out-of-memory]") {
  if (fedsim::test::under_sanitizer()) return;
  const fs::path dir = fresh_dir("oom-cli");
  // One worker thread: the agent is the only one allocating when the allocator refuses.
  for (int k = 0; k < 10; ++k)
    check_loud(run_out_of_memory(tiny + " --threads 1 --out " + (dir / std::to_string(k)).string(),
                                 5), "5");
  // Two: another member may be the first refused (memory it needed is gone); one is named.
  for (int k = 10; k < 20; ++k)
    check_loud(run_out_of_memory(tiny + " --threads 2 --out " + (dir / std::to_string(k)).string(),
                                 5), "[0-9]+");
}

TEST_CASE("an agent out of memory while external workers evaluate fails the run naming it, and "
          "the evaluator shuts down cleanly", "[cli][failure][out-of-memory][external]") {
  if (fedsim::test::under_sanitizer()) return;
  const fs::path dir = fresh_dir("oom-cli-external");
  fs::create_directories(dir);
  std::ofstream(dir / "worker.py")
      << "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n"
         "    print(json.dumps({'id': r['id'], 'y': -sum((v - 0.5) ** 2 for v in r['x'])}), "
         "flush=True)\n";
  std::ofstream(dir / "run.toml")
      << "name = \"oom\"\n[world]\nagents = 4\n[world.objective]\nkind = \"command\"\n"
      << "command = [\"" << fedsim::test::python_interpreter() << "\", \""
      << (dir / "worker.py").string() << "\"]\ndimension = 2\nworkers = 2\n"
      << "[algorithm]\nname = \"fts-de\"\niterations = 3\nn_init = 2\nfeatures = 20\n"
         "kernel_lengthscale = 0.2\nacquisition_candidates = 100\n";
  for (int k = 0; k < 5; ++k)
    check_loud(run_out_of_memory((dir / "run.toml").string() + " --threads 2 --out " +
                                     (dir / std::to_string(k)).string(), 3),
               "[0-9]+");
}
