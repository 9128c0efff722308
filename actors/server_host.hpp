#pragma once
/// A server of one's own for fedsim's agents (RunOptions::server_host, FBO family): the run
/// keeps fedsim's agents, network (latencies, loss, crashes, virtual or wall-clock time) and
/// recorder, and the embedding program supplies the actor that plays the server.
///
/// The protocol such an actor speaks (actors/messages.hpp; examples/own-server/main.cpp is a
/// complete one in about 100 lines):
/// - The network delivers each message as `(message, virtual_time)`; answer it with
///   `caf::ok_atom` once it is handled, by returning it or through a response promise (the
///   network waits for that before it moves time on; it is an ordinary message, not a
///   request, and CAF sends a handler's result back to its sender either way). fedsim's own
///   server sends its envelopes and the answer in one `outbox` message (actors/outbox.hpp);
///   a server of one's own need not.
///   Messages: `kickoff` (the run starts), `report` (an agent's omega_{n,t}: `round` is the
///   round it is meant for, 0 after the initial design; `omega` has M values; check it with
///   `intact(r)` of actors/integrity.hpp), `agent_done` (an agent finished its T iterations),
///   `membership_notice` (the failure detector saw an agent crash or come back), and its own
///   `timer`s.
/// - It sends through the network with send_from_server (below): to agent n a `broadcast` for
///   the agents' next iteration, `round` r answering the reports meant for round r. FTS-DE's
///   agents (algorithm.name = "fts-de", without privacy) read `joint`, an M x P column-major
///   matrix (rows = M = algorithm.features, cols = P = algorithm.subregions); FTS's read one
///   M-vector per entry of `sources` (the agent ids they came from, in ascending order: P_N
///   draws in agent order; a `shared_ids`). An agent fails the run,
///   naming itself, on a broadcast of another shape. Agents wait for a broadcast between
///   iterations unless the scenario's policy is async. A timer is `send_from_server(self,
///   network, server_node, timer{...}, 0, delay)`.
/// - On `caf::get_atom` (after the network went quiet) it answers a std::string: "" when the
///   run completed, else why not.
/// The run ends when nothing is left to deliver. No accountant is involved: a server of one's
/// own takes no private algorithm, and no checkpoint (it has no save/restore).
#include <cstdint>
#include <utility>

#include <caf/all.hpp>

#include "actors/messages.hpp"

namespace fedsim::actors {

/// What a server host needs to stand in the server for a run.
struct ServerSlots {
  caf::actor network;   ///< send everything here (send_from_server)
  caf::actor recorder;  ///< round records, if the server writes rounds.csv (optional)
  int agents = 0;       ///< N: ids 0 .. N-1
  int features = 0;     ///< M: a report's and a broadcast column's length
  int regions = 1;      ///< P: the broadcast's columns for FTS-DE
  int iterations = 0;   ///< T
};

/// Sends `payload` from the server to node `to` (an agent id, or server_node for its own
/// timers) through the network, after `delay` seconds of the server's own; `bytes` is its size
/// on the wire for the link model (fedsim's server counts M x P doubles plus 16 for a
/// broadcast).
template <class Self>
void send_from_server(Self* self, const caf::actor& network, node_id to, caf::message payload,
                      std::uint64_t bytes = 0, double delay = 0.0) {
  self->send(network, envelope{server_node, to, delay, bytes, std::move(payload)});
}

}  // namespace fedsim::actors
