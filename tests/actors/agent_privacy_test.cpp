// Per-agent privacy (issue 12 item 5): each agent is charged only for the releases whose
// received set held its report, composed with the scenario's accountant; a per-agent budget
// (a privacy filter) stops aggregating exactly the agents whose own epsilon would pass it.
#include <catch2/catch.hpp>

#include <filesystem>
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

/// tiny.toml, 12 iterations of 1 s under a 2 s deadline, agents 0-3 cut off from t = 4 s to
/// t = 12 s: they miss the releases of that time and take part in others after it.
scenario::ScenarioConfig partitioned(std::vector<std::string> more = {}) {
  std::vector<std::string> o = {"algorithm.iterations=12", "policy.kind=\"deadline\"",
                                "policy.deadline=2.0",
                                "world.network.compute={kind=\"constant\",value=1.0}",
                                "world.network.partitions=[{agents=[0,1,2,3],start=4.0,end=12.0}]"};
  o.insert(o.end(), more.begin(), more.end());
  return scenario::load_scenario((scenarios / "tiny.toml").string(), o);
}

RunResult run(const scenario::ScenarioConfig& c, const std::string& name) {
  RunOptions opt;
  opt.out_dir = fedsim::test::fresh_dir("agent-privacy-" + name).string();
  opt.threads = 2;
  return run_federation(c, opt);
}

/// The scenario's accountant after k releases of its mechanism.
double epsilon_after(const scenario::ScenarioConfig& c, double delta, long k) {
  auto a = dp::make_accountant(c.privacy.accountant);
  a->add_subsampled_gaussian(c.algorithm.q, c.algorithm.z, k);
  return k == 0 ? 0.0 : a->epsilon(delta);
}

}  // namespace

TEST_CASE("each agent is charged for the releases it took part in", "[actors][privacy]") {
  for (const char* accountant : {"moments", "tight"}) {
    const auto c = partitioned({std::string("privacy.accountant=\"") + accountant + "\""});
    const RunResult r = run(c, std::string("charged-") + accountant);
    REQUIRE(r.agent_epsilon.size() == 8);
    INFO(accountant << ": " << r.releases << " releases");
    for (int n = 0; n < 8; ++n) {
      INFO("agent " << n << ": " << r.agent_releases[n] << " releases, epsilon "
                    << r.agent_epsilon[n]);
      CHECK(r.agent_releases[n] <= r.releases);
      CHECK(r.agent_epsilon[n] ==
            Approx(epsilon_after(c, r.delta, static_cast<long>(r.agent_releases[n]))).epsilon(1e-12));
      CHECK(r.agent_filtered[n] == 0);
    }
    // The cut-off agents took part in fewer releases than the others, and are charged less.
    for (int n = 0; n < 4; ++n) {
      CHECK(r.agent_releases[n] < r.agent_releases[n + 4]);
      CHECK(r.agent_epsilon[n] < r.agent_epsilon[n + 4]);
    }
    // Nobody took part in more releases than the run made; the run's epsilon is the largest.
    CHECK(*std::max_element(r.agent_epsilon.begin(), r.agent_epsilon.end()) <= r.epsilon);
  }
}

TEST_CASE("an agent in every release is charged the run's epsilon", "[actors][privacy]") {
  // A perfect network: every report is in every release. The accountant answers these agents
  // with the ledger's own epsilon rather than composing the releases a second time; it must
  // be the scenario's accountant's, not the other family's.
  for (const char* accountant : {"moments", "tight"}) {
    const auto c = scenario::load_scenario((scenarios / "tiny.toml").string(),
                                           {std::string("privacy.accountant=\"") + accountant + "\""});
    const RunResult r = run(c, std::string("every-release-") + accountant);
    INFO(accountant << ": " << r.releases << " releases");
    REQUIRE(r.releases > 0);
    REQUIRE(r.agent_epsilon.size() == static_cast<std::size_t>(c.world.agents));
    const double expected = epsilon_after(c, r.delta, static_cast<long>(r.releases));
    CHECK(r.epsilon == Approx(expected).epsilon(1e-12));
    for (std::size_t n = 0; n < r.agent_epsilon.size(); ++n) {
      INFO("agent " << n);
      REQUIRE(r.agent_releases[n] == r.releases);
      CHECK(r.agent_epsilon[n] == r.epsilon);
      CHECK(r.agent_epsilon[n] == Approx(expected).epsilon(1e-12));
    }
  }
}

TEST_CASE("a per-agent budget stops exactly the agents that reach it", "[actors][privacy]") {
  const auto free_run = partitioned();
  const RunResult before = run(free_run, "unfiltered");
  // The most releases any agent took part in, and a budget between that less one and that.
  const long most = static_cast<long>(
      *std::max_element(before.agent_releases.begin(), before.agent_releases.end()));
  REQUIRE(most >= 3);
  const double budget = 0.5 * (epsilon_after(free_run, before.delta, most - 1) +
                               epsilon_after(free_run, before.delta, most));
  const auto c = partitioned({"privacy.agent_budget=" + std::to_string(budget)});
  const RunResult r = run(c, "filtered");
  int stopped = 0;
  for (int n = 0; n < 8; ++n) {
    INFO("agent " << n << ": " << before.agent_releases[n] << " releases without the filter, "
                  << r.agent_releases[n] << " with it (" << r.agent_filtered[n] << " left out)");
    CHECK(r.agent_epsilon[n] <= budget);
    CHECK(r.agent_releases[n] <= most - 1);
    // Stopped: exactly the agents that would have passed the budget.
    const bool reached = before.agent_releases[n] == most;
    CHECK((r.agent_filtered[n] > 0) == reached);
    if (reached) CHECK(r.agent_releases[n] == most - 1);
    else CHECK(r.agent_releases[n] == before.agent_releases[n]);
    stopped += r.agent_filtered[n] > 0;
  }
  CHECK(stopped > 0);
  CHECK(stopped < 8);
}
