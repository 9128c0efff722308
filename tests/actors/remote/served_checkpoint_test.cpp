// Checkpoints of a served run in virtual time (issue 32, item 7): the proxies ask their remote
// agents for their state, a resumed run waits for the agents to join again and restores them,
// and the files are those of the same run in one process, uninterrupted.
#include <catch2/catch.hpp>

#include "actors/checkpoint/checkpoint.hpp"
#include "tests/actors/remote/remote_test_support.hpp"
#include "tests/test_files.hpp"

using namespace fedsim;
using namespace fedsim::test::remote;

namespace {

std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().filename().string()] = test::slurp(e.path());
  return out;
}

/// One served segment from the start or from `dir`/checkpoint, stopped after `stop`
/// checkpoints (0: to the end), its agents in one honest process; the run's error ("" when it
/// finished).
std::string served_segment(const scenario::ScenarioConfig& config, const fs::path& dir,
                           bool resume, int stop) {
  actors::RunOptions options;
  options.checkpoint_dir = (dir / "checkpoint").string();
  options.checkpoint_every = 1;
  options.stop_after_checkpoints = stop;
  std::optional<actors::Checkpoint> from;
  if (resume) {
    from = actors::read_checkpoint(options.checkpoint_dir);
    options.resume = &*from;
  }
  fs::remove_all(dir / "run");
  actors::remote::ServeOptions serve;
  serve.join_timeout = 30;
  ServedRun run(config, dir / "run", serve, options);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  HonestHost honest(port, {0, 1, 2}, dir / "agents");
  REQUIRE(run.wait(60s));
  honest.join();
  return run.error();
}

}  // namespace

TEST_CASE("a served run stopped at a checkpoint and resumed with new agent processes writes the "
          "files of fedsim run",
          "[remote][checkpoint]") {
  const scenario::ScenarioConfig config =
      tiny({"world.agents=3", "algorithm.iterations=6", "world.network.drop=0.1"});
  const fs::path dir = test::fresh_dir("served-checkpoint");
  actors::RunOptions local;
  local.out_dir = (dir / "local").string();
  actors::run_federation(config, local);
  const auto expected = files_of(dir / "local");
  REQUIRE(expected.count("observations.csv") == 1);

  for (int stop : {1, 3}) {
    INFO("stopped after checkpoint " << stop);
    fs::remove_all(dir / "checkpoint");
    const std::string stopped = served_segment(config, dir, false, stop);
    CHECK_THAT(stopped, Catch::Contains("checkpoint"));
    REQUIRE(fs::exists(dir / "checkpoint" / actors::checkpoint_state_file));
    const std::string resumed = served_segment(config, dir, true, 0);
    REQUIRE(resumed.empty());
    const auto got = files_of(dir / "run");
    REQUIRE(got.size() == expected.size());
    for (const auto& [file, text] : expected) {
      INFO(file);
      CHECK(got.at(file) == text);
    }
  }
}
