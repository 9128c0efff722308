// What CI's sanitizer jobs can see (.ci/run).
//
// LeakSanitizer with tools/lsan.supp must still report a leak in an actor handler
// (FEDSIM_DEBUG_PLANT_LEAK: the recorder loses memory in its finish handler). Every handler runs
// below CAF's scheduler frames (libcaf_core.so), so a suppression by library
// ("leak:libcaf_core.so") hides every leak in actor code: the first test fails with it.
//
// ThreadSanitizer with tools/tsan.supp must still report a race in an actor handler
// (FEDSIM_DEBUG_PLANT_RACE: every agent counts the broadcasts it handles in one unguarded counter,
// which a thread of its own reads). The handlers run on CAF's worker threads, below CAF's
// frames: a suppression by library ("race:libcaf_core.so", tools/tsan.supp before
// tools/tsan_caf_handover.cpp) hides every such report, and the second test fails with it.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

TEST_CASE("the sanitizer job's leak suppressions do not hide a leak in an actor handler",
          "[cli][sanitizer]") {
  using namespace fedsim::test;
  if (!under_sanitizer()) {
    WARN("runs in CI's ASan job only (FEDSIM_TEST_SANITIZER=1, an ASan fedsim binary)");
    return;
  }
  const std::filesystem::path out = fresh_dir("planted-leak");
  const std::string scenario = std::string(FEDSIM_SCENARIO_DIR) + "/tiny.toml";
  const CommandResult r = run_shell("FEDSIM_DEBUG_PLANT_LEAK=1 " + fedsim_binary() + " run " +
                                    scenario + " --quiet --set world.agents=2 --set "
                                    "algorithm.iterations=2 --out " + out.string());
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("ERROR: LeakSanitizer: detected memory leaks") != std::string::npos);
  CHECK(r.output.find("planted_leak_for_sanitizer_test") != std::string::npos);
}

TEST_CASE("the TSan job's race suppressions do not hide a race in an actor handler",
          "[cli][sanitizer][tsan]") {
  using namespace fedsim::test;
  const char* tsan_binary = std::getenv("FEDSIM_TEST_TSAN_BINARY");
  if (!tsan_binary || !*tsan_binary) {
    WARN("runs in CI's TSan job only (FEDSIM_TEST_TSAN_BINARY: a TSan fedsim binary)");
    return;
  }
  const std::filesystem::path source = std::filesystem::path(FEDSIM_SCENARIO_DIR).parent_path();
  const std::string options = "TSAN_OPTIONS='halt_on_error=1 suppressions=" +
                              (source / "tools" / "tsan.supp").string() + "' ";
  const std::string run = std::string(tsan_binary) + " run " +
                          (source / "scenarios" / "tiny.toml").string() +
                          " --quiet --threads 4 --set world.agents=8 --set algorithm.iterations=4";
  SECTION("the planted race is reported, in the agents' handler") {
    const CommandResult r = run_shell("FEDSIM_DEBUG_PLANT_RACE=1 " + options + run + " --out " +
                                      fresh_dir("planted-race").string());
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("WARNING: ThreadSanitizer: data race") != std::string::npos);
    CHECK(r.output.find("planted_race_for_sanitizer_test") != std::string::npos);
  }
  SECTION("the same run without it reports nothing") {
    const CommandResult r = run_shell(options + run + " --out " + fresh_dir("no-race").string());
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("ThreadSanitizer") == std::string::npos);
  }
}
