#include "actors/network.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "actors/agent_states.hpp"
#include "actors/checkpoint/state_archive.hpp"
#include "actors/decimal.hpp"
#include "actors/failure.hpp"
#include "actors/faults/corruptions.hpp"
#include "actors/run_keys.hpp"
#include "engine/rng.hpp"

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<NetworkState>*;

bool is_agent(node_id n, const NetworkState& s) { return n < s.plan.agents.size(); }

/// The payload's type name and round, for the event log.
std::pair<const char*, std::int32_t> describe(const caf::message& m) {
  if (m.match_elements<report>()) return {"report", m.get_as<report>(0).round};
  if (m.match_elements<broadcast>()) return {"broadcast", m.get_as<broadcast>(0).round};
  if (m.match_elements<kickoff>()) return {"kickoff", 0};
  if (m.match_elements<agent_done>()) return {"agent_done", -1};
  if (m.match_elements<phase_message>())
    return {"phase", static_cast<std::int32_t>(m.get_as<phase_message>(0).phase)};
  if (m.match_elements<phase_report>())
    return {"phase_report", static_cast<std::int32_t>(m.get_as<phase_report>(0).phase)};
  if (m.match_elements<timer>()) return {"timer", m.get_as<timer>(0).round};
  if (m.match_elements<crash_notice>()) return {"crash_notice", -1};
  if (m.match_elements<recover_notice>()) return {"recover_notice", -1};
  if (m.match_elements<membership_notice>()) return {"membership_notice", -1};
  return {"other", -1};
}

/// One event of the log: a fault, or (kinds "send" and "deliver", `traffic`) the traffic itself.
/// In virtual time it waits in a batch that goes to the recorder at the end of the wave
/// (flush_log); in wall-clock time it goes at once.
void log(self_ptr self, const char* kind, const envelope& env, const std::string& reason = {},
         bool traffic = false) {
  auto& s = self->state;
  if (!s.wiring.log_events || !s.wiring.recorder || (traffic && !s.wiring.log_traffic)) return;
  const auto [payload, round] = describe(env.payload);
  network_event e;
  e.time = s.now;
  e.seq = s.log_seq++;
  e.kind = kind;
  e.from = env.from;
  e.to = env.to;
  e.payload = payload;
  e.round = round;
  e.bytes = env.bytes;
  e.reason = reason;
  if (s.plan.clock.wall) self->send(s.wiring.recorder, std::move(e));
  else s.log_batch.events.push_back(std::move(e));
}

/// Sends the recorder the events logged since the last flush, in one message.
void flush_log(self_ptr self) {
  auto& s = self->state;
  if (s.log_batch.events.empty()) return;
  const std::size_t size = s.log_batch.events.size();
  self->send(s.wiring.recorder, std::move(s.log_batch));
  s.log_batch.events.clear();
  s.log_batch.events.reserve(size);
}

/// Sends the recorder the plan's agent state changes the clock has reached (live only).
void send_states(self_ptr self) {
  auto& s = self->state;
  while (s.next_state < s.states.size() && s.states[s.next_state].time <= s.now)
    self->send(s.wiring.recorder, s.states[s.next_state++]);
}

/// A state change that is not in the plan (a lost or rejoined agent process), at `now`.
void send_state(self_ptr self, node_id agent, const char* state) {
  auto& s = self->state;
  if (!s.wiring.live) return;
  agent_state_event e;
  e.time = s.now;
  e.agent = static_cast<std::int32_t>(agent);
  e.state = state;
  self->send(s.wiring.recorder, std::move(e));
}

void enqueue(self_ptr self, double time, node_id sender, std::uint64_t counter,
             std::uint32_t copy, bool system, envelope env, bool settled = false) {
  self->state.queue.push(
      PendingEvent{time, sender, counter, copy, system, std::move(env), settled});
}

/// A system event from the network itself (crash and recovery notices).
void enqueue_system(self_ptr self, double time, node_id to, caf::message payload) {
  auto& s = self->state;
  enqueue(self, time, network_node, s.network_counter++, 0, true,
          envelope{network_node, to, 0.0, 0, std::move(payload)});
}

/// Replaces a report's payload (report or phase_report) by a malformed one of a kind drawn
/// uniformly from malformed.kinds. The sender's integrity digest is left as it was.
void corrupt(self_ptr self, envelope& env, RandomStream& rng) {
  const auto& kinds = self->state.plan.malformed.kinds;
  if (kinds.empty()) return;
  const std::string& kind = kinds[rng.uniform_index(kinds.size())];
  const faults::Corruption* corruption = faults::find_corruption(kind);
  if (!corruption) throw std::logic_error("unknown malformed kind '" + kind + "'");
  faults::apply(*corruption, env.payload, rng);
  ++self->state.totals.corrupted;
  log(self, "corrupt", env, kind);
}

