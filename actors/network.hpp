#pragma once
/// The network actor: the virtual clock and the straggler/failure injector. In simulation every
/// federation message passes through it as an `envelope`; it applies the link model (compute
/// time, latency, bandwidth, loss, duplication, crashes, partitions, availability, malformed
/// payloads) and delivers events in (time, sender, sender's counter) order. All events of one
/// time are delivered as requests; the clock advances when every recipient has replied, so
/// every envelope a handler sent is queued first (CAF keeps per-pair message order).
#include <atomic>
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/network_plan.hpp"

namespace fedsim::actors {

/// The network's own address (crash notices and other system events come from it).
constexpr node_id network_node = 0xFFFFFF01u;

/// Totals the network reports when the run is over.
struct NetworkTotals {
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  std::uint64_t dropped = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t bytes = 0;
  double final_time = 0.0;
};

/// Wiring: the members' handles, indexed by node id (agents) plus the server.
struct NetworkWiring {
  std::vector<caf::actor> agents;
  caf::actor server;
  caf::actor recorder;  ///< receives network_event when log_events
  bool log_events = true;
};

/// One queued delivery. Ordered by (time, sender, sender's counter, copy).
struct PendingEvent {
  double time;
  node_id sender;
  std::uint64_t counter;
  std::uint32_t copy;  ///< 1 for a duplicate
  bool system;         ///< from the network itself: delivered even to a down node
  envelope env;
  bool operator>(const PendingEvent& o) const {
    if (time != o.time) return time > o.time;
    if (sender != o.sender) return sender > o.sender;
    if (counter != o.counter) return counter > o.counter;
    return copy > o.copy;
  }
};

/// When the network pauses for a checkpoint (actors/checkpoint/checkpoint.hpp).
struct CheckpointSettings {
  std::int64_t every = 0;                    ///< after every this many rounds closed (0: never)
  const std::atomic<int>* interrupt = nullptr;  ///< non-zero: checkpoint now and stop (a signal)
};

/// A queued delivery as checkpoint fields (actors/checkpoint/state_archive.hpp).
template <class Archive>
void fields(Archive& a, PendingEvent& e) {
  a(e.time, e.sender, e.counter, e.copy, e.system, e.env);
}

struct NetworkState {
  NetworkPlan plan;
  NetworkWiring wiring;
  double now = 0.0;
  std::priority_queue<PendingEvent, std::vector<PendingEvent>, std::greater<PendingEvent>> queue;
  /// Envelopes received while the current time's handlers run, with the sender's counter;
  /// sorted before they are queued so arrival interleavings never matter.
  std::vector<std::pair<std::uint64_t, envelope>> inbox;
  std::vector<std::uint64_t> agent_counters;
  /// Each link's loss-model state, per agent: agent -> server and server -> agent.
  std::vector<std::unique_ptr<faults::LossModel>> uplink_loss, downlink_loss;
  std::uint64_t server_counter = 0;
  std::uint64_t network_counter = 0;
  std::uint64_t log_seq = 0;
  int outstanding = 0;
  bool running = false;
  bool failed = false;  ///< a member failed: nothing more is delivered
  caf::response_promise finished;
  NetworkTotals totals;
  CheckpointSettings checkpoints;
  std::int64_t rounds_closed = 0;  ///< as the server last said
  bool checkpoint_due = false;
  bool paused = false;             ///< waiting for the driver to take a checkpoint
  bool restored = false;           ///< state put back from a checkpoint: no new kickoff
  caf::actor driver;               ///< who started the run: told of each checkpoint
  static inline const char* name = "network";
};

/// Spawned once per run. Protocol:
///  - `(put_atom, agents, server, recorder, accountant, log_events)` from the federation: the
///    wiring; every member is monitored, and one that fails ends the run with its error;
///  - `envelope` from any member: queued (timers are envelopes to oneself);
///  - `(run_atom)` from the federation: sends `kickoff` to the server and to every agent at
///    time 0 (a system event: the start of the run is not a message that can be lost), runs until no
///    event is left, then replies (sent, delivered, dropped, duplicated, corrupted, bytes,
///    final time), or the error of the first member that failed;
///  - `(checkpoint_atom, rounds closed)` from the server after each round (phase): at the next
///    quiet moment (every handler of one time answered, what they sent queued) after a
///    multiple of checkpoints.every rounds, or at the first quiet moment after an interrupt,
///    the network pauses and sends `(checkpoint_atom, rounds closed, time, signal)` to the
///    driver, which saves every member and answers `(resume_atom)` to go on (or stops the
///    actors); `(save_atom)` -> the network's own state, `(restore_atom, bytes)` puts it back,
///    after which `(run_atom)` continues from there instead of sending kickoffs.
caf::behavior network_actor(caf::stateful_actor<NetworkState>* self, NetworkPlan plan,
                            CheckpointSettings checkpoints = {});

}  // namespace fedsim::actors
