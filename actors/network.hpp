#pragma once
/// The network actor: the clock and the straggler/failure injector. In simulation every
/// federation message passes through it as an `envelope`; it applies the link model (compute
/// time, latency, bandwidth, loss, duplication, crashes, partitions, availability, malformed
/// payloads) and delivers events in (time, sender, sender's counter) order.
///
/// Two clocks, one protocol (NetworkPlan::clock, docs/wall-clock.md):
///  - virtual time: all events of one time are delivered as messages that each recipient
///    answers with caf::ok_atom (CAF sends a handler's result back to the sender); the clock
///    advances when every answer is in, so every envelope a handler sent is queued first (CAF
///    keeps per-pair message order, and the answer leaves after the handler's envelopes);
///  - wall-clock time: `now` is the real time since the run started over time_scale (model
///    seconds), read when an envelope arrives, which is processed at once; each queued event is
///    delivered (still answered) when the real clock reaches its time x time_scale, on a
///    wake-up the network sends itself; the clock never waits for replies. The run ends when
///    the queue is empty and no answer is outstanding.
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/network_plan.hpp"

namespace fedsim::actors {

/// The network's own address (crash notices and other system events come from it).
constexpr node_id network_node = 0xFFFFFF01u;

/// Wall-clock time: the wake-up the network sends itself (with its number) for the earliest
/// queued event. An atom of CAF 0.17 is a value: it needs no entry in the type-ID block.
using wake_atom = caf::atom_constant<caf::atom("wake")>;

/// Totals the network reports when the run is over.
struct NetworkTotals {
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  std::uint64_t dropped = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t bytes = 0;
  double final_time = 0.0;
  /// Wall-clock time only (NaN in virtual time, and with no delivery): the median and the 99th
  /// percentile (linear interpolation between order statistics) over every delivery of its
  /// lateness, the real time it was delivered minus the real time it was due (its model time x
  /// time_scale after the run's start), in wall seconds: what the network itself adds.
  double lateness_median = std::numeric_limits<double>::quiet_NaN();
  double lateness_p99 = std::numeric_limits<double>::quiet_NaN();
  /// Of `delivered`: timers their agent settled at once (virtual_time::settle), delivered
  /// without a message. Not an output: the schedule is the same either way.
  std::uint64_t settled = 0;
};

/// Wiring: the members' handles, indexed by node id (agents) plus the server.
struct NetworkWiring {
  std::vector<caf::actor> agents;
  caf::actor server;
  caf::actor recorder;  ///< receives network_event when log_events
  bool log_events = true;
  bool log_traffic = true;  ///< also sends and deliveries (output.events = "all")
  /// For a live view (an observer with RunObserver::agent or ::wave): agent_state_event and,
  /// in virtual time, (wave_atom, time) before each wave of deliveries, to the recorder.
  bool live = false;
};

/// One queued delivery. Ordered by (time, sender, sender's counter, copy).
struct PendingEvent {
  double time;
  node_id sender;
  std::uint64_t counter;
  std::uint32_t copy;  ///< 1 for a duplicate
  bool system;         ///< from the network itself: delivered even to a down node
  envelope env;
  /// An agent's timer it settled at once (virtual_time::settle): its delivery is logged and
  /// counted, not sent, and releases what the agent sent after it (NetworkState::riders).
  bool settled = false;
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
  /// For a restored queue: what is wrong with a payload for member `to` (an agent's id or
  /// server_node), "" if its recipient can take it. Set by the federation, which knows the
  /// members' protocols; unset, only the queue's order, times and addresses are checked.
  std::function<std::string(node_id to, const caf::message& payload)> check_payload;
};

/// A queued delivery as checkpoint fields (actors/checkpoint/state_archive.hpp).
template <class Archive>
void fields(Archive& a, PendingEvent& e) {
  a(e.time, e.sender, e.counter, e.copy, e.system, e.env, e.settled);
}

struct NetworkState {
  NetworkPlan plan;
  NetworkWiring wiring;
  double now = 0.0;
  std::priority_queue<PendingEvent, std::vector<PendingEvent>, std::greater<PendingEvent>> queue;
  /// An envelope received, numbered by its sender's counter; `settled`: an agent's timer
  /// settled at once.
  struct Received {
    std::uint64_t counter;
    envelope env;
    bool settled;
  };
  /// Envelopes received while the current time's handlers run; sorted before they are queued
  /// so arrival interleavings never matter.
  std::vector<Received> inbox;
  std::vector<std::uint64_t> agent_counters;
  /// Virtual time, per agent: what it sent after the timer it settled at once, taken (as if
  /// sent then) when that timer is delivered in turn; empty when none is settled.
  std::vector<std::vector<envelope>> riders;
  /// Per agent: its link charges no compute time per evaluation (a constant zero).
  std::vector<bool> free_compute;
  /// Per agent: the wave (wave_serial) of its delivery that gave leave to settle a timer
  /// (virtual_time::settle), until used; 0: none.
  std::vector<std::uint64_t> leave;
  std::uint64_t wave_serial = 1;  ///< waves delivered so far in virtual time, plus one
  /// The current wave (the events of one time, in delivery order) and, per agent, the
  /// positions of its first and last delivery in it (valid for the agents it delivers to).
  std::vector<PendingEvent> wave;
  std::vector<std::uint32_t> first_in_wave, last_in_wave;
  bool settle_timers = true;  ///< leave to settle timers is given (RunOptions::settle_timers)
  /// Each link's loss-model state, per agent: agent -> server and server -> agent.
  std::vector<std::unique_ptr<faults::LossModel>> uplink_loss, downlink_loss;
  std::uint64_t server_counter = 0;
  std::uint64_t network_counter = 0;
  std::uint64_t log_seq = 0;
  network_events log_batch;  ///< virtual time: the events logged since the last flush
  int outstanding = 0;
  bool running = false;
  bool started = false;  ///< (run_atom) came
  /// A member that failed (or stopped) before the run started: the run fails as it starts.
  std::optional<caf::error> early_failure;
  bool failed = false;  ///< a member failed: nothing more is delivered
  /// Why the run was stopped before it finished, as not completed (an agent's breaker of
  /// failing evaluations, the wall-clock horizon); "" when it was not.
  std::string stopped_why;
  caf::response_promise finished;
  NetworkTotals totals;
  CheckpointSettings checkpoints;
  std::int64_t rounds_closed = 0;  ///< as the server last said
  bool checkpoint_due = false;
  bool paused = false;             ///< waiting for the driver to take a checkpoint
  bool restored = false;           ///< state put back from a checkpoint: no new kickoff
  caf::actor driver;               ///< who started the run: told of each checkpoint
  // Wall-clock time only.
  std::chrono::steady_clock::time_point start;  ///< the run's t = 0
  double last_event = 0.0;         ///< model time of the last event taken from the queue
  std::vector<double> lateness;    ///< per delivery, wall seconds (NetworkTotals)
  /// Agents whose process was lost (distributed wall-clock runs): crashed until they rejoin.
  std::vector<bool> lost;
  /// The plan's agent state changes (agent_states.hpp), when live, and the next to send.
  std::vector<agent_state_event> states;
  std::size_t next_state = 0;
  bool wake_armed = false;         ///< a wake-up for wake_due is on its way
  double wake_due = 0.0;           ///< the model time the armed wake-up was sent for
  std::uint64_t wake_seq = 0;      ///< the armed wake-up's number (older ones are stale)
  static inline const char* name = "network";
};

/// What is wrong with a network state restored from a checkpoint (empty if nothing), against
/// its plan: a clock that is not finite, a queue out of delivery order (or with two deliveries of
/// one key), a delivery before the clock, from or to a member that does not exist, numbered past
/// its sender's counter, a settled timer that is not an agent's own, riders of another agent, a
/// payload its recipient cannot take (CheckpointSettings::check_payload), or counters and
/// totals that disagree. `queue`: the queue as saved, in delivery order.
std::string check_network_state(const NetworkState& s, const std::vector<PendingEvent>& queue);

/// Spawned once per run. Protocol:
///  - `(put_atom, agents, server, recorder, accountant, log_events, log_traffic, live)` from
///    the federation (log_traffic: sends and deliveries are logged too, not only faults; live:
///    the agents' state changes go to the recorder as the clock passes them, and in virtual
///    time a (wave_atom, time) before each wave of deliveries): the wiring; every member is monitored, and one that fails ends the run with its error;
///  - `envelope` from any member: queued (timers are envelopes to oneself);
///  - `outbox` from fedsim's own members: the envelopes one handler of a delivery sent, and its
///    answer; a timer in it settled at once (virtual_time::settle, in virtual time) is queued
///    marked, and the envelopes after it wait for its delivery (NetworkState::riders). Settled
///    without the leave of the member's last delivery, or not to itself, it fails the run;
///  - `(run_atom)` from the federation: sends `kickoff` to the server and to every agent at
///    time 0 (a system event: the start of the run is not a message that can be lost), runs until no
///    event is left, then replies (sent, delivered, dropped, duplicated, corrupted, bytes,
///    final time, lateness median, lateness p99, settled, why it stopped early: "" when it
///    did not), or the error of the first member that failed;
///  - `(caf::close_atom, why)` from a member: the run cannot make progress (an agent's breaker
///    of failing evaluations); it ends now with its totals so far and `why`. The network itself
///    ends a wall-clock run so when nothing is outstanding and its next event is more than
///    `plan.clock.horizon` real seconds away (run.wall_horizon);
///  - `(wake_atom, number)` from itself, wall-clock time only: a wake-up, when the earliest
///    queued event is due (a stale one, of an earlier number, only delivers what is due);
///  - `(checkpoint_atom, rounds closed)` from the server after each round (phase): at the next
///    quiet moment (every handler of one time answered, what they sent queued) after a
///    multiple of checkpoints.every rounds, or at the first quiet moment after an interrupt,
///    the network pauses and sends `(checkpoint_atom, rounds closed, time, signal)` to the
///    driver, which saves every member and answers `(resume_atom)` to go on (or stops the
///    actors); `(save_atom)` -> the network's own state, `(restore_atom, bytes)` puts it back,
///    after which `(run_atom)` continues from there instead of sending kickoffs. Virtual time
///    only: a wall-clock run has no quiet moment (run_federation refuses checkpoints with it);
///  - `(lost_atom, agent)` -> the time now, from an agent's stand-in (actors/remote/), wall-clock
///    time: the agent's process is gone. The agent counts as crashed from now on (deliveries
///    to it are dropped, "recipient lost"; the server gets a membership notice after the
///    detection delay); `(rejoin_atom, agent)`: a new agent joined for it, which recovers now
///    (recover notice to it, membership notice to the server). Both are events.jsonl lines
///    (kinds "lost" and "rejoin").
caf::behavior network_actor(caf::stateful_actor<NetworkState>* self, NetworkPlan plan,
                            CheckpointSettings checkpoints = {}, bool settle_timers = true);

}  // namespace fedsim::actors
