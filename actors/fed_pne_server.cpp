#include "actors/fed_pne_server.hpp"

#include "actors/agent_states.hpp"
#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"

#include <cmath>
#include <functional>

#include "actors/integrity.hpp"
#include "actors/logging.hpp"
#include "actors/policy/registry.hpp"

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<FedPneServerState>*;
int num_clients(const FedPneServerState& s) { return s.members->size(); }
Membership& members(FedPneServerState& s) { return *s.members; }

void send_to(self_ptr self, node_id to, caf::message payload, double delay = 0.0,
             std::uint64_t bytes = 0) {
  auto& s = self->state;
  post(self, s.box, s.shared->network, envelope{server_node, to, delay, bytes, std::move(payload)});
}

void log_event(self_ptr self, const char* kind, const phase_report& r, const char* reason) {
  auto& s = self->state;
  network_event e;
  e.time = s.now;
  e.seq = s.event_seq++;
  e.kind = kind;
  e.from = static_cast<node_id>(r.client);
  e.to = server_node;
  e.payload = "phase_report";
  e.round = static_cast<std::int32_t>(r.phase);
  e.reason = reason;
  self->send(s.shared->recorder, std::move(e));
}

/// Arms the phase's timeout or deadline (per pull of the phase) while anyone is expected.
void arm_timer(self_ptr self) {
  auto& s = self->state;
  if (!s.open || s.timer_armed || members(s).expected_count() == 0) return;
  const auto& b = s.server->broadcast();
  const double wait = s.policy->round_wait() * static_cast<double>(b.length());
  if (!(wait > 0.0) || !std::isfinite(wait)) return;
  s.timer_armed = true;
  send_to(self, server_node, caf::make_message(timer{0, static_cast<std::int32_t>(b.phase), 0}),
          wait);
}

/// Sends the current phase to every client, or (`missing_only`) again to the expected clients
/// that have not reported it.
void send_phase(self_ptr self, bool missing_only) {
  auto& s = self->state;
  const auto& b = s.server->broadcast();
  const caf::message m = caf::make_message(
      phase_message{b.phase, b.depth, shared_list<std::uint64_t>(b.indices), b.pulls_per_node});
  const std::uint64_t bytes = b.indices.size() * sizeof(std::uint64_t) + 24;
  for (int c = 0; c < num_clients(s); ++c)
    if (!missing_only || (members(s).expected(c) && !members(s).contributed(c)))
      send_to(self, static_cast<node_id>(c), m, 0.0, bytes);
}

void broadcast_phase(self_ptr self) {
  auto& s = self->state;
  send_phase(self, false);
  s.open = true;
  s.timer_armed = false;
  s.late = s.rejected = 0;
  for (int c = 0; c < num_clients(s); ++c) members(s).set_contributed(c, false);
  arm_timer(self);
}

/// Counts the phase's misses (membership.hpp).
void note_misses(FedPneServerState& s) {
  for (int m : members(s).close_round())
    logger("server")->info("t={:.3f} phase {}: client {} presumed dead", s.now,
                           s.server->broadcast().phase, m);
}

void close_phase(self_ptr self) {
  auto& s = self->state;
  const int alive = members(s).expected_count();
  note_misses(s);
  ++s.phases_closed;
  const auto& b = s.server->broadcast();
  phase_event e;
  e.phase = b.phase;
  e.time = s.now;
  e.depth = b.depth;
  e.nodes = static_cast<std::int64_t>(b.size());
  e.pulls_per_node = b.pulls_per_node;
  e.late = s.late;
  e.rejected = s.rejected;
  e.alive = alive;
  const xarmed::PhaseOutcome out = s.server->close_phase_with_reports();
  e.reporters = out.reporters;
  e.excluded = alive - out.reporters;
  e.survivors = static_cast<std::int64_t>(out.elimination.survivors);
  e.best_mean = out.global_means[out.elimination.best];
  e.confidence_width = out.confidence_width;
  self->send(s.shared->recorder, e);
  self->send(s.shared->network, checkpoint_atom::value, static_cast<std::int64_t>(s.phases_closed));
  s.open = false;
  broadcast_phase(self);
}

void check_complete(self_ptr self) {
  auto& s = self->state;
  if (!s.open) return;
  if (members(s).expected_count() == 0 && s.server->reports_received() == 0) return;  // idle
  if (members(s).all_expected_contributed() && s.server->reports_received() > 0)
    close_phase(self);
}