/// Applies the link model to an envelope sent at `now`, queueing zero, one or two deliveries;
/// `settled`: an agent's timer it settled at once, which must leave now (it cost nothing).
void process_send(self_ptr self, std::uint64_t counter, envelope env, bool settled = false) {
  auto& s = self->state;
  ++s.totals.sent;
  s.totals.bytes += env.bytes;
  log(self, "send", env, {}, true);
  const node_id sender = env.from;
  double departure = s.now + env.delay;
  if (env.from == env.to) {  // a timer; an agent's evaluations cost its compute time
    if (is_agent(sender, s) && env.payload.match_elements<timer>() && s.plan.clock.wall &&
        !s.plan.clock.injected_compute) {
      // Wall-clock time: the evaluations really ran before the agent sent its timer, so their
      // time is in `now` already; nothing is added (injected_compute also charges the model's).
      departure = s.now;
    } else if (is_agent(sender, s) && env.payload.match_elements<timer>()) {
      const AgentPlan& plan = s.plan.agents[sender];
      const scenario::Distribution& compute = plan.link.compute;
      const int evaluations = env.payload.get_as<timer>(0).evaluations;
      if (compute.kind == scenario::Distribution::Kind::constant) {
        // No draw: the same sum without a sampler per evaluation (a Fed-PNE client's phase
        // charges thousands), and nothing at all to add when the time is zero.
        const double step = plan.link.speed_factor * compute.value;
        if (step != 0.0)
          for (int k = 0; k < evaluations; ++k) departure += step;
      } else {
        RandomStream rng(s.plan.seed, "network.compute", sender, counter);
        for (int k = 0; k < evaluations; ++k)
          departure += plan.link.speed_factor * compute.sample(rng);
      }
    }
    if (settled && departure != s.now)
      throw std::logic_error("agent " + std::to_string(sender) +
                             " settled a timer that costs compute time");
    enqueue(self, departure, sender, counter, 0, false, std::move(env), settled);
    return;
  }
  const bool uplink = is_agent(env.from, s);
  const node_id agent = uplink ? env.from : env.to;
  if (!is_agent(agent, s)) {  // server <-> network: no link model
    enqueue(self, departure, sender, counter, 0, false, std::move(env));
    return;
  }
  const AgentPlan& plan = s.plan.agents[agent];
  auto drop = [&](const char* reason) {
    ++s.totals.dropped;
    log(self, "drop", env, reason);
  };
  if (uplink && plan.down(departure)) return drop("sender down");
  if (plan.partitioned(departure)) return drop("partition");
  const auto& latency = uplink ? plan.link.uplink : plan.link.downlink;
  const double transfer = std::isinf(plan.link.bandwidth) ? 0.0 : env.bytes / plan.link.bandwidth;
  if (plan.certain) {  // the same delivery as below, without the draws that change nothing
    enqueue(self, departure + latency.value + transfer, sender, counter, 0, false, std::move(env));
    return;
  }
  RandomStream rng(s.plan.seed, "network.link", sender, counter);
  // The link's loss model sees exactly the messages that reach the wire, in processing order.
  faults::LossModel& loss = uplink ? *s.uplink_loss[agent] : *s.downlink_loss[agent];
  if (loss.lost(rng)) return drop("lost");
  // A report always draws the corruption coin (existing outputs keep their stream positions);
  // a phase report only when corruption is on (it was never corrupted before the table).
  const bool corruptible = env.payload.match_elements<report>() ||
                           (s.plan.malformed.rate > 0 && faults::is_report_payload(env.payload));
  if (uplink && corruptible && rng.bernoulli(s.plan.malformed.rate)) corrupt(self, env, rng);
  const double arrival = departure + latency.sample(rng) + transfer;
  if (rng.bernoulli(plan.link.duplicate)) {
    ++s.totals.duplicated;
    log(self, "duplicate", env);
    enqueue(self, departure + latency.sample(rng) + transfer, sender, counter, 1, false, env);
  }
  enqueue(self, arrival, sender, counter, 0, false, std::move(env));
}

void advance(self_ptr self);
void pump(self_ptr self);

void on_reply(self_ptr self) {
  auto& s = self->state;
  --s.outstanding;
  if (!s.running) return;  // the run ended (a failure, a stop): nothing more is delivered
  if (s.plan.clock.wall) return pump(self);  // the clock did not wait: the run may be over
  if (s.outstanding == 0) advance(self);
}

/// A member failed (its handler threw, or it died): the run ends with that error, now. Going
/// on without it would finish "normally" with a member silently missing.
void fail_run(self_ptr self, const caf::error& reason) {
  auto& s = self->state;
  if (!s.started) {  // the run will fail as it starts: a member is missing already
    if (!s.early_failure) s.early_failure = reason;
    return;
  }
  if (!s.running) return;
  s.running = false;
  s.failed = true;
  flush_log(self);  // the faults so far, for a live view
  s.finished.deliver(reason);
}

