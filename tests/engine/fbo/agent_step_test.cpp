// One FBO agent step (engine/fbo/agent_step) and the algorithm traits read in one place.
#include <catch2/catch.hpp>

#include "engine/fbo/agent_step.hpp"
#include "engine/objectives/synthetic_objective.hpp"
#include "engine/fbo/algorithm_traits.hpp"
#include "engine/fbo/reference_loop.hpp"

using namespace fedsim;
using namespace fedsim::fbo;

TEST_CASE("algorithm traits: what each algorithm sends, aggregates and protects", "[fbo][traits]") {
  CHECK_FALSE(traits(Algorithm::ts).sends_messages);
  CHECK(traits(Algorithm::ts).server == ServerKind::none);
  CHECK(traits(Algorithm::fts).server == ServerKind::relay);
  for (Algorithm a : {Algorithm::fts_de, Algorithm::dp_fts, Algorithm::dp_fts_de})
    CHECK(traits(a).server == ServerKind::de);
  CHECK(traits(Algorithm::dp_fts).is_private);
  CHECK(traits(Algorithm::dp_fts_de).is_private);
  CHECK_FALSE(traits(Algorithm::fts_de).is_private);
  CHECK(traits(Algorithm::fts_de).regional);
  CHECK(traits(Algorithm::dp_fts_de).regional);
  CHECK_FALSE(traits(Algorithm::dp_fts).regional);
  ReferenceConfig c;
  c.subregions = 3;
  c.algorithm = Algorithm::dp_fts;
  CHECK(c.effective_regions() == 1);
  CHECK(c.is_private());
  c.algorithm = Algorithm::fts_de;
  CHECK(c.effective_regions() == 3);
  CHECK(c.uses_server());
}

TEST_CASE("an agent step draws from its keyed streams only: the same inputs give the same query",
          "[fbo][step]") {
  ReferenceConfig c;
  c.agents = 4;
  c.features = 20;
  c.objective.grid_size = 100;
  const auto objectives = make_synthetic_objectives(c.objective, c.agents, c.seed, false);
  const auto context = make_agent_context(c, objectives.front()->grid());
  FboAgent a(1, 1, context), b(1, 1, context);
  RandomStream noise_a(c.seed, "agent.noise", 1), noise_b(c.seed, "agent.noise", 1);
  const SyntheticObjective objective(objectives, 0.1);
  for (const Point& p : initial_design(a, 5, true, c.seed, 1)) {
    const Evaluation ea = evaluate(a, objective, 1, 0, p, noise_a);
    const Evaluation eb = evaluate(b, objective, 1, 0, p, noise_b);
    CHECK(ea.y == eb.y);
    CHECK(ea.f == objectives[1]->value_at(p.index));
  }
  const Eigen::VectorXd m = sample_message(a, c.seed, 1, 0);
  CHECK(m.size() == c.features);
  CHECK(m == sample_message(b, c.seed, 1, 0));
  CHECK(m != sample_message(b, c.seed, 1, 1));  // another iteration, another stream
  const Eigen::MatrixXd joint = Eigen::MatrixXd::Zero(c.features, 2);
  const Eigen::Ref<const Eigen::MatrixXd> view(joint);
  ServerInput input;
  input.joint = &view;
  const StepSettings s = c.step_settings();
  for (int t = 1; t <= 5; ++t) {
    const Choice ca = choose_query(s, a, 1, t, input);
    const Choice cb = choose_query(s, b, 1, t, input);
    CHECK(ca.point.index == cb.point.index);
    CHECK(ca.branch == cb.branch);
  }
  // Without a broadcast (nothing released yet, or the budget refused), DE's rule is local TS.
  for (int t = 1; t <= 20; ++t) CHECK(choose_query(s, a, 1, t, ServerInput{}).branch == Branch::local);
  // With one, it follows the broadcast with probability 1 - p_t = 1/sqrt(t): always at t = 1.
  int federated = 0;
  for (int t = 2; t <= 200; ++t) federated += choose_query(s, a, 1, t, input).branch == Branch::federated;
  CHECK(federated > 0);
  CHECK(choose_query(s, a, 1, 1, input).branch == Branch::federated);
}
