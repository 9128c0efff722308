// No charge without a release (issue 12 item 4): a round that aggregates nobody (every agent
// late, crashed, partitioned, or every report malformed) releases nothing, broadcasts no
// noise-only aggregate and is not charged to the accountant. Each cause is checked on its own
// run: every round with no participant has released = 0 and leaves epsilon where it was, and
// the run's epsilon is exactly the accountant's value for the rounds that were released.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "engine/dp/accountant.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;

struct Outcome {
  RunResult result;
  std::vector<std::map<std::string, std::string>> rounds;
  int released = 0;  ///< rounds.csv rows with released = 1
  int empty = 0;     ///< rows with no participant
};

Outcome run(const std::vector<std::string>& overrides, const std::string& name) {
  const auto c = scenario::load_scenario((scenarios / "tiny.toml").string(), overrides);
  RunOptions opt;
  opt.out_dir = fedsim::test::fresh_dir("empty-round-" + name).string();
  opt.threads = 2;
  Outcome o{run_federation(c, opt), fedsim::test::read_table(fs::path(opt.out_dir) / "rounds.csv")};
  double before = 0.0;
  for (const auto& row : o.rounds) {
    const int participants = std::stoi(row.at("participants"));
    const bool released = row.at("released") == "1";
    const double eps = std::stod(row.at("epsilon"));
    INFO("round " << row.at("round"));
    // Released exactly when somebody took part; an empty round costs nothing.
    CHECK(released == (participants > 0));
    if (!released) CHECK(eps == before);
    if (!released) CHECK(std::stod(row.at("noise_std")) == 0.0);
    CHECK(eps >= before);
    before = eps;
    o.released += released;
    o.empty += participants == 0;
  }
  // The run's epsilon is the accountant's for its releases, charged one at a time.
  const auto acc = dp::make_accountant(c.privacy.accountant);
  for (int k = 0; k < o.released; ++k) acc->add_subsampled_gaussian(c.algorithm.q, c.algorithm.z, 1);
  CHECK(o.result.releases == o.released);
  CHECK(o.result.epsilon == Approx(o.released ? acc->epsilon(o.result.delta) : 0.0).margin(1e-12));
  return o;
}

}  // namespace

TEST_CASE("every agent crashed at t = 0: epsilon 0 and no release", "[actors][privacy]") {
  const Outcome o = run({"world.network.crashes=[{fraction=1.0,time=0.0}]"}, "crashed");
  REQUIRE(o.rounds.size() >= 1);
  CHECK(o.empty == static_cast<int>(o.rounds.size()));
  CHECK(o.released == 0);
  CHECK(o.result.epsilon == 0.0);
  CHECK(o.result.releases == 0);
}

TEST_CASE("every agent late: rounds that close before any report are not charged",
          "[actors][privacy]") {
  // Each evaluation takes 1 s and the deadline is 0.5 s after the broadcast, late reports are
  // dropped: every round closes before any report, and some see the late ones arrive.
  const Outcome o = run({"policy.kind=\"deadline\"", "policy.deadline=0.5",
                         "policy.carry_late=false",
                         "world.network.compute={kind=\"constant\",value=1.0}"},
                        "late");
  REQUIRE(o.rounds.size() >= 5);
  int late = 0;
  for (const auto& row : o.rounds) late += std::stoi(row.at("late"));
  CHECK(late > 0);
  CHECK(o.empty == static_cast<int>(o.rounds.size()));
  CHECK(o.released == 0);
  CHECK(o.result.epsilon == 0.0);
}

TEST_CASE("every agent partitioned for a while: the rounds in between are not charged",
          "[actors][privacy]") {
  // Every agent cut off from t = 4 s to t = 8 s under a deadline policy (2 s, 1 s per
  // evaluation, 12 iterations): the three rounds that close inside the cut aggregate nobody;
  // those before and after release, and the epsilon is that of the released ones alone.
  const Outcome o = run({"algorithm.iterations=12", "policy.kind=\"deadline\"",
                         "policy.deadline=2.0",
                         "world.network.compute={kind=\"constant\",value=1.0}",
                         "world.network.partitions=[{fraction=1.0,start=4.0,end=8.0}]"},
                        "partitioned");
  CHECK(o.empty == 3);
  CHECK(o.released == static_cast<int>(o.rounds.size()) - 3);
  CHECK(o.released >= 10);
}

TEST_CASE("every report malformed: rejected reports are nobody's, and nothing is charged",
          "[actors][privacy]") {
  const Outcome o = run({"world.network.malformed.rate=1.0"}, "malformed");
  REQUIRE(o.rounds.size() >= 1);
  for (const auto& row : o.rounds) CHECK(std::stoi(row.at("rejected")) > 0);
  CHECK(o.released == 0);
  CHECK(o.result.epsilon == 0.0);
}
