#pragma once
/// One FBO agent's step, shared by the reference loop (engine/fbo/reference_loop) and the
/// agent actor (actors/agent), so that both query, observe and report identically by
/// construction: the counterpart of xarmed::run_client_phase. Every random draw comes from
/// the streams of engine/fbo/streams.hpp.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/algorithms.hpp"
#include "engine/objectives/federated_objective.hpp"
#include "engine/rng.hpp"

namespace fedsim::fbo {

/// What a step needs to know of the run's configuration.
struct StepSettings {
  Algorithm algorithm = Algorithm::dp_fts_de;
  PSchedule p_schedule = PSchedule::inv_sqrt;
  bool p1_equals_p2 = false;
  std::uint64_t seed = 1;
};

/// What the agent has from the server for iteration t: DE's broadcast omega^joint (M x P; null
/// when nothing was released), FTS's pool of relayed messages (null for the others).
struct ServerInput {
  const Eigen::Ref<const Eigen::MatrixXd>* joint = nullptr;
  FtsMessagePool* pool = nullptr;
};

/// The points of agent `id`'s initial design: `count` points, from its own sub-region when
/// in_region (DE), drawn from the stream (seed, agent.init, id).
std::vector<Point> initial_design(const FboAgent& agent, int count, bool in_region,
                                  std::uint64_t seed, int id);

/// Iteration t's query of agent `id` (t >= 1), drawn from the stream (seed, agent.choose, id, t).
Choice choose_query(const StepSettings& s, const FboAgent& agent, int id, int t,
                    const ServerInput& server);

/// What one evaluation gave the agent.
struct Evaluation {
  std::optional<double> f;  ///< the noise-free value, where the objective knows it
  double y;                 ///< what the agent observed
  std::optional<double> cost;  ///< compute seconds, where the objective knows them
};

/// The query agent `id` asks of the objective for point p at `iteration` (<= 0 in the initial
/// design).
Query make_query(int id, int iteration, const Point& p);

/// Adds an answer to the agent's history (the y observed at p). When the observation's count
/// is due, the agent refits its local GP's hyperparameters here (FboAgent::observe,
/// engine/fbo/refit.hpp): the loop and the actors refit at the same observations, and a
/// checkpoint's replay of the history refits the same. Throws std::runtime_error if y is not
/// finite.
Evaluation observe_answer(FboAgent& agent, int id, const Point& p, const Answer& answer);

/// One evaluation: agent `id` asks the objective for p at `iteration`, with the agent's noise
/// stream (seed, agent.noise, id), and observes the answer (observe_answer).
Evaluation evaluate(FboAgent& agent, const FederatedObjective& objective, int id, int iteration,
                    const Point& p, RandomStream& noise);

/// The message omega_{id,t} an agent sends after iteration t (t = 0: after the initial
/// design), drawn from the stream (seed, agent.message, id, t).
Eigen::VectorXd sample_message(const FboAgent& agent, std::uint64_t seed, int id, int t);

}  // namespace fedsim::fbo
