#pragma once
/// The Fed-PNE server actor: wraps the engine's xarmed::FedPneServer. It broadcasts a phase,
/// collects the clients' local means and closes the phase under a straggler policy:
///  sync     - wait for every client not presumed dead (a phase times out after
///             round_timeout seconds per pull of the phase);
///  deadline - close at broadcast + deadline x (pulls per client in the phase) with the clients
///             that reported; the global mean is then over those clients only (the excluded
///             ones are counted per phase): with the synthetic objectives' constant offsets the
///             elimination is unaffected (a constant shifts every node's mean alike), but with
///             heterogeneous clients such as SEIR regions the global mean is biased toward the
///             fast clients' objectives.
/// The membership (done, missed phases, presumed dead, revived by a late report) is the FBO
/// server's (actors/membership.hpp), and so is the policy object (actors/policy/): its
/// round_wait() is the phase's timer per pull. When a phase's timer fires
/// with no report to close on, the phase is sent again to the clients still expected: a client
/// that lost its copy otherwise waits for the next phase, and the last phase (cut by the
/// budget, never reported) has none. Malformed reports (unknown
/// client, wrong size, non-finite, wrong pull counts) are counted, logged and never averaged.
/// On (get_atom) it answers why the run could not finish ("" if nothing stopped it).
#include <memory>
#include <optional>
#include <vector>

#include <caf/all.hpp>

#include "actors/fed_pne_client.hpp"
#include "actors/membership.hpp"
#include "actors/messages.hpp"
#include "actors/outbox.hpp"
#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"
#include "engine/xarmed/fed_pne_server.hpp"

namespace fedsim::actors {

struct FedPneServerState {
  std::shared_ptr<const FedPneShared> shared;
  Outbox box;  ///< envelopes sent while a delivery is handled, sent with its answer
  std::unique_ptr<policy::RoundPolicy> policy;
  std::optional<xarmed::FedPneServer> server;
  std::optional<Membership> members;  ///< contributed: reported the current phase
  int phases_closed = 0;
  bool open = false;
  bool stopped = false;
  bool timer_armed = false;
  int late = 0, rejected = 0;
  std::uint64_t event_seq = 0;
  double now = 0.0;
  static inline const char* name = "fed_pne_server";
};

/// What is wrong with a Fed-PNE server state restored from a checkpoint, with its engine
/// server's snapshot (empty if nothing), against the scenario (`s.shared`, `dead_after_missed`):
/// counts or a clock out of range, a phase of another shape (check_phase_broadcast), means of
/// another number of clients or nodes or not finite, or a membership that does not fit
/// (Membership::check) or disagrees with the reports received.
std::string check_fed_pne_server_state(const FedPneServerState& s,
                                       const xarmed::FedPneServer::Snapshot& engine,
                                       int dead_after_missed);

/// What is wrong with a payload delivered to the Fed-PNE server, restored from a checkpoint's
/// queue (empty if it is one of its messages; their contents it checks as they come).
std::string check_fed_pne_server_delivery(const caf::message& payload);

caf::behavior fed_pne_server_actor(caf::stateful_actor<FedPneServerState>* self,
                                   std::shared_ptr<const FedPneShared> shared,
                                   scenario::PolicyConfig policy);

}  // namespace fedsim::actors
