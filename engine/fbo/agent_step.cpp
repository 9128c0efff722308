#include "engine/fbo/agent_step.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/fbo/streams.hpp"

namespace fedsim::fbo {

std::vector<Point> initial_design(const FboAgent& agent, int count, bool in_region,
                                  std::uint64_t seed, int id) {
  RandomStream rng(seed, streams::agent_init, static_cast<std::uint64_t>(id));
  return agent.initial_design(count, in_region, rng);
}

Choice choose_query(const StepSettings& s, const FboAgent& agent, int id, int t,
                    const ServerInput& server) {
  RandomStream rng(s.seed, streams::agent_choose, static_cast<std::uint64_t>(id),
                   static_cast<std::uint64_t>(t));
  switch (s.algorithm) {
    case Algorithm::ts:
      return ts_choose(agent, rng);
    case Algorithm::fts:
      return fts_choose(agent, t, *server.pool, s.p_schedule, s.p1_equals_p2, rng);
    case Algorithm::fts_de:
    case Algorithm::dp_fts:
    case Algorithm::dp_fts_de:
      return de_choose(agent, t, server.joint, s.p_schedule, s.p1_equals_p2, rng);
  }
  throw std::logic_error("choose_query: not an fbo::Algorithm value");
}

Query make_query(int id, int iteration, const Point& p) {
  Query q;
  q.agent = id;
  q.iteration = iteration;
  q.candidate = p.index;
  q.x = p.x;
  return q;
}

Evaluation observe_answer(FboAgent& agent, int id, const Point& p, const Answer& a) {
  if (!std::isfinite(a.y))
    throw std::runtime_error("objective: agent " + std::to_string(id) +
                             " observed a value that is not finite" +
                             (p.index >= 0 ? " at candidate " + std::to_string(p.index) : ""));
  agent.observe(p, a.y);
  return {a.f, a.y, a.cost};
}

Evaluation evaluate(FboAgent& agent, const FederatedObjective& objective, int id, int iteration,
                    const Point& p, RandomStream& noise) {
  return observe_answer(agent, id, p, objective.evaluate(make_query(id, iteration, p), noise));
}

Eigen::VectorXd sample_message(const FboAgent& agent, std::uint64_t seed, int id, int t) {
  RandomStream rng(seed, streams::agent_message, static_cast<std::uint64_t>(id),
                   static_cast<std::uint64_t>(t));
  return agent.sample_message(rng);
}

}  // namespace fedsim::fbo