/// The q-quantile of `v` (sorted in place), interpolated linearly between order statistics;
/// NaN for none.
double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, v.size() - 1);
  return v[below] + (at - static_cast<double>(below)) * (v[above] - v[below]);
}

/// The run is over: its totals to the caller of run.
void finish(self_ptr self, double final_time) {
  auto& s = self->state;
  s.totals.final_time = final_time;
  if (s.plan.clock.wall) {
    s.totals.lateness_median = quantile(s.lateness, 0.5);
    s.totals.lateness_p99 = quantile(s.lateness, 0.99);
  }
  s.running = false;
  flush_log(self);
  const auto& t = s.totals;
  s.finished.deliver(t.sent, t.delivered, t.dropped, t.duplicated, t.corrupted, t.bytes,
                     t.final_time, t.lateness_median, t.lateness_p99, t.settled, s.stopped_why);
}

/// The run cannot make progress: it ends now, as not completed, with its totals so far and
/// `why` (the caller of run reports it; `fedsim run` exits 3). Deliveries still outstanding
/// stay unanswered: the members are stopped next.
void stop_run(self_ptr self, std::string why) {
  auto& s = self->state;
  if (!s.running || s.failed) return;
  s.stopped_why = std::move(why);
  finish(self, s.plan.clock.wall ? s.last_event : s.now);
}

/// Wall seconds since the run started (wall-clock time).
double elapsed(const NetworkState& s) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count();
}

/// Whether a copy of the payload per recipient is cheap: no vector that grows with N or M (a
/// broadcast's joint and FTS's `sources`, and a phase's node list, are shared).
bool cheap_copy(const report&) { return false; }
bool cheap_copy(const phase_report&) { return false; }
template <class T>
bool cheap_copy(const T&) {
  return true;
}

/// If `payload` is a T: the delivery `(T, virtual_time)` in `out`. A payload that this delivery
/// alone holds (a report, a timer) moves into it, a shared one that is cheap to copy is copied,
/// and anything else is concatenated, as CAF's `message + message` does it: slower to build and
/// to match, and the only way for a server host's own types.
template <class T>
bool stamp_as(caf::message& payload, virtual_time vt, caf::message& out) {
  if (!payload.match_elements<T>()) return false;
  if (payload.cvals()->unique())
    out = caf::make_message(std::move(payload.get_mutable_as<T>(0)), vt);
  else if (cheap_copy(payload.get_as<T>(0)))
    out = caf::make_message(payload.get_as<T>(0), vt);
  else
    out = payload + caf::make_message(vt);
  return true;
}

/// The message a recipient gets: the payload with the delivery's virtual time appended.
caf::message stamped(caf::message& payload, virtual_time vt) {
  caf::message out;
  // The most frequent first: each miss is a type_info comparison.
  if (stamp_as<timer>(payload, vt, out) || stamp_as<report>(payload, vt, out) ||
      stamp_as<broadcast>(payload, vt, out) || stamp_as<phase_message>(payload, vt, out) ||
      stamp_as<phase_report>(payload, vt, out) || stamp_as<kickoff>(payload, vt, out) ||
      stamp_as<agent_done>(payload, vt, out) || stamp_as<crash_notice>(payload, vt, out) ||
      stamp_as<recover_notice>(payload, vt, out) || stamp_as<membership_notice>(payload, vt, out))
    return out;
  return payload + caf::make_message(vt);
}

void receive(self_ptr self, envelope env, bool settled = false);

/// Delivers a timer its agent settled at once, in turn: logged and counted as delivered, and
/// what the agent sent after it taken now, as if the agent had sent it on this delivery.
/// `first`: nothing was delivered to the agent before it in this wave. Leave to settle was
/// given only when this would hold; anything else is a defect, and fails the run.
void deliver_settled(self_ptr self, PendingEvent ev, bool first) {
  auto& s = self->state;
  const node_id agent = ev.env.to;
  if (!first || s.plan.agents[agent].down(s.now) || s.lost[agent])
    throw std::logic_error("agent " + std::to_string(agent) +
                           " settled a timer that would not have been its next delivery");
  ++s.totals.delivered;
  ++s.totals.settled;
  log(self, "deliver", ev.env, {}, true);
  for (envelope& env : s.riders[agent]) receive(self, std::move(env));
  s.riders[agent].clear();  // its capacity kept for the agent's next settled timer
}

