#pragma once
/// The Fed-PNE client actor: wraps one engine xarmed::FedPneClient. On each phase message it
/// makes the phase's pulls (at most its remaining budget) with xarmed::run_client_phase, the
/// compute time of every pull charged by the network through a self-addressed timer; when they
/// finish it reports its local means (a phase cut short by the budget is not reported) and
/// records its cumulative regret. Only means leave the client, never rewards.
#include <memory>
#include <optional>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/outbox.hpp"
#include "engine/xarmed/fed_pne_run.hpp"

namespace fedsim::actors {

/// What every Fed-PNE actor of a run shares, immutable.
struct FedPneShared {
  xarmed::FedPneConfig config;
  std::shared_ptr<const xarmed::FederatedProblem> problem;
  std::shared_ptr<const xarmed::PartitionTree> tree;
  double dp_noise_std = 0.0;  ///< > 0 for DP-Fed-PNE
  /// Test hook, from the environment variable FEDSIM_DEBUG_FAIL_AGENT: this agent throws at
  /// its first evaluation, to test that a failing actor fails the run (-1: none).
  std::int64_t fail_agent = -1;
  caf::actor network;
  caf::actor recorder;
  bool log_states = false;  ///< the server's agent_state_event to the recorder (observers)
};

struct FedPneClientState {
  node_id id = 0;
  Outbox box;  ///< envelopes sent while a delivery is handled, sent with its answer
  std::shared_ptr<const FedPneShared> shared;
  std::optional<xarmed::FedPneClient> client;
  std::optional<phase_message> latest;  ///< newest phase received
  /// The last phase report sent: sent again when the server sends that phase again (it then
  /// got no report of it: every one was lost or rejected as corrupted).
  std::optional<phase_report> last_report;
  std::int64_t started_phase = 0;       ///< the last phase worked on
  std::int64_t steps_done = 0;          ///< pulls made
  std::int64_t working_steps = 0;       ///< pulls of the phase in flight
  double working_regret = 0.0;          ///< their regret, counted when they finish
  double regret = 0.0;                  ///< cumulative regret on the global objective
  bool busy = false;
  bool alive = true;
  bool done = false;
  static inline const char* name = "fed_pne_client";
};

/// What is wrong with a phase as fedsim's Fed-PNE server sends it (empty if nothing): phase >= 1
/// (phase 0 with nothing else: none, where `none_allowed`), a depth of the tree, node indices
/// ascending and in the tree at that depth, pulls per node >= 1.
std::string check_phase_broadcast(const xarmed::PhaseBroadcast& b, const xarmed::PartitionTree& tree,
                                  bool none_allowed);

/// What is wrong with a client state restored from a checkpoint, with its engine client's
/// snapshot (empty if nothing), against the scenario in `s.shared`: pulls past the budget or
/// negative, regrets not finite, phases out of step, a point of another dimension, a phase of
/// another shape (check_phase_broadcast), sums and counts not those of its phase, or a report
/// that is not its own.
std::string check_fed_pne_client_state(const FedPneClientState& s,
                                       const xarmed::FedPneClient::Snapshot& engine);

/// What is wrong with a payload delivered to a client, restored from a checkpoint's queue (empty
/// if the client can take it): one of its messages, a phase as check_phase_broadcast takes it.
std::string check_client_delivery(const caf::message& payload, const xarmed::PartitionTree& tree);

caf::behavior fed_pne_client_actor(caf::stateful_actor<FedPneClientState>* self, node_id id,
                                   std::shared_ptr<const FedPneShared> shared);

}  // namespace fedsim::actors