/// Why the run could not finish, read once the network is idle ("" if nothing stopped it).
std::string unfinished_reason(const FedPneServerState& s) {
  const Membership& m = s.members.value();
  if (s.open && !s.stopped && m.expected_missing() > 0)
    return "phase " + std::to_string(s.server->broadcast().phase) + " never closed: " +
           std::to_string(m.expected_missing()) +
           " client(s) never reported it, were never presumed dead and no timeout or deadline "
           "was pending (an infinite timeout or deadline without crash detection)";
  if (s.phases_closed == 0 && m.done_count() == 0)
    return "no phase ever closed and no client finished";
  return "";
}

/// The server's checkpoint fields (the tree, schedule and policy are rebuilt from the scenario;
/// `dead_after_missed` is the scenario's, for the check of a restored state).
template <class Archive>
void server_fields(Archive& a, FedPneServerState& s, int dead_after_missed) {
  xarmed::FedPneServer::Snapshot engine = s.server->snapshot();
  a(engine.broadcast.phase, engine.broadcast.depth, engine.broadcast.indices,
    engine.broadcast.pulls_per_node, engine.means, engine.received, *s.members, s.phases_closed,
    s.open, s.stopped, s.timer_armed, s.late, s.rejected, s.event_seq, s.now);
  if constexpr (Archive::loading) {
    const std::string wrong = check_fed_pne_server_state(s, engine, dead_after_missed);
    if (!wrong.empty()) throw std::runtime_error(wrong);
    s.server->restore(engine);
  }
}

}  // namespace

std::string check_fed_pne_server_delivery(const caf::message& payload) {
  if (payload.match_elements<phase_report>() || payload.match_elements<kickoff>() ||
      payload.match_elements<timer>() || payload.match_elements<agent_done>() ||
      payload.match_elements<membership_notice>())
    return {};
  return "a payload the server cannot take";
}

std::string check_fed_pne_server_state(const FedPneServerState& s,
                                       const xarmed::FedPneServer::Snapshot& engine,
                                       int dead_after_missed) {
  const int M = s.shared->problem->clients();
  if (s.phases_closed < 0 || s.late < 0 || s.rejected < 0)
    return "phases closed " + std::to_string(s.phases_closed) + ", late " + std::to_string(s.late) +
           ", rejected " + std::to_string(s.rejected) + ": counts < 0";
  if (!(s.now >= 0.0 && std::isfinite(s.now))) return "clock " + std::to_string(s.now) + " is not finite and >= 0";
  if (s.stopped && s.open) return "stopped, yet a phase is open";
  const std::string phase = check_phase_broadcast(engine.broadcast, *s.shared->tree, false);
  if (!phase.empty()) return phase;
  // Phase p is open after p - 1 closed; closing it prepares phase p + 1.
  if (engine.broadcast.phase != std::int64_t{s.phases_closed} + 1)
    return "phase " + std::to_string(engine.broadcast.phase) + " after " +
           std::to_string(s.phases_closed) + " closed";
  const auto clients = static_cast<std::size_t>(M);
  if (engine.means.size() != clients || engine.received.size() != clients)
    return "means of " + std::to_string(engine.means.size()) + " clients, the scenario has " +
           std::to_string(M);
  const std::string members = s.members->check(M, dead_after_missed);
  if (!members.empty()) return members;
  for (int m = 0; m < M; ++m) {
    if (engine.received[m] != s.members->contributed(m))
      return "client " + std::to_string(m) + ": its report disagrees with its contribution flag";
    if (!engine.received[m]) continue;
    if (engine.means[m].size() != engine.broadcast.size())
      return "client " + std::to_string(m) + ": means of " + std::to_string(engine.means[m].size()) +
             " nodes, the phase has " + std::to_string(engine.broadcast.size());
    for (double v : engine.means[m])
      if (!std::isfinite(v)) return "client " + std::to_string(m) + ": a mean that is not finite";
  }
  return {};
}

namespace {

/// Handles a delivery with `body` (unless stopped) and answers it with what body sent
/// (actors/outbox.hpp).
template <class Body>
caf::result<caf::ok_atom> handle(self_ptr self, double now, Body body) {
  auto& s = self->state;
  s.now = now;
  return answer_delivery(self, s.box, s.shared->network, [self, &body] {
    if (!self->state.stopped) body();
  });
}

}  // namespace