/// Delivers one event taken from the queue at its time (s.now): to be answered, or dropped (no
/// such recipient, recipient down); an agent's own timer while it is unavailable (not crashed)
/// goes back into the queue for when it is available again. `last`, in virtual time: this is
/// the recipient's last delivery of this wave (for its leave to settle a timer).
void deliver(self_ptr self, PendingEvent ev, bool last = false) {
  auto& s = self->state;
  const node_id to = ev.env.to;
  caf::actor dest;
  if (to == server_node) dest = s.wiring.server;
  else if (is_agent(to, s)) dest = s.wiring.agents[to];
  if (!dest) {
    ++s.totals.dropped;
    log(self, "drop", ev.env, "unknown recipient");
    return;
  }
  // An agent outside its availability window gets no notice: its own timers (work in
  // progress) wait until it is available again instead of being lost with it.
  if (!ev.system && is_agent(to, s) && ev.env.from == to && s.plan.agents[to].down(s.now) &&
      !s.plan.agents[to].crashed(s.now)) {
    const double resume = s.plan.agents[to].next_available(s.now);
    if (std::isfinite(resume)) {
      ev.time = resume;
      s.queue.push(std::move(ev));
      return;
    }
  }
  if (is_agent(to, s) && s.lost[to]) {
    ++s.totals.dropped;
    log(self, "drop", ev.env, "recipient lost");
    return;
  }
  if (!ev.system && is_agent(to, s) && s.plan.agents[to].down(s.now)) {
    ++s.totals.dropped;
    log(self, "drop", ev.env, "recipient down");
    return;
  }
  ++s.totals.delivered;
  log(self, "deliver", ev.env, {}, true);
  ++s.outstanding;
  // Leave to settle a timer (virtual_time::settle): its timer would be the agent's next
  // delivery, now, and in the next wave's first place, as no member sends to an agent but
  // the agent itself (server and network ids come after every agent's). Not for a live view:
  // it groups the records by wave, and a settled timer's records come a wave early.
  const bool settle = is_agent(to, s) && last && s.settle_timers && !s.plan.clock.wall &&
                      !s.wiring.live && s.free_compute[to] && !s.plan.agents[to].down(s.now) &&
                      !s.lost[to] && s.riders[to].empty();
  if (settle) s.leave[to] = s.wave_serial;
  if (s.plan.clock.wall) s.lateness.push_back(elapsed(s) - ev.time * s.plan.clock.time_scale);
  // Sent, not requested: the recipient's handler answers caf::ok_atom (at once or through a
  // response promise), and CAF sends that back as an ordinary message, counted in the network's
  // ok_atom handler. CAF 0.17 keeps a request's pending reply in a structure whose cost grows
  // with the number outstanding, and a wave delivers to every agent at once. A recipient that
  // fails or stops is the down handler's to report; one that cannot handle the message answers
  // an error (the error handler).
  self->send(dest, stamped(ev.env.payload, virtual_time{s.now, settle}));
}

/// The name of a member that a delivery goes to ("server", "agent 3"), for failures.
std::string member_name(const NetworkState& s, const caf::actor_addr& who) {
  if (s.wiring.server && who == s.wiring.server.address()) return "server";
  for (std::size_t n = 0; n < s.wiring.agents.size(); ++n)
    if (s.wiring.agents[n] && who == s.wiring.agents[n].address())
      return "agent " + std::to_string(n);
  return {};
}

/// Queues what the last time's handlers sent, then delivers every event of the next time.
void advance(self_ptr self) {
  auto& s = self->state;
  while (s.outstanding == 0 && !s.failed) {
    std::sort(s.inbox.begin(), s.inbox.end(), [](const auto& a, const auto& b) {
      return a.env.from != b.env.from ? a.env.from < b.env.from : a.counter < b.counter;
    });
    for (auto& r : s.inbox) process_send(self, r.counter, std::move(r.env), r.settled);
    s.inbox.clear();
    // The wave's events, before a checkpoint, the run's end or the next wave's marker.
    flush_log(self);
    if (s.queue.empty()) return finish(self, s.now);
    // A quiet moment: every member idle, every message in flight queued.
    const int signal = s.checkpoints.interrupt ? s.checkpoints.interrupt->load() : 0;
    if (s.driver && (s.checkpoint_due || signal != 0)) {
      s.checkpoint_due = false;
      s.paused = true;
      self->send(s.driver, checkpoint_atom::value, s.rounds_closed, s.now,
                 static_cast<std::int32_t>(signal));
      return;
    }
    s.now = s.queue.top().time;
    // Everything the last wave's handlers recorded is in the recorder's mailbox before this.
    if (s.wiring.live) self->send(s.wiring.recorder, wave_atom_v, s.now);
    send_states(self);
    s.wave.clear();
    ++s.wave_serial;
    while (!s.queue.empty() && s.queue.top().time == s.now) {
      // Moved out, not copied: pop() orders by the fields a move leaves in place.
      s.wave.push_back(std::move(const_cast<PendingEvent&>(s.queue.top())));
      s.queue.pop();
    }
    // Each agent's first and last delivery of the wave.
    const auto n = static_cast<std::uint32_t>(s.wave.size());
    for (std::uint32_t i = n; i-- > 0;)
      if (is_agent(s.wave[i].env.to, s)) s.first_in_wave[s.wave[i].env.to] = i;
    for (std::uint32_t i = 0; i < n; ++i)
      if (is_agent(s.wave[i].env.to, s)) s.last_in_wave[s.wave[i].env.to] = i;
    for (std::uint32_t i = 0; i < n && !s.failed; ++i) {
      const node_id to = s.wave[i].env.to;
      if (s.wave[i].settled) deliver_settled(self, std::move(s.wave[i]), s.first_in_wave[to] == i);
      else deliver(self, std::move(s.wave[i]), is_agent(to, s) && s.last_in_wave[to] == i);
    }
    s.wave.clear();
  }
}

