// algorithm.posterior_memory (engine/fbo/agent.hpp): an agent that keeps only its
// observations draws exactly what one that keeps its Cholesky factor draws, however the
// agents of a thread take turns (the rebuilt factor is the thread's, and another agent's
// draw in between must not leak into this one's).
#include <catch2/catch.hpp>

#include <memory>
#include <thread>
#include <vector>

#include "engine/fbo/agent.hpp"

using namespace fedsim;
using namespace fedsim::fbo;

namespace {

std::shared_ptr<const AgentContext> context_keeping(PosteriorMemory memory, double lambda = 0.01) {
  return std::make_shared<const AgentContext>(
      Grid::uniform_1d(300), RandomFourierFeatures(1, 40, SeKernel{0.05, 1.0}, 11),
      Partition(Box::unit(1), 1), lambda, 1.0, LocalSampler::rff, RefitConfig{}, 3,
      BoxMaximizerOptions{}, RefitRffConfig{}, memory);
}

/// Draws of three agents observing in turns: after each observation of each agent, its
/// message and its local TS choice, all from streams keyed by (agent, step).
std::vector<Eigen::VectorXd> draws(PosteriorMemory memory) {
  const auto context = context_keeping(memory);
  std::vector<FboAgent> agents;
  for (int n = 0; n < 3; ++n) agents.emplace_back(n, 0, context);
  RandomStream points(5, "posterior_memory_test.points");
  std::vector<Eigen::VectorXd> out;
  for (int step = 0; step < 25; ++step)
    for (int n = 0; n < 3; ++n) {
      // Agent 2 draws only every third step: its rebuilt factor falls several
      // observations behind and must be brought up to date.
      agents[n].observe(static_cast<int>(points.uniform_index(300)), points.normal());
      if (n == 2 && step % 3 != 0) continue;
      RandomStream rng(9, "posterior_memory_test.draw", n, step);
      out.push_back(agents[n].sample_message(rng));
      out.push_back(Eigen::VectorXd::Constant(1, agents[n].argmax_local_ts(rng).index));
      out.push_back(agents[n].local_posterior().mean());
    }
  return out;
}

}  // namespace

TEST_CASE("posterior_memory history draws what factor draws, bit for bit", "[fbo][posterior]") {
  const auto kept = draws(PosteriorMemory::factor), rebuilt = draws(PosteriorMemory::history);
  REQUIRE(kept.size() == rebuilt.size());
  REQUIRE(kept.size() > 100);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    INFO("draw " << k);
    REQUIRE(kept[k].size() == rebuilt[k].size());
    CHECK((kept[k].array() == rebuilt[k].array()).all());  // exact, not approximate
  }
  // Not vacuous: the draws depend on the observations (two agents' first messages differ).
  CHECK_FALSE((kept[0].array() == kept[3].array()).all());
}

TEST_CASE("posterior_memory history: agents with another lambda on the same thread",
          "[fbo][posterior]") {
  // The thread's prior factor is rebuilt when an agent of another configuration draws.
  const auto a = context_keeping(PosteriorMemory::history, 0.01);
  const auto b = context_keeping(PosteriorMemory::history, 0.5);
  const auto b_factor = context_keeping(PosteriorMemory::factor, 0.5);
  FboAgent x(0, 0, a), y(1, 0, b), y_factor(1, 0, b_factor);
  for (int k = 0; k < 10; ++k) {
    x.observe(k * 7, 0.1 * k);
    y.observe(k * 11, -0.2 * k);
    y_factor.observe(k * 11, -0.2 * k);
  }
  RandomStream r1(1, "x"), r2(2, "y"), r3(2, "y");
  (void)x.sample_message(r1);
  const Eigen::VectorXd from_history = y.sample_message(r2);
  CHECK((from_history.array() == y_factor.sample_message(r3).array()).all());
  CHECK(y.local_posterior().lambda() == 0.5);
}

