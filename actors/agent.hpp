#pragma once
/// The agent actor: wraps one engine FboAgent. On the server's kickoff it runs the initial
/// design; on each broadcast it runs one iteration (TS, FTS or DE's choice) and asks the
/// objective; once the answers are in, their compute time is charged by the network through a
/// self-addressed timer (the objective's cost where it gives one, else the link's compute
/// model); when the timer fires the agent observes the answers, records the queries and
/// reports omega_{n,t} to the server. Under the async policy it never waits for a broadcast
/// and uses the latest one it has.
///
/// An objective evaluated elsewhere (FederatedObjective::async(), e.g. external workers) is
/// asked without blocking: the agent submits its queries and holds its reply to the network
/// until the answers come back as evaluation_result messages, so virtual time stands still
/// while evaluations run, and agents whose queries start at the same virtual time are
/// evaluated in parallel by the workers. A failed evaluation is skipped (recorded in
/// events.jsonl as evaluation_failed), or fails the agent, and with it the run, when the
/// objective says it is fatal (on_failure = abort). Failures that go on (too many in a row,
/// or too large a share: AgentShared's breaker) stop the run as not completed: the agent sends
/// the network (close_atom, why), and `fedsim run` exits 3 with that line.
#include <memory>
#include <optional>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/outbox.hpp"
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
  /// Test hook, from FEDSIM_DEBUG_OOM_AGENT: this agent takes memory until the allocator
  /// refuses (std::bad_alloc) at its first evaluation, and keeps what it took, to test that an
  /// out-of-memory fails the run naming it (-1: none). Only under a memory limit.
  std::int64_t oom_agent = -1;
  /// The circuit breaker of evaluations that fail (objectives evaluated elsewhere): this many
  /// in a row (0: never), or a share above max_failure_rate once failure_rate_after were made,
  /// stop the run as not completed (run.max_consecutive_failures, run.max_failure_rate).
  int max_consecutive_failures = 0;
  double max_failure_rate = 1.0;
  int failure_rate_after = 10;
  /// Where to see why evaluations failed, for the breaker's line ("" when unknown).
  std::string failure_hint;
  caf::actor network;
  caf::actor recorder;
};

/// One query of the agent's current batch: asked, then answered (or failed), then observed when
/// the compute time has passed.
struct PendingQuery {
  fbo::Choice choice;
  std::int32_t iteration = 0;
  bool answered = false;  ///< the answer (or failure) is in
  bool failed = false;
  double y = 0.0;
  double f = 0.0;     ///< NaN: not known
  double cost = 0.0;  ///< NaN: not given (the compute model is charged)
  double wall_seconds = 0.0;  ///< NaN: not measured
  std::int32_t attempts = 0;
  std::string failure;  ///< "kind: message" of a failed evaluation
};

struct AgentActorState {
  node_id id = 0;
  std::shared_ptr<const AgentShared> shared;
  std::optional<fbo::FboAgent> agent;
  std::optional<RandomStream> noise;
  double best = 0.0;
  bool has_best = false;
  double best_y = 0.0;  ///< the largest y observed (valid once has_best)
  int iteration = 0;      ///< iterations finished (0 once the initial design is done)
  bool started = false;   ///< kickoff received
  bool busy = false;      ///< evaluations in flight
  bool alive = true;
  bool done = false;
  std::vector<PendingQuery> pending;    ///< the batch being evaluated
  /// Evaluations answered or failed, those that failed, and those failed in a row, since the
  /// run (or its resume) started: the breaker's counts (AgentShared::max_consecutive_failures).
  std::int64_t evaluations = 0, failures = 0, failures_in_row = 0;
  bool halted = false;  ///< the breaker has told the network to stop the run
  /// Bumped when a batch is abandoned (a crash): late answers of older batches are ignored.
  std::uint64_t generation = 0;
  /// Replies to the network held while external evaluations run (never in a checkpoint: the
  /// network is quiet only when none is held).
  std::vector<caf::response_promise> held;
  Outbox box;  ///< envelopes sent while a delivery is handled, sent with its answer
  std::int32_t pending_report_round = 0;
  std::int32_t used_round = -1;         ///< round of the newest broadcast used so far
  std::optional<broadcast> latest;      ///< newest broadcast received
  fbo::FtsMessagePool pool{false};
  /// FTS: the broadcast whose relayed vectors the pool views (kept alive while it draws).
  std::optional<broadcast> pool_source;
  static inline const char* name = "agent";
};

/// An agent's observations since its last reset (checkpoints: replayed into a fresh engine agent).
using AgentHistory = std::vector<std::pair<fbo::Point, double>>;

/// What is wrong with an agent state restored from a checkpoint (empty if nothing), before
/// what is derived is rebuilt, against the scenario in `s.shared`: counters out of range or
/// disagreeing (iterations past T, rounds not in step, busy without a batch), a point of another
/// dimension, not finite or not a candidate, a branch or iteration a query cannot have, more
/// observations than the agent has made, a broadcast of another shape, a noise stream that
/// cannot draw, or FTS pool weights that are not the pool's.
std::string check_agent_state(const AgentActorState& s, const AgentHistory& history,
                              const std::vector<double>& pool_weights, double pool_total);

/// What is wrong with a broadcast as fedsim's server sends it to agents of `cfg` with `regions`
/// sub-regions (empty if nothing): its round, M x cols shape and values, DE's P columns once
/// released, FTS's sources (ascending agent ids, one a column).
std::string check_broadcast(const broadcast& b, const fbo::ReferenceConfig& cfg, int regions);

/// What is wrong with a payload delivered to an agent, restored from a checkpoint's queue (empty
/// if the agent can take it): one of its messages, a broadcast as check_broadcast takes it.
std::string check_agent_delivery(const caf::message& payload, const fbo::ReferenceConfig& cfg,
                                 int regions);

/// Besides the run's messages: (save_atom) -> its state for a checkpoint, and
/// (restore_atom, bytes) -> ok, which puts a saved state back (actors/checkpoint/checkpoint.hpp).
caf::behavior agent_actor(caf::stateful_actor<AgentActorState>* self, node_id id,
                          std::shared_ptr<const AgentShared> shared);

}  // namespace fedsim::actors