/// Wall-clock time: arms a wake-up for the earliest queued event unless one as early is on its
/// way. delayed_send cannot be taken back: an earlier event arms a new one, and the older one,
/// when it comes, is stale (it only delivers what is due).
void arm_wake_up(self_ptr self) {
  auto& s = self->state;
  if (s.queue.empty() || s.failed || !s.running) return;
  const double due = s.queue.top().time;
  // Nothing can come before it (no delivery unanswered, nothing received unqueued): waiting
  // beyond the horizon for it is a run that makes no progress. (Before the armed wake-up is
  // looked at: one may have been armed for it while a delivery was still unanswered.)
  const double away = due * s.plan.clock.time_scale - elapsed(s);
  if (s.outstanding == 0 && s.inbox.empty() && !(away <= s.plan.clock.horizon)) {
    std::string why = "the next event is at model time ";
    append_g10(why, due);
    why += ", ";
    append_g10(why, away);
    why += " s of real time away with nothing else pending, beyond " +
           run_keys::full(run_keys::wall_horizon) + " = ";
    append_g10(why, s.plan.clock.horizon);
    why += " s";
    return stop_run(self, std::move(why));
  }
  if (s.wake_armed && s.wake_due <= due) return;
  if (!std::isfinite(due))  // no event is queued for ever (infinite waits send no timer)
    throw std::logic_error("network: an event queued at time " + std::to_string(due) +
                           " can never be delivered in wall-clock time");
  // At most an hour per wake-up (a far event re-arms when it comes); rounded up, so that the
  // event is due when it comes.
  const double wait = std::clamp(due * s.plan.clock.time_scale - elapsed(s), 0.0, 3600.0);
  const auto delay = std::chrono::ceil<std::chrono::microseconds>(std::chrono::duration<double>(wait));
  s.wake_armed = true;
  s.wake_due = due;
  self->delayed_send(caf::actor_cast<caf::actor>(self), delay, wake_atom::value, ++s.wake_seq);
}

/// Wall-clock time: delivers every event that is due (its model time x time_scale has passed),
/// in queue order, without waiting for replies; arms the next wake-up; ends the run when
/// nothing is queued or outstanding.
void pump(self_ptr self) {
  auto& s = self->state;
  if (!s.running || s.failed) return;
  while (!s.queue.empty() && !s.failed &&
         s.queue.top().time * s.plan.clock.time_scale <= elapsed(s)) {
    PendingEvent ev = s.queue.top();
    s.queue.pop();
    s.now = s.last_event = ev.time;
    send_states(self);
    deliver(self, std::move(ev));
  }
  if (s.failed) return;
  if (s.queue.empty() && s.outstanding == 0 && s.inbox.empty()) return finish(self, s.last_event);
  arm_wake_up(self);
}

/// The network's checkpoint fields (the plan and the wiring come from the scenario and the
/// federation): the clock, the queue in delivery order, counters, totals and link states.
template <class Archive>
void network_fields(Archive& a, NetworkState& s) {
  std::vector<PendingEvent> queue;
  std::vector<std::vector<double>> up, down;
  if constexpr (!Archive::loading) {
    for (auto copy = s.queue; !copy.empty(); copy.pop()) queue.push_back(copy.top());
    for (const auto& m : s.uplink_loss) up.push_back(m->save());
    for (const auto& m : s.downlink_loss) down.push_back(m->save());
  }
  auto& t = s.totals;
  a(s.now, queue, s.agent_counters, s.riders, up, down, s.server_counter, s.network_counter,
    s.log_seq, t.sent, t.delivered, t.dropped, t.duplicated, t.corrupted, t.bytes, t.final_time,
    t.settled, s.rounds_closed);
  if constexpr (Archive::loading) {
    if (up.size() != s.uplink_loss.size() || down.size() != s.downlink_loss.size())
      throw std::runtime_error("loss states of " + std::to_string(up.size()) + " and " +
                               std::to_string(down.size()) + " links, the scenario has " +
                               std::to_string(s.uplink_loss.size()) + " each way");
    const std::string wrong = check_network_state(s, queue);
    if (!wrong.empty()) throw std::runtime_error(wrong);
    s.queue = {};
    for (auto& e : queue) s.queue.push(std::move(e));
    for (std::size_t n = 0; n < up.size(); ++n) {
      s.uplink_loss[n]->load(up[n]);
      s.downlink_loss[n]->load(down[n]);
    }
    s.restored = true;
  }
}

}  // namespace

