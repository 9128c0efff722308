// Scenarios a run could only fail are refused at load (issue 32): one line naming the key, exit
// 2, nothing run. A command objective whose program or script is missing or not executable
// (before, every evaluation failed until the circuit breaker stopped the run), and a tuning
// objective whose federated split cannot be drawn (before, the run failed at its start, exit 1).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;

namespace {

/// One line, starting "fedsim: error:", holding `what`.
void check_refused(const fedsim::test::CommandResult& r, const std::string& what) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
  CHECK(r.output.find('\n') == r.output.size() - 1);
  CHECK(r.output.find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("fedsim run refuses a command objective whose program or script is missing",
          "[cli][external]") {
  const fs::path dir = fresh_dir("load-refusal-command");
  fs::create_directories(dir);
  const auto scenario = [&](const std::string& command) {
    std::ofstream(dir / "s.toml")
        << "name = \"s\"\n[world]\nagents = 2\n[world.objective]\nkind = \"command\"\n"
           "dimension = 1\ncommand = " << command << "\n[algorithm]\nname = \"fts-de\"\n"
           "iterations = 2\nn_init = 1\nfeatures = 20\nacquisition_candidates = 50\n";
    return "run " + (dir / "s.toml").string() + " --quiet --out " + (dir / "out").string();
  };
  check_refused(run_fedsim(scenario("[\"./worker.sh\"]")),
                "key 'world.objective.command': program '" + (dir / "worker.sh").string() +
                    "' does not exist");
  std::ofstream(dir / "worker.sh") << "#!/bin/sh\nexit 1\n";
  fs::permissions(dir / "worker.sh", fs::perms::owner_read | fs::perms::owner_write);
  check_refused(run_fedsim(scenario("[\"./worker.sh\"]")), "' is not executable");
  check_refused(run_fedsim(scenario("[\"" + fedsim::test::python_interpreter() +
                                    "\", \"./worker.py\"]")),
                "key 'world.objective.command': '" + (dir / "worker.py").string() +
                    "' ('./worker.py') does not exist");
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("fedsim run refuses a tuning objective whose split cannot be drawn",
          "[cli][tuning]") {
  const fs::path dir = fresh_dir("load-refusal-tuning");
  fs::create_directories(dir);
  std::ofstream(dir / "s.toml")
      << "name = \"s\"\n[world]\nagents = 400\n[world.objective]\nkind = \"tuning\"\n"
         "dataset = \"digits\"\n[algorithm]\nname = \"fts-de\"\niterations = 2\n";
  check_refused(run_fedsim("run " + (dir / "s.toml").string() + " --quiet --out " +
                           (dir / "out").string()),
                "key 'world.objective.label_skew': the 1797 samples of 'digits' cannot be split over "
                "world.agents = 400");
  // Fed-PNE through the same keys, with the seed of --seed (a sweep's seeds are overrides too).
  std::ofstream(dir / "x.toml")
      << "name = \"x\"\n[world]\nagents = 400\n[world.objective]\nkind = \"tuning\"\n"
         "task = \"svm\"\ndataset = \"digits\"\n[algorithm]\nname = \"fed-pne\"\n"
         "budget = 100\n";
  check_refused(run_fedsim("run " + (dir / "x.toml").string() + " --seed 9 --quiet --out " +
                           (dir / "out").string()),
                "and seed 9 (");
  CHECK_FALSE(fs::exists(dir / "out"));
}
