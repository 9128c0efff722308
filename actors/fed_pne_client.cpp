#include "actors/fed_pne_client.hpp"

#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
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
  pull_event pulled;
  pulled.client = static_cast<std::int32_t>(s.id);
  pulled.phase = s.started_phase;
  pulled.steps = s.steps_done;
  pulled.time = now;
  pulled.cumulative_regret = s.regret;
  self->send(s.shared->recorder, pulled);
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

}  // namespace

std::string check_phase_broadcast(const xarmed::PhaseBroadcast& b, const xarmed::PartitionTree& tree,
                                  bool none_allowed) {
  if (none_allowed && b.phase == 0 && b.depth == 0 && b.indices.empty() && b.pulls_per_node == 0)
    return {};
  if (b.phase < 1 || b.depth < 0 || b.depth > tree.max_depth() || b.pulls_per_node < 1 ||
      b.indices.empty() ||
      b.pulls_per_node > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(b.size()))
    return "phase " + std::to_string(b.phase) + " at depth " + std::to_string(b.depth) + " of " +
           std::to_string(b.indices.size()) + " nodes, " + std::to_string(b.pulls_per_node) +
           " pulls each (phase >= 1, depth <= " + std::to_string(tree.max_depth()) + ", pulls >= 1)";
  for (std::size_t j = 0; j < b.size(); ++j) {
    if (j > 0 && b.indices[j] <= b.indices[j - 1]) return "a phase whose nodes are not ascending";
    try {
      tree.cell(b.node(j));
    } catch (const std::out_of_range&) {
      return "a phase naming node " + std::to_string(b.indices[j]) + " outside depth " +
             std::to_string(b.depth) + " of the tree";
    }
  }
  return {};
}

std::string check_client_delivery(const caf::message& payload, const xarmed::PartitionTree& tree) {
  if (payload.match_elements<phase_message>()) {
    const phase_message& m = payload.get_as<phase_message>(0);
    return check_phase_broadcast(to_engine(m), tree, false);
  }
  if (payload.match_elements<kickoff>() || payload.match_elements<timer>() ||
      payload.match_elements<crash_notice>() || payload.match_elements<recover_notice>())
    return {};
  return "a payload a client cannot take";
}

std::string check_fed_pne_client_state(const FedPneClientState& s,
                                       const xarmed::FedPneClient::Snapshot& engine) {
  const std::int64_t budget = s.shared->config.budget;
  const auto& tree = *s.shared->tree;
  if (s.steps_done < 0 || s.working_steps < 0 || s.steps_done > budget ||
      s.working_steps > budget - s.steps_done)
    return "pulls done " + std::to_string(s.steps_done) + " and in flight " +
           std::to_string(s.working_steps) + " out of the budget " + std::to_string(budget);
  if (!std::isfinite(s.regret) || !std::isfinite(s.working_regret)) return "a regret that is not finite";
  // The engine's phase is the one started, or none since a crash that lost the client's state.
  if (s.started_phase < 0 || (engine.broadcast.phase != s.started_phase && engine.broadcast.phase != 0))
    return "phase started " + std::to_string(s.started_phase) + ", its engine's phase " +
           std::to_string(engine.broadcast.phase);
  if (s.busy && s.started_phase < 1) return "busy without a phase";
  if (s.done && s.steps_done < budget) return "done before its budget";
  std::string wrong = check_phase_broadcast(engine.broadcast, tree, true);
  if (!wrong.empty()) return wrong;
  if (s.latest) {
    xarmed::PhaseBroadcast latest{s.latest->phase, s.latest->depth, s.latest->indices.to_vector(),
                                  s.latest->pulls_per_node};
    wrong = check_phase_broadcast(latest, tree, false);
    if (!wrong.empty()) return "newest " + wrong;
    if (s.latest->phase < s.started_phase) return "a phase started after the newest it has";
  } else if (s.started_phase != 0) {
    return "a phase started without a phase message";
  }
  const std::size_t nodes = engine.broadcast.size();
  if (engine.sums.size() != nodes || engine.counts.size() != nodes)
    return "sums and counts of " + std::to_string(engine.sums.size()) + " and " +
           std::to_string(engine.counts.size()) + " nodes, its phase has " + std::to_string(nodes);
  std::int64_t pulls = 0;
  for (std::size_t j = 0; j < nodes; ++j) {
    if (!std::isfinite(engine.sums[j]) || engine.counts[j] < 0 ||
        engine.counts[j] > engine.broadcast.pulls_per_node || engine.counts[j] > budget)
      return "a node's sum or count out of range";
    pulls += engine.counts[j];  // <= budget before, so no overflow
    if (pulls > budget) return "more pulls in its phase than its budget";
  }
  if (engine.done != pulls || engine.done < 0) return "pulls done disagree with the counts";
  if (engine.pending) return "a pull pending at a quiet moment";
  if (engine.point.size() != 0 &&
      static_cast<int>(engine.point.size()) != tree.dim())
    return "a point of dimension " + std::to_string(engine.point.size());
  for (double x : engine.point)
    if (!std::isfinite(x)) return "a point that is not finite";
  if (s.last_report) {
    const phase_report& r = *s.last_report;
    if (r.client != static_cast<std::int32_t>(s.id) || r.phase < 1 || r.phase > s.started_phase ||
        r.means.size() != r.pulls.size() || r.means.empty())
      return "a last report that is not its own phase's";
  }
  return {};
}

namespace {

/// The client's checkpoint fields (its tree and problem are rebuilt from the scenario).
template <class Archive>
void client_fields(Archive& a, FedPneClientState& s) {
  xarmed::FedPneClient::Snapshot engine = s.client->snapshot();
  a(engine.broadcast.phase, engine.broadcast.depth, engine.broadcast.indices,
    engine.broadcast.pulls_per_node, engine.done, engine.sums, engine.counts, engine.point,
    engine.pending, s.latest, s.last_report, s.started_phase, s.steps_done, s.working_steps,
    s.working_regret, s.regret, s.busy, s.alive, s.done);
  if constexpr (Archive::loading) {
    const std::string wrong = check_fed_pne_client_state(s, engine);
    if (!wrong.empty()) throw std::runtime_error(wrong);
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
        return restore_state(self->context(), bytes, "client " + std::to_string(self->state.id),
                             [self](auto& a) { client_fields(a, self->state); });
      },
  };
}

}  // namespace fedsim::actors