std::string check_network_state(const NetworkState& s, const std::vector<PendingEvent>& queue) {
  const std::size_t N = s.plan.agents.size();
  if (s.agent_counters.size() != N || s.riders.size() != N)
    return "counters of " + std::to_string(s.agent_counters.size()) + " agents, the scenario has " +
           std::to_string(N);
  if (!(s.now >= 0.0 && std::isfinite(s.now)))
    return "clock " + std::to_string(s.now) + " is not finite and >= 0";
  if (s.rounds_closed < 0) return "rounds closed " + std::to_string(s.rounds_closed) + " < 0";
  const NetworkTotals& t = s.totals;
  if (t.settled > t.delivered || !std::isfinite(t.final_time))
    return "totals disagree (settled deliveries above deliveries, or a final time not finite)";
  auto member = [&](node_id n) { return n < N || n == server_node; };
  auto counter_of = [&](node_id n) {
    return n == server_node ? s.server_counter : n == network_node ? s.network_counter : s.agent_counters[n];
  };
  for (std::size_t k = 0; k < queue.size(); ++k) {
    const PendingEvent& e = queue[k];
    const std::string which = "queued delivery " + std::to_string(k);
    if (!(e.time >= s.now && std::isfinite(e.time)))
      return which + ": time " + std::to_string(e.time) + " is not finite and >= the clock's " +
             std::to_string(s.now);
    if (k > 0 && !(e > queue[k - 1])) return which + ": out of delivery order";
    if (e.system ? e.sender != network_node || e.env.from != network_node
                 : !member(e.sender) || e.env.from != e.sender)
      return which + ": from no member";
    if (!member(e.env.to)) return which + ": to no member";
    if (e.counter >= counter_of(e.sender)) return which + ": numbered past its sender's counter";
    if (e.copy > 1) return which + ": copy " + std::to_string(e.copy) + " (0 or 1)";
    if (e.settled && (e.sender >= N || e.env.to != e.sender || e.system))
      return which + ": a settled timer that is not an agent's own";
    if (s.checkpoints.check_payload) {
      const std::string wrong = s.checkpoints.check_payload(e.env.to, e.env.payload);
      if (!wrong.empty()) return which + ": " + wrong;
    }
  }
  for (std::size_t n = 0; n < N; ++n)
    for (const envelope& env : s.riders[n]) {
      const std::string which = "agent " + std::to_string(n) + ": an envelope after its settled timer";
      if (env.from != n || !member(env.to) || !(env.delay >= 0.0 && std::isfinite(env.delay)))
        return which + " is not its own, to no member, or of a delay not finite and >= 0";
      const std::string wrong = s.checkpoints.check_payload ? s.checkpoints.check_payload(env.to, env.payload) : "";
      if (!wrong.empty()) return which + ": " + wrong;
    }
  return {};
}

namespace {

std::uint64_t next_counter(NetworkState& s, node_id from) {
  if (from == server_node) return s.server_counter++;
  if (from < s.agent_counters.size()) return s.agent_counters[from]++;
  return s.network_counter++;
}

/// An envelope a member sent: numbered by its sender; in wall-clock time processed at once, at
/// the real time, else kept for the end of the wave. `settled`: an agent's timer it settled.
void receive(self_ptr self, envelope env, bool settled) {
  auto& s = self->state;
  const std::uint64_t counter = next_counter(s, env.from);
  if (s.plan.clock.wall && s.running) {
    s.now = elapsed(s) / s.plan.clock.time_scale;
    process_send(self, counter, std::move(env));
    return;
  }
  s.inbox.push_back(NetworkState::Received{counter, std::move(env), settled});
}

/// A member's outbox: its envelopes in order. A timer settled at once (outbox::settled) must
/// be an agent's timer to itself, sent with the leave its delivery gave; what follows it
/// waits for that timer's delivery (NetworkState::riders).
void receive_outbox(self_ptr self, outbox& box) {
  auto& s = self->state;
  const auto count = static_cast<std::int64_t>(box.envelopes.size());
  if (box.settled < 0) {
    for (envelope& env : box.envelopes) receive(self, std::move(env));
    return;
  }
  const node_id agent = box.settled < count ? box.envelopes[box.settled].from : network_node;
  const envelope* timed = box.settled < count ? &box.envelopes[box.settled] : nullptr;
  // Leave is the agent's own, from a delivery of this wave, which this outbox answers.
  const bool own = is_agent(agent, s) &&
                   self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(s.wiring.agents[agent]);
  if (!timed || !own || !box.answers || timed->to != agent ||
      !timed->payload.match_elements<timer>() || s.leave[agent] != s.wave_serial ||
      !s.riders[agent].empty())
    throw std::logic_error("an outbox settled a timer without leave (" +
                           (own ? "agent " + std::to_string(agent)
                                : std::string("not an agent's own timer")) +
                           ")");
  s.leave[agent] = 0;
  for (std::int64_t i = 0; i < box.settled; ++i) receive(self, std::move(box.envelopes[i]));
  receive(self, std::move(box.envelopes[box.settled]), true);
  for (std::int64_t i = box.settled + 1; i < count; ++i)
    s.riders[agent].push_back(std::move(box.envelopes[i]));
}

/// After envelopes that answered nothing: wall-clock time delivers what is due; virtual time
/// goes on if nothing is outstanding (envelopes sent outside a delivery's handling).
void went_on(self_ptr self) {
  auto& s = self->state;
  if (s.plan.clock.wall && s.running) return pump(self);
  if (s.running && s.outstanding == 0 && !s.paused && !s.plan.clock.wall) advance(self);
}

}  // namespace

