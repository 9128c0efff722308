#pragma once
/// The agent actor: wraps one engine FboAgent. On the server's kickoff it runs the initial
/// design; on each broadcast it runs one iteration (TS, FTS or DE's choice), evaluates the
/// objective (its compute time charged by the network through a self-addressed timer),
/// records the query and reports omega_{n,t} to the server. Under the async policy it never
/// waits for a broadcast and uses the latest one it has.
#include <memory>
#include <optional>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "engine/fbo/algorithms.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/objectives/federated_objective.hpp"

namespace fedsim::actors {

/// What every agent of a run shares, immutable.
struct AgentShared {
  std::shared_ptr<const fbo::AgentContext> context;
  std::shared_ptr<const FederatedObjective> objective;  ///< every agent's function
  fbo::ReferenceConfig config;
  fbo::StepSettings step;  ///< config.step_settings()
  bool wait_for_broadcast = true;  ///< false under the async policy
  /// Test hook, from the environment variable FEDSIM_DEBUG_FAIL_AGENT: this agent throws at
  /// its first evaluation, to test that a failing actor fails the run (-1: none).
  std::int64_t fail_agent = -1;
  caf::actor network;
  caf::actor recorder;
};

struct AgentActorState {
  node_id id = 0;
  std::shared_ptr<const AgentShared> shared;
  std::optional<fbo::FboAgent> agent;
  std::optional<RandomStream> noise;
  double best = 0.0;
  bool has_best = false;
  int iteration = 0;      ///< iterations finished (0 once the initial design is done)
  bool started = false;   ///< kickoff received
  bool busy = false;      ///< evaluations in flight
  bool alive = true;
  bool done = false;
  std::vector<fbo::Choice> pending;     ///< queries being evaluated
  std::int32_t pending_report_round = 0;
  std::int32_t used_round = -1;         ///< round of the newest broadcast used so far
  std::optional<broadcast> latest;      ///< newest broadcast received
  fbo::FtsMessagePool pool{false};
  /// FTS: the broadcast whose relayed vectors the pool views (kept alive while it draws).
  std::optional<broadcast> pool_source;
  /// Every (grid index, observed y) the engine agent was given since its last reset, in order:
  /// a checkpoint rebuilds the agent's posterior by observing them again.
  std::vector<std::pair<std::int32_t, double>> history;
  static inline const char* name = "agent";
};

/// Besides the run's messages: (save_atom) -> its state for a checkpoint, and
/// (restore_atom, bytes) -> ok, which puts a saved state back (actors/checkpoint/checkpoint.hpp).
caf::behavior agent_actor(caf::stateful_actor<AgentActorState>* self, node_id id,
                          std::shared_ptr<const AgentShared> shared);

}  // namespace fedsim::actors
