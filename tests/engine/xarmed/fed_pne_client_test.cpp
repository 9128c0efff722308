#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "engine/xarmed/dp_fed_pne.hpp"
#include "engine/xarmed/fed_pne_client.hpp"

using fedsim::Box;
using fedsim::RandomStream;
using fedsim::xarmed::FedPneClient;
using fedsim::xarmed::PartitionTree;
using fedsim::xarmed::PhaseBroadcast;

namespace {
PhaseBroadcast phase(int depth, std::vector<std::uint64_t> indices, std::int64_t pulls) {
  PhaseBroadcast b;
  b.phase = 1;
  b.depth = depth;
  b.indices = std::move(indices);
  b.pulls_per_node = pulls;
  return b;
}
}  // namespace

TEST_CASE("fed-pne client: round-robin pulls at the centres, local means reported", "[xarmed]") {
  FedPneClient client(4, PartitionTree(Box::unit(1)));
  client.start_phase(phase(2, {1, 3, 4}, 2));  // [0,1/4], [1/2,3/4], [3/4,1]
  RandomStream rng(1, "test");
  const double centres[] = {0.125, 0.625, 0.875};
  const double rewards[] = {1.0, 2.0, 3.0, 5.0, 6.0, 7.0};
  for (int s = 0; s < 6; ++s) {
    REQUIRE_FALSE(client.phase_done());
    CHECK(client.next_slot() == static_cast<std::size_t>(s % 3));
    CHECK(client.propose(rng)(0) == centres[s % 3]);
    CHECK_THROWS_AS(client.propose(rng), std::logic_error);  // one pull at a time
    client.observe(rewards[s], rng);
  }
  CHECK(client.phase_done());
  CHECK_THROWS_AS(client.propose(rng), std::logic_error);
  CHECK_THROWS_AS(client.observe(1.0, rng), std::logic_error);
  const auto r = client.report();
  CHECK(r.client == 4);
  CHECK(r.phase == 1);
  CHECK(r.means == std::vector<double>{3.0, 4.0, 5.0});
  CHECK(r.pulls == std::vector<std::int64_t>{2, 2, 2});
}

TEST_CASE("fed-pne client: reporting early or a malformed broadcast is refused", "[xarmed]") {
  FedPneClient client(0, PartitionTree(Box::unit(1)));
  CHECK_THROWS_AS(client.report(), std::logic_error);
  client.start_phase(phase(1, {1, 2}, 1));
  CHECK_THROWS_AS(client.report(), std::logic_error);
  CHECK_THROWS_AS(client.start_phase(phase(1, {3}, 1)), std::invalid_argument);  // no (1, 3)
  CHECK_THROWS_AS(client.start_phase(phase(1, {}, 1)), std::invalid_argument);
  CHECK_THROWS_AS(client.start_phase(phase(1, {1}, 0)), std::invalid_argument);
  CHECK_THROWS_AS(FedPneClient(0, PartitionTree(Box::unit(1)),
                               fedsim::xarmed::PointRule::centre, -1.0),
                  std::invalid_argument);
}

TEST_CASE("dp-fed-pne: sigma^2 = 2 log(1.25 / delta) / eps^2 and the guarantee as data",
          "[xarmed]") {
  CHECK(fedsim::xarmed::dp_fed_pne_noise_std(1.0, 0.1) == Approx(2.247544724497493).epsilon(1e-14));
  CHECK(fedsim::xarmed::dp_fed_pne_noise_std(0.5, 1e-5) == Approx(9.689610525210778).epsilon(1e-14));
  const auto g = fedsim::xarmed::dp_fed_pne_guarantee(0.5, 0.1, 10);
  CHECK(g.epsilon == 0.5);
  CHECK(g.delta == 0.1);
  CHECK(g.clients == 10);
  CHECK(g.noise_std == Approx(std::sqrt(2 * std::log(12.5)) / 0.5));
  CHECK(g.sensitivity == 1.0);
  CHECK(g.releases_per_node == 1);
  CHECK(g.classic_range);
  CHECK_FALSE(fedsim::xarmed::dp_fed_pne_guarantee(2.0, 0.01, 10).classic_range);
  CHECK_THROWS_AS(fedsim::xarmed::dp_fed_pne_noise_std(0.0, 0.1), std::invalid_argument);
  CHECK_THROWS_AS(fedsim::xarmed::dp_fed_pne_noise_std(1.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(fedsim::xarmed::dp_fed_pne_guarantee(1.0, 0.1, 0), std::invalid_argument);
}

TEST_CASE("dp-fed-pne: the default DP delta is min(1/M, 0.01), the paper's 1/M from M = 100",
          "[xarmed]") {
  using fedsim::xarmed::dp_fed_pne_delta;
  using fedsim::xarmed::dp_fed_pne_guarantee;
  // Below M = 100, 1/M (0.5 at M = 2, 1 at M = 1: no guarantee) is capped at 0.01.
  for (int m : {1, 2, 10, 99, 100}) {
    INFO("M = " << m);
    CHECK(dp_fed_pne_delta(0.0, m) == 0.01);
    CHECK(dp_fed_pne_guarantee(1.0, 0.0, m).delta == 0.01);
    CHECK(dp_fed_pne_guarantee(1.0, 0.0, m).noise_std ==
          Approx(std::sqrt(2 * std::log(125.0))).epsilon(1e-14));
  }
  CHECK(dp_fed_pne_delta(0.0, 101) == 1.0 / 101);
  CHECK(dp_fed_pne_delta(0.0, 1000) == 1.0 / 1000);
  // A given delta is kept, above the cap too.
  CHECK(dp_fed_pne_delta(0.2, 2) == 0.2);
  CHECK(dp_fed_pne_delta(1e-6, 1) == 1e-6);
  CHECK_THROWS_AS(dp_fed_pne_delta(0.0, 0), std::invalid_argument);
}

TEST_CASE("dp-fed-pne client: every reward gets N(0, sigma^2), so a t-pull mean gets sigma^2/t",
          "[xarmed]") {
  // 4000 nodes at depth 12, constant reward 0.3: the reported means minus 0.3 are the noise.
  const double sigma = fedsim::xarmed::dp_fed_pne_noise_std(1.0, 0.1);  // 2.2475
  for (const std::int64_t t : {1, 4}) {
    FedPneClient client(0, PartitionTree(Box::unit(1)), fedsim::xarmed::PointRule::centre, sigma);
    std::vector<std::uint64_t> nodes(4000);
    for (std::size_t j = 0; j < nodes.size(); ++j) nodes[j] = j + 1;
    client.start_phase(phase(12, nodes, t));
    RandomStream rng(5, "test.dp", static_cast<std::uint64_t>(t));
    while (!client.phase_done()) {
      client.propose(rng);
      client.observe(0.3, rng);
    }
    double mean = 0.0, var = 0.0;
    const auto r = client.report();
    for (const double m : r.means) mean += (m - 0.3) / r.means.size();
    for (const double m : r.means) var += (m - 0.3 - mean) * (m - 0.3 - mean) / (r.means.size() - 1);
    // Sample variance of 4000 normals: relative sd sqrt(2/3999) = 2.2%; tolerance 10%.
    CHECK(var == Approx(sigma * sigma / t).epsilon(0.10));
    // Mean: sd sigma / sqrt(4000 t) <= 0.036; tolerance 0.15.
    CHECK(mean == Approx(0.0).margin(0.15));
  }
}
