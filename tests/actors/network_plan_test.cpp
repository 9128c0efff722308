// The network plan's `certain` links (actors/network_plan.hpp): a message on such a link is
// delivered without a random stream, so a link may be certain only when nothing on it is
// drawn. Each random feature of a link, alone, must make it uncertain, and only for the agents
// it applies to.
#include <catch2/catch.hpp>

#include <string>

#include "actors/network_plan.hpp"
#include "scenarios/loader.hpp"

using namespace fedsim;
using namespace fedsim::actors;

namespace {

const std::string base = R"(
name = "plan"
seed = 1
[world]
agents = 4
[world.objective]
grid_size = 50
[algorithm]
name = "fts-de"
iterations = 3
n_init = 1
features = 4
)";

NetworkPlan plan_of(const std::string& network) {
  const std::string text = base + "[world.network]\n" + network;
  return make_network_plan(scenario::load_scenario_text(text, "plan.toml").config);
}

}  // namespace

TEST_CASE("a link is certain only when nothing on it is drawn", "[network][plan]") {
  SECTION("constant latencies and compute, crashes and partitions draw nothing") {
    const NetworkPlan p = plan_of(R"(
compute = { kind = "lognormal", mu = 0.0, sigma = 0.5 }
uplink = 0.2
downlink = 0.1
bandwidth = 1000.0
[[world.network.crashes]]
agents = [1]
time = 2.0
[[world.network.partitions]]
agents = [2]
start = 1.0
end = 3.0
)");
    for (const auto& a : p.agents) CHECK(a.certain);
  }
  for (const char* random : {"drop = 0.1", "duplicate = 0.05",
                             "uplink = { kind = \"lognormal\", mu = -2.0, sigma = 0.5 }",
                             "downlink = { kind = \"uniform\", low = 0.1, high = 0.2 }",
                             "downlink = { kind = \"exponential\", mean = 0.1 }",
                             "loss = { kind = \"gilbert-elliott\", p = 0.1, r = 0.5 }",
                             "loss = { kind = \"bernoulli\", p = 0.0 }"}) {
    INFO(random);
    for (const auto& a : plan_of(std::string(random) + "\n").agents) CHECK_FALSE(a.certain);
    // The same in a group of agents 1 and 3 only.
    const NetworkPlan g = plan_of(std::string("[[world.network.groups]]\nagents = [1, 3]\n") + random + "\n");
    for (int n = 0; n < 4; ++n) CHECK(g.agents[n].certain == (n == 0 || n == 2));
  }
  SECTION("corruption in the run makes every link uncertain") {
    for (const auto& a : plan_of("[world.network.malformed]\nrate = 0.1\n").agents) CHECK_FALSE(a.certain);
  }
}
