// The RGPE / TAF reference loop in FTS's target-agent setting, and a target whose state is
// saved and restored mid-run continuing bit-identically.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "engine/baselines/transfer_loop.hpp"
#include "engine/fbo/agent_step.hpp"
#include "engine/fbo/streams.hpp"
#include "engine/objectives/box_test_objective.hpp"
#include "engine/objectives/synthetic_objective.hpp"

using namespace fedsim;
using namespace fedsim::baselines;

namespace {

TransferLoopConfig small(TransferAlgorithm algorithm) {
  TransferLoopConfig c;
  c.algorithm = algorithm;
  c.agents = 5;  // the target and 4 peers
  c.iterations = 6;
  c.n_init = 2;
  c.peer_observations = 15;
  c.features = 24;
  c.objective.grid_size = 150;
  c.rgpe.samples = 100;
  c.seed = 9;
  return c;
}

bool same(const TransferRecord& a, const TransferRecord& b) {
  const bool acq = (std::isnan(a.acquisition) && std::isnan(b.acquisition)) ||
                   a.acquisition == b.acquisition;
  return a.iteration == b.iteration && a.index == b.index && a.x == b.x && a.y == b.y &&
         acq && a.weights == b.weights && a.dropped == b.dropped;
}

}  // namespace

TEST_CASE("transfer loop config validates", "[baselines][transfer]") {
  TransferLoopConfig c = small(TransferAlgorithm::rgpe);
  CHECK_NOTHROW(c.validate());
  c.n_init = 0;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("n_init"));
  c = small(TransferAlgorithm::taf);
  c.taf.bandwidth = -1;
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("bandwidth"));
  CHECK(parse_transfer_algorithm("taf") == TransferAlgorithm::taf);
  CHECK_THROWS_WITH(parse_transfer_algorithm("fts"), Catch::Contains("allowed rgpe, taf"));
}

TEST_CASE("transfer loop: records, payloads, determinism", "[baselines][transfer]") {
  for (TransferAlgorithm a : {TransferAlgorithm::rgpe, TransferAlgorithm::taf}) {
    INFO(to_string(a));
    const TransferLoopConfig c = small(a);
    const TransferResult r = run_transfer(c);
    CHECK(r.payload_length == 24u + 24u * 24u + (a == TransferAlgorithm::taf ? 1u : 0u));
    CHECK(r.accepted == 4);
    CHECK(r.rejected == 0);
    REQUIRE(r.records.size() == 8u);
    for (std::size_t k = 0; k < r.records.size(); ++k) {
      const TransferRecord& rec = r.records[k];
      CHECK(rec.iteration == static_cast<int>(k) - 1);
      CHECK(rec.index >= 0);
      CHECK(std::isfinite(rec.simple_regret));
      CHECK(rec.simple_regret >= 0);
      if (rec.iteration <= 0) {
        CHECK(rec.weights.empty());
        continue;
      }
      REQUIRE(rec.weights.size() == 5u);
      CHECK(std::accumulate(rec.weights.begin(), rec.weights.end(), 0.0) ==
            Approx(1.0).epsilon(1e-12));
      CHECK(rec.acquisition >= 0);
    }
    CHECK(r.final_simple_regret == r.records.back().simple_regret);
    const TransferResult again = run_transfer(c);
    for (std::size_t k = 0; k < r.records.size(); ++k) CHECK(same(r.records[k], again.records[k]));
  }
}

TEST_CASE("transfer loop: peers see the FTS loop's observations", "[baselines][transfer]") {
  // The peers' surrogate is the one built from the same streams as FTS's peers: rebuild peer 3
  // by hand from the FTS streams and compare its message with what the target holds.
  const TransferLoopConfig c = small(TransferAlgorithm::rgpe);
  const auto objective = fbo::make_synthetic_objective(c.fbo_config());
  const auto context = fbo::make_agent_context(c.fbo_config(), objective->domain());
  fbo::FboAgent peer(3, 0, context);
  RandomStream noise(c.seed, fbo::streams::agent_noise, 3);
  const auto design = fbo::initial_design(peer, c.peer_observations, false, c.seed, 3);
  for (int k = 0; k < c.peer_observations; ++k)
    fbo::evaluate(peer, *objective, 3, k - c.peer_observations + 1, design[k], noise);
  const std::vector<double> message = surrogate_message(peer, *context, c.algorithm);
  CHECK(message.size() == 24u + 24u * 24u);
  CHECK(check_surrogate_payload(message, 24, SurrogatePayload::rgpe).empty());
  CHECK(peer.num_observations() == 15);
}

