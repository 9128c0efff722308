#include "actors/fed_pne_client.hpp"

#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"

#include <algorithm>
#include <utility>

#include "actors/integrity.hpp"

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<FedPneClientState>*;

void send_to(self_ptr self, node_id to, caf::message payload, std::uint64_t bytes = 0) {
  auto& s = self->state;
  post(self, s.box, s.shared->network, envelope{s.id, to, 0.0, bytes, std::move(payload)});
}

xarmed::PhaseBroadcast to_engine(const phase_message& m) {
  return {m.phase, m.depth, m.indices.to_vector(), m.pulls_per_node};
}

void finish_phase(self_ptr self, double now);

/// Starts the newest phase's pulls if idle; the timer charges their compute time, and one that
/// costs nothing, sent while the delivery being handled gives leave (virtual_time::settle), is
/// settled at once: the phase finishes now, as it would on its delivery.
void maybe_start(self_ptr self) {
  auto& s = self->state;
  if (s.busy || !s.alive || s.done || !s.latest || s.latest->phase <= s.started_phase) return;
  const xarmed::PhaseBroadcast b = to_engine(*s.latest);
  const std::int64_t steps = std::min(b.length(), s.shared->config.budget - s.steps_done);
  s.started_phase = b.phase;
  s.working_steps = steps;
  s.working_regret = xarmed::run_client_phase(*s.client, b, steps, *s.shared->problem,
                                              s.shared->config.problem.seed);
  s.busy = true;
  if (post_timer(self, s.box, s.shared->network,
                 envelope{s.id, s.id, 0.0, 0,
                          caf::make_message(timer{0, static_cast<std::int32_t>(b.phase),
                                                  static_cast<std::int32_t>(steps)})}))
    finish_phase(self, *s.box.settle_at);
}

/// Handles a delivery stamped `vt` with `body` and answers it with what body sent
/// (actors/outbox.hpp).
template <class Body>
caf::result<caf::ok_atom> delivery(self_ptr self, virtual_time vt, Body&& body) {
  auto& s = self->state;
  return answer_delivery(self, s.box, s.shared->network, vt, std::forward<Body>(body));
}

void send_report(self_ptr self) {
  const phase_report& r = *self->state.last_report;
  send_to(self, server_node, caf::make_message(r),
          r.means.size() * (sizeof(double) + sizeof(std::int64_t)) + 16);
}

void finish_phase(self_ptr self, double now) {
  auto& s = self->state;
  if (static_cast<std::int64_t>(s.id) == s.shared->fail_agent)
    throw std::runtime_error("injected failure (FEDSIM_DEBUG_FAIL_AGENT)");
  s.busy = false;
  s.steps_done += s.working_steps;
  s.regret += s.working_regret;
  self->send(s.shared->recorder, pull_event{static_cast<std::int32_t>(s.id), s.started_phase,
                                            s.steps_done, now, s.regret});
  if (s.client->phase_done()) {  // a phase cut short by the budget is never reported
    xarmed::ClientReport r = s.client->report();
    s.last_report = phase_report{r.client, r.phase, std::move(r.means), std::move(r.pulls)};
    seal(*s.last_report);
    send_report(self);
  }
  if (s.steps_done >= s.shared->config.budget) {
    s.done = true;
    send_to(self, server_node, caf::make_message(agent_done{s.id}));
    return;
  }
  maybe_start(self);
}

/// The client's checkpoint fields (its tree and problem are rebuilt from the scenario).
template <class Archive>
void client_fields(Archive& a, FedPneClientState& s) {
  xarmed::FedPneClient::Snapshot engine = s.client->snapshot();
  a(engine.broadcast.phase, engine.broadcast.depth, engine.broadcast.indices,
    engine.broadcast.pulls_per_node, engine.done, engine.sums, engine.counts, engine.point,
    engine.pending, s.latest, s.last_report, s.started_phase, s.steps_done, s.working_steps,
    s.working_regret, s.regret, s.busy, s.alive, s.done);
  if constexpr (Archive::loading) {
    s.client.emplace(static_cast<int>(s.id), *s.shared->tree, s.shared->config.point,
                     s.shared->dp_noise_std);
    s.client->restore(engine);
  }
}

}  // namespace

caf::behavior fed_pne_client_actor(caf::stateful_actor<FedPneClientState>* self, node_id id,
                                   std::shared_ptr<const FedPneShared> shared) {
  fail_loudly(self, "client " + std::to_string(id));
  auto& s = self->state;
  s.id = id;
  s.shared = std::move(shared);
  s.client.emplace(static_cast<int>(id), *s.shared->tree, s.shared->config.point,
                   s.shared->dp_noise_std);
  return {
      // A phase first: CAF 0.17 tries the handlers in order (actors/network.cpp).
      [self](const phase_message& m, virtual_time vt) {
        return delivery(self, vt, [self, &m] {
          auto& s = self->state;
          if (!s.latest || m.phase > s.latest->phase) s.latest = m;
          if (s.alive && s.last_report && m.phase == s.last_report->phase) send_report(self);
          maybe_start(self);
        });
      },
      [self](const kickoff&, virtual_time vt) { return delivery(self, vt, [] {}); },
      [self](const timer& tm, virtual_time vt) {
        return delivery(self, vt, [self, &tm, vt] {
          auto& s = self->state;
          if (s.alive && s.busy && tm.round == s.started_phase) finish_phase(self, vt.seconds);
        });
      },
      [self](const crash_notice& c, virtual_time vt) {
        return delivery(self, vt, [self, &c] {
          auto& s = self->state;
          s.alive = false;
          s.busy = false;  // the phase in flight is lost with the crash
          if (!c.keep_state) {
            s.client.emplace(static_cast<int>(s.id), *s.shared->tree, s.shared->config.point,
                             s.shared->dp_noise_std);
            s.last_report.reset();
          }
        });
      },
      [self](recover_notice, virtual_time vt) {
        return delivery(self, vt, [self] {
          self->state.alive = true;
          maybe_start(self);
        });
      },
      [self](save_atom) {
        return save_state(self->context(), [self](auto& a) { client_fields(a, self->state); });
      },
      [self](restore_atom, const std::vector<char>& bytes) {
        load_state(self->context(), bytes, "client " + std::to_string(self->state.id),
                   [self](auto& a) { client_fields(a, self->state); });
        return caf::ok_atom_v;
      },
  };
}

}  // namespace fedsim::actors