caf::behavior network_actor(caf::stateful_actor<NetworkState>* self, NetworkPlan plan,
                            CheckpointSettings checkpoints, bool settle_timers) {
  auto& s = self->state;
  s.settle_timers = settle_timers;
  s.plan = std::move(plan);
  s.checkpoints = checkpoints;
  const std::size_t agents = s.plan.agents.size();
  s.agent_counters.assign(agents, 0);
  s.lost.assign(agents, false);
  s.riders.resize(agents);
  s.leave.assign(agents, 0);
  s.first_in_wave.assign(agents, 0);
  s.last_in_wave.assign(agents, 0);
  for (const AgentPlan& a : s.plan.agents) {
    const scenario::Distribution& compute = a.link.compute;
    s.free_compute.push_back(compute.kind == scenario::Distribution::Kind::constant &&
                             a.link.speed_factor * compute.value == 0.0);
  }
  fail_loudly(self, "network");
  self->set_down_handler([self](caf::down_msg& d) {
    auto& s = self->state;
    const std::string name = member_name(s, d.source);
    // fedsim's members name themselves (fail_loudly); another's reason (an embedding program's
    // server that threw: CAF's bare runtime_error) gets the member's name here.
    if (d.reason && d.reason != caf::exit_reason::user_shutdown)
      return fail_run(self, name.empty() || is_member_failure(d.reason)
                                ? d.reason
                                : member_failure(name, "ended with " + caf::to_string(d.reason)));
    // A member that deliveries go to stopping in the middle of a run (not paused for a
    // checkpoint, after which the federation stops everyone) would leave them unanswered.
    if (!name.empty() && (s.running || !s.started) && !s.paused)
      fail_run(self, member_failure(name, "stopped before the run ended (" +
                                              caf::to_string(d.reason) + ")"));
  });
  // A member's answer to a delivery that is an error (a message it has no handler for).
  self->set_error_handler([self](caf::error& e) {
    const std::string name =
        member_name(self->state, caf::actor_cast<caf::actor_addr>(self->current_sender()));
    fail_run(self, name.empty() ? e
                                : member_failure(name, "answered a delivery with an error (" +
                                                           caf::to_string(e) + ")"));
  });
  for (const AgentPlan& a : s.plan.agents) {
    s.uplink_loss.push_back(make_loss_model(a.link));
    s.downlink_loss.push_back(make_loss_model(a.link));
  }
  return {
      [self](caf::put_atom, std::vector<caf::actor>& agents, caf::actor& server,
             caf::actor& recorder, caf::actor& accountant, bool log_events, bool log_traffic,
             bool live) {
        auto& w = self->state.wiring;
        w.agents = std::move(agents);
        w.server = std::move(server);
        w.recorder = std::move(recorder);
        w.log_events = log_events;
        w.log_traffic = log_traffic;
        w.live = live && w.recorder;
        if (w.live) self->state.states = agent_state_schedule(self->state.plan);
        // Every member is watched: one that dies for any reason but the end of the run
        // ends the run (its exception handler has already named it in the reason).
        for (const auto& a : w.agents) self->monitor(a);
        for (const auto* a : {&w.server, &w.recorder, &accountant})
          if (*a) self->monitor(*a);
      },
      // The most frequent messages first: CAF 0.17 tries the handlers in order, and each
      // one of another fedsim type costs a comparison of type names.
      // A member's envelopes from one handler of a delivery, and its answer (actors/outbox.hpp).
      [self](outbox& box) {
        receive_outbox(self, box);
        if (box.answers) on_reply(self);
        else went_on(self);
      },
      [self](envelope& env) {
        receive(self, std::move(env));
        went_on(self);
      },
      [self](caf::ok_atom) { on_reply(self); },  // a member handled a delivery
      // A member says the run cannot make progress (an agent's breaker): it ends, incomplete.
      [self](caf::close_atom, std::string& why) { stop_run(self, std::move(why)); },
      [self](wake_atom, std::uint64_t seq) {
        auto& s = self->state;
        if (seq == s.wake_seq) s.wake_armed = false;  // the armed one; an older one is stale
        pump(self);
      },
      [self](lost_atom, node_id agent) -> double {
        auto& s = self->state;
        if (!is_agent(agent, s) || !s.plan.clock.wall || !s.running || s.lost[agent]) return s.now;
        s.now = elapsed(s) / s.plan.clock.time_scale;
        s.lost[agent] = true;
        log(self, "lost", envelope{network_node, agent, 0.0, 0, caf::make_message(crash_notice{false})},
            "process lost");
        send_state(self, agent, "lost");
        if (std::isfinite(s.plan.detection_delay))
          enqueue_system(self, s.now + s.plan.detection_delay, server_node,
                         caf::make_message(membership_notice{agent, false}));
        const double now = s.now;
        pump(self);
        return now;
      },
      [self](rejoin_atom, node_id agent) {
        auto& s = self->state;
        if (!is_agent(agent, s) || !s.plan.clock.wall || !s.running || !s.lost[agent]) return;
        s.now = elapsed(s) / s.plan.clock.time_scale;
        s.lost[agent] = false;
        log(self, "rejoin", envelope{network_node, agent, 0.0, 0, caf::make_message(recover_notice{})},
            "state lost");
        send_state(self, agent, "rejoined");
        enqueue_system(self, s.now, agent, caf::make_message(recover_notice{}));
        enqueue_system(self, s.now, server_node, caf::make_message(membership_notice{agent, true}));
        pump(self);
      },
      [self](checkpoint_atom, std::int64_t rounds_closed) {
        auto& s = self->state;
        s.rounds_closed = rounds_closed;
        if (s.checkpoints.every > 0 && rounds_closed % s.checkpoints.every == 0)
          s.checkpoint_due = true;
      },
      [self](resume_atom) {
        auto& s = self->state;
        if (!s.paused) return;
        s.paused = false;
        advance(self);
      },
      [self](save_atom) {
        return save_state(self->context(), [self](auto& a) { network_fields(a, self->state); });
      },
      [self](restore_atom, const std::vector<char>& bytes) {
        return restore_state(self->context(), bytes, "network",
                             [self](auto& a) { network_fields(a, self->state); });
      },
      [self](run_atom) -> caf::response_promise {
        auto& s = self->state;
        // Before make_response_promise(), which takes the sender out of the current message.
        s.driver = caf::actor_cast<caf::actor>(self->current_sender());
        s.finished = self->make_response_promise();
        s.running = true;
        s.started = true;
        if (s.early_failure) {
          fail_run(self, *s.early_failure);
          return s.finished;
        }
        if (s.restored && s.plan.clock.wall)  // run_federation refuses it first
          throw std::logic_error("network: a checkpoint cannot be resumed in wall-clock time");
        if (s.restored) {  // a checkpoint's state: the run goes on from its quiet moment
          // What the clock had passed was sent before the checkpoint.
          while (s.next_state < s.states.size() && s.states[s.next_state].time <= s.now)
            ++s.next_state;
          advance(self);
          return s.finished;
        }
        // Crash and recovery notices to the agents, and to the server after the detection delay.
        for (node_id n = 0; n < s.plan.agents.size(); ++n)
          for (const CrashPlan& c : s.plan.agents[n].crashes) {
            enqueue_system(self, c.time, n, caf::make_message(crash_notice{c.keep_state}));
            if (std::isfinite(s.plan.detection_delay))
              enqueue_system(self, c.time + s.plan.detection_delay, server_node,
                             caf::make_message(membership_notice{n, false}));
            if (std::isfinite(c.recover)) {
              enqueue_system(self, c.recover, n, caf::make_message(recover_notice{}));
              enqueue_system(self, c.recover, server_node,
                             caf::make_message(membership_notice{n, true}));
            }
          }
        // The run starts at t = 0 for everyone: the kickoff is not a message that can be lost.
        enqueue_system(self, 0.0, server_node, caf::make_message(kickoff{}));
        for (node_id n = 0; n < s.plan.agents.size(); ++n)
          enqueue_system(self, 0.0, n, caf::make_message(kickoff{}));
        if (!s.plan.clock.wall) {
          advance(self);
          return s.finished;
        }
        s.start = std::chrono::steady_clock::now();
        s.now = 0.0;
        // Nothing is sent before the run starts; were anything, it leaves at t = 0.
        for (auto& r : s.inbox) process_send(self, r.counter, std::move(r.env));
        s.inbox.clear();
        pump(self);
        return s.finished;
      },
  };
}

}  // namespace fedsim::actors