TEST_CASE("transfer target: a restored state continues bit-identically", "[baselines][transfer]") {
  for (TransferAlgorithm a : {TransferAlgorithm::rgpe, TransferAlgorithm::taf}) {
    INFO(to_string(a));
    const TransferLoopConfig c = small(a);
    const auto objective = fbo::make_synthetic_objective(c.fbo_config());
    const auto context = fbo::make_agent_context(c.fbo_config(), objective->domain());
    SurrogateInbox inbox(c.features, c.lambda, payload_kind(a));
    for (int n = 1; n < c.agents; ++n) {
      fbo::FboAgent peer(n, 0, context);
      RandomStream noise(c.seed, fbo::streams::agent_noise, n);
      const auto design = fbo::initial_design(peer, c.peer_observations, false, c.seed, n);
      for (int k = 0; k < c.peer_observations; ++k)
        fbo::evaluate(peer, *objective, n, k - c.peer_observations + 1, design[k], noise);
      REQUIRE(inbox.receive(n, surrogate_message(peer, *context, a)).empty());
    }
    fbo::FboAgent target(0, 0, context);
    RandomStream noise(c.seed, fbo::streams::agent_noise, 0);
    for (const auto& p : fbo::initial_design(target, c.n_init, false, c.seed, 0))
      fbo::evaluate(target, *objective, 0, 0, p, noise);
    auto step = [&](fbo::FboAgent& agent, const SurrogateInbox& box, RandomStream& rng, int t) {
      TransferStep s = transfer_choose(a, agent, *context, box, c.rgpe, c.taf, c.seed, 0, t);
      fbo::evaluate(agent, *objective, 0, t, s.point, rng);
      return s;
    };
    for (int t = 1; t <= 3; ++t) step(target, inbox, noise, t);

    // The checkpoint: the inbox's state, the target's history, its noise stream's state.
    const SurrogateInbox::State saved = inbox.state();
    const auto history = target.history();
    const RandomStream::State saved_noise = noise.state();
    SurrogateInbox inbox2(c.features, c.lambda, payload_kind(a));
    inbox2.restore(saved);
    fbo::FboAgent target2(0, 0, context);
    for (const auto& [p, y] : history) target2.observe(p, y);
    RandomStream noise2 = RandomStream::from_state(saved_noise);

    for (int t = 4; t <= 7; ++t) {
      const TransferStep s1 = step(target, inbox, noise, t);
      const TransferStep s2 = step(target2, inbox2, noise2, t);
      CHECK(s1.point.index == s2.point.index);
      CHECK(s1.point.x == s2.point.x);
      CHECK(s1.acquisition == s2.acquisition);
      CHECK(s1.weights == s2.weights);
    }
    CHECK(observed_values(target) == observed_values(target2));
  }
}

TEST_CASE("transfer loop on a box", "[baselines][transfer]") {
  for (TransferAlgorithm a : {TransferAlgorithm::rgpe, TransferAlgorithm::taf}) {
    INFO(to_string(a));
    TransferLoopConfig c = small(a);
    c.kernel_lengthscale = 0.2;
    c.acquisition_candidates = 64;
    c.acquisition_refine = 1;
    c.iterations = 3;
    const BoxTestObjective branin("branin", 2, c.agents, 0.1, c.seed, 0.1, true);
    const TransferResult r = run_transfer(c, branin);
    REQUIRE(r.records.size() == 5u);
    for (const TransferRecord& rec : r.records) {
      CHECK(rec.index == -1);
      CHECK(std::isfinite(rec.y));
      CHECK(rec.simple_regret >= 0);
    }
    CHECK(r.records.back().weights.size() == 5u);
  }
}