TEST_CASE("posterior_memory history: each thread rebuilds its own", "[fbo][posterior]") {
  const auto context = context_keeping(PosteriorMemory::history);
  const auto factor = context_keeping(PosteriorMemory::factor);
  FboAgent agent(0, 0, context), reference(0, 0, factor);
  for (int k = 0; k < 15; ++k) {
    agent.observe(k * 13, 0.3 * k);
    reference.observe(k * 13, 0.3 * k);
  }
  RandomStream r0(4, "t");
  const Eigen::VectorXd expected = reference.sample_message(r0);
  Eigen::VectorXd on_other_thread;
  std::thread t([&] {
    RandomStream r(4, "t");
    on_other_thread = agent.sample_message(r);
  });
  t.join();
  RandomStream r(4, "t");
  CHECK((agent.sample_message(r).array() == expected.array()).all());
  CHECK((on_other_thread.array() == expected.array()).all());
}

TEST_CASE("an agent keeps its observations compactly and gives them back as observed",
          "[fbo][posterior]") {
  const auto grid = context_keeping(PosteriorMemory::history);
  FboAgent a(0, 0, grid);
  a.observe(7, 0.5);
  a.observe(grid->candidate(299), -1.0);
  const auto h = a.history();
  REQUIRE(h.size() == 2);
  CHECK(h[0].first.index == 7);
  CHECK(h[0].first.x == grid->grid.points.row(7).transpose());
  CHECK(h[1].first.index == 299);
  CHECK(h[1].second == -1.0);
  // Only a candidate's index is kept: a candidate with another point, one out of range, or a
  // point of another dimension is refused, and nothing is recorded.
  Point wrong = grid->candidate(3);
  wrong.x(0) += 0.25;
  CHECK_THROWS_AS(a.observe(wrong, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(a.observe(Point{300, Eigen::VectorXd::Zero(1)}, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(a.observe(Point{-1, Eigen::VectorXd::Zero(2)}, 0.0), std::invalid_argument);
  CHECK(a.num_observations() == 2);

  // On the box: points of their own, in order, each exactly as observed.
  const auto box = std::make_shared<const AgentContext>(
      Grid{Eigen::MatrixXd(0, 2)}, RandomFourierFeatures(2, 20, SeKernel{0.2, 1.0}, 5),
      Partition(Box::unit(2), 1), 0.01, 1.0, LocalSampler::rff, RefitConfig{}, 3,
      BoxMaximizerOptions{}, RefitRffConfig{}, PosteriorMemory::history);
  FboAgent b(1, 0, box);
  const Eigen::Vector2d p(0.125, 0.3), q(0.9, 1.0 / 3.0);
  b.observe(Point{-1, p}, 1.0);
  b.observe(Point{-1, q}, 2.0);
  const auto hb = b.history();
  REQUIRE(hb.size() == 2);
  CHECK(hb[0].first.x == p);
  CHECK(hb[1].first.x == q);
  CHECK(hb[1].first.index == -1);
}

TEST_CASE("posterior_memory history: a copy of an agent is an agent of its own",
          "[fbo][posterior]") {
  // A copy that goes on to observe other things must not be served the original's rebuilt
  // factor (nor the original the copy's), even with as many observations.
  const auto history = context_keeping(PosteriorMemory::history);
  const auto factor = context_keeping(PosteriorMemory::factor);
  FboAgent a(0, 0, history), a_ref(0, 0, factor);
  for (int k = 0; k < 5; ++k) {
    a.observe(k, 1.0);
    a_ref.observe(k, 1.0);
  }
  RandomStream r0(1, "copy");
  (void)a.sample_message(r0);  // the thread now holds a's factor
  FboAgent b = a, b_ref = a_ref;
  a.observe(100, -5.0);
  a_ref.observe(100, -5.0);
  b.observe(200, 5.0);
  b_ref.observe(200, 5.0);
  for (int round = 0; round < 2; ++round) {
    RandomStream r1(2, "copy", round), r2(2, "copy", round), r3(3, "copy", round),
        r4(3, "copy", round);
    CHECK((b.sample_message(r1).array() == b_ref.sample_message(r2).array()).all());
    CHECK((a.sample_message(r3).array() == a_ref.sample_message(r4).array()).all());
  }
}
