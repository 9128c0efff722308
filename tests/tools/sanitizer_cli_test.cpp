// What CI's sanitizer job can see (.ci/run): LeakSanitizer with tools/lsan.supp must still
// report a leak in an actor handler (FEDSIM_DEBUG_PLANT_LEAK: the recorder loses memory in its
// finish handler). Every handler runs below CAF's scheduler frames, so a suppression by
// library ("leak:libcaf_core.so") hides every leak in actor code: this test fails with it.
#include <catch2/catch.hpp>

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