caf::behavior fed_pne_server_actor(caf::stateful_actor<FedPneServerState>* self,
                                   std::shared_ptr<const FedPneShared> shared,
                                   scenario::PolicyConfig policy) {
  fail_loudly(self, "server");
  auto& s = self->state;
  s.shared = std::move(shared);
  s.policy = policy::make_round_policy(policy);
  const int M = s.shared->problem->clients();
  s.server.emplace(*s.shared->tree, s.shared->config.params, M, s.shared->config.budget);
  s.members.emplace(M, policy.dead_after_missed);
  if (s.shared->log_states) report_presumptions(self);
  return {
      // A phase report first: CAF 0.17 tries the handlers in order (actors/network.cpp).
      [self](const phase_report& r, virtual_time vt) {
        return handle(self, vt.seconds, [self, &r] {
          auto& s = self->state;
          if (!intact(r)) {  // first: a corrupted report must not reach the engine's server
            ++s.rejected;
            return log_event(self, "reject", r, "corrupted");
          }
          const auto status =
              s.server->receive(xarmed::ClientReport{r.client, r.phase, r.means, r.pulls});
          if (status == xarmed::ReportStatus::wrong_phase && r.phase < s.server->broadcast().phase &&
              r.phase > 0) {
            ++s.late;  // a straggler's means for a phase already closed
            log_event(self, "late", r, "");
          } else if (status == xarmed::ReportStatus::duplicate) {
            // a duplicated delivery: already counted
          } else if (status != xarmed::ReportStatus::accepted) {
            ++s.rejected;
            log_event(self, "reject", r, "malformed report");
            return;
          }
          if (r.client >= 0 && r.client < num_clients(s)) {
            // It is alive after all: its count of missed phases starts again (else the next
            // timeout would presume it dead at once and skip it when resending the phase).
            members(s).heard_from(r.client);
            if (status == xarmed::ReportStatus::accepted) members(s).set_contributed(r.client, true);
          }
          arm_timer(self);
          check_complete(self);
        });
      },
      [self](const kickoff&, virtual_time vt) {
        return handle(self, vt.seconds, [self] { broadcast_phase(self); });
      },
      [self](const timer& tm, virtual_time vt) {
        return handle(self, vt.seconds, [self, tm] {
          auto& s = self->state;
          if (!s.open || tm.round != s.server->broadcast().phase) return;
          s.timer_armed = false;
          if (s.server->reports_received() > 0) return close_phase(self);
          // Nobody reported: send the phase again to those expected, then count this timeout's
          // misses and wait longer while anyone is expected. A client whose copy was lost waits
          // for the next broadcast, and the last phase (cut by the budget, never reported) has
          // none: without this a lost copy of it leaves the client short of its budget. The
          // resend comes first so that a client presumed dead by this very timeout still gets
          // it. Clients ignore a phase they have.
          send_phase(self, true);
          note_misses(s);
          arm_timer(self);
        });
      },
      [self](const agent_done& d, virtual_time vt) {
        return handle(self, vt.seconds, [self, d] {
          auto& s = self->state;
          if (members(s).valid(d.agent)) members(s).mark_done(static_cast<int>(d.agent));
          if (members(s).expected_count() == 0 && s.server->reports_received() == 0) {
            if (members(s).done_count() == num_clients(s)) s.stopped = true;
            return;
          }
          check_complete(self);
        });
      },
      [self](const membership_notice& m, virtual_time vt) {
        return handle(self, vt.seconds, [self, m] {
          auto& s = self->state;
          if (members(s).valid(m.agent)) members(s).notice(static_cast<int>(m.agent), m.alive);
          arm_timer(self);
          check_complete(self);
        });
      },
      [self](caf::get_atom) { return unfinished_reason(self->state); },
      [self](save_atom) {
        return save_state(self->context(),
                          [self](auto& a) { server_fields(a, self->state, 0); });
      },
      [self, dead_after = policy.dead_after_missed](restore_atom, const std::vector<char>& bytes) {
        return restore_state(self->context(), bytes, "server",
                             [self, dead_after](auto& a) { server_fields(a, self->state, dead_after); });
      },
  };
}

}  // namespace fedsim::actors
