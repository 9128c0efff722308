#include "actors/agent.hpp"

#include <cmath>
#include <limits>

#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"
#include "engine/fbo/algorithm_traits.hpp"
#include "engine/fbo/streams.hpp"
#include "actors/integrity.hpp"
#include "actors/logging.hpp"

namespace fedsim::fbo {
/// A pending query as checkpoint fields.
template <class Archive>
void fields(Archive& a, Choice& c) {
  a(c.index, c.branch, c.source);
}
}  // namespace fedsim::fbo

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<AgentActorState>*;

void send_to(self_ptr self, node_id to, caf::message payload, std::uint64_t bytes = 0) {
  auto& s = self->state;
  self->send(s.shared->network, envelope{s.id, to, 0.0, bytes, std::move(payload)});
}

bool is_peer(const AgentActorState& s) {
  return static_cast<int>(s.id) >= s.shared->config.learners();
}

/// FTS: the pool of relayed vectors viewing the broadcast pool_source holds.
void reset_pool(AgentActorState& s) {
  const broadcast& b = *s.pool_source;
  std::vector<const double*> inbox(s.shared->config.agents, nullptr);
  for (size_t k = 0; k < b.sources.size(); ++k)
    inbox[b.sources[k]] = b.joint.begin() + k * b.rows;
  s.pool = fbo::FtsMessagePool(s.shared->config.fts_one_shot);
  s.pool.reset(inbox, b.rows, static_cast<int>(s.id));
}

void start_iteration(self_ptr self) {
  auto& s = self->state;
  const auto& cfg = s.shared->config;
  const int t = s.iteration + 1;
  const broadcast* b = s.latest ? &*s.latest : nullptr;
  const fbo::ServerKind server = fbo::traits(cfg.algorithm).server;
  fbo::ServerInput input;
  // FTS's relayed messages. One-shot: the first broadcast's only; otherwise the newest set.
  if (server == fbo::ServerKind::relay) {
    if (b && b->released && b->round > s.used_round && (!cfg.fts_one_shot || s.used_round < 0)) {
      // Views of the shared broadcast buffer, which pool_source keeps alive: no copies.
      s.pool_source = *b;
      reset_pool(s);
    }
    input.pool = &s.pool;
  }
  // DE's omega^joint: a view of the shared broadcast buffer, no copy per agent and iteration.
  std::optional<Eigen::Ref<const Eigen::MatrixXd>> joint;
  if (server == fbo::ServerKind::de && b && b->released) {
    joint.emplace(Eigen::Map<const Eigen::MatrixXd>(b->joint.begin(), b->rows, b->cols));
    input.joint = &*joint;
  }
  const fbo::Choice c = fbo::choose_query(s.shared->step, *s.agent, static_cast<int>(s.id), t, input);
  if (b) s.used_round = b->round;
  s.pending.assign(1, c);
  s.pending_report_round = s.used_round + 1;
  s.busy = true;
  send_to(self, s.id, caf::make_message(timer{0, s.pending_report_round, 1}));
}

void maybe_continue(self_ptr self) {
  auto& s = self->state;
  // A peer never queries (one that crashed before sending its message sends nothing).
  if (!s.started || s.busy || !s.alive || s.done || is_peer(s)) return;
  const bool alone = !fbo::traits(s.shared->config.algorithm).sends_messages;
  if (alone || !s.shared->wait_for_broadcast ||
      (s.latest && s.latest->round >= s.pending_report_round))
    start_iteration(self);
}

/// The agent has nothing left to do: it tells the server, which stops expecting it.
void finish_run(self_ptr self) {
  self->state.done = true;
  send_to(self, server_node, caf::make_message(agent_done{self->state.id}));
}

void finish_evaluations(self_ptr self, double now) {
  auto& s = self->state;
  const auto& cfg = s.shared->config;
  const FederatedObjective& objective = *s.shared->objective;
  constexpr double absent = std::numeric_limits<double>::quiet_NaN();
  const bool initial = s.pending.front().branch == fbo::Branch::init;
  const bool peer = is_peer(s);
  const int n = static_cast<int>(s.pending.size());
  if (static_cast<std::int64_t>(s.id) == s.shared->fail_agent)
    throw std::runtime_error("injected failure (FEDSIM_DEBUG_FAIL_AGENT)");
  for (int k = 0; k < n; ++k) {
    const fbo::Choice& c = s.pending[k];
    const int iteration = initial ? k - n + 1 : s.iteration + 1;
    const fbo::Evaluation e =
        fbo::evaluate(*s.agent, objective, static_cast<int>(s.id), iteration, c.index, *s.noise);
    s.history.emplace_back(c.index, e.y);
    const double fx = e.f.value_or(absent), y = e.y;
    if (peer) continue;  // a peer's history, not a query of the run: not recorded
    // Once an f is unknown the best is too: no regret without every f (NaN stays NaN).
    s.best = !s.has_best || std::isnan(fx) || std::isnan(s.best) ? fx : std::max(s.best, fx);
    s.has_best = true;
    self->send(s.shared->recorder,
               observation_event{static_cast<std::int32_t>(s.id), iteration, c.index, now,
                                 s.shared->context->grid.points(c.index, 0), y, fx,
                                 objective.optimum(static_cast<int>(s.id)).value_or(absent) - s.best,
                                 static_cast<std::int32_t>(c.branch), c.source});
  }
  if (!initial) ++s.iteration;
  s.pending.clear();
  s.busy = false;
  if (s.iteration >= cfg.iterations) return finish_run(self);
  if (fbo::traits(cfg.algorithm).sends_messages) {
    const Eigen::VectorXd omega =
        fbo::sample_message(*s.agent, cfg.seed, static_cast<int>(s.id), s.iteration);
    report r{s.pending_report_round, s.id, std::vector<double>(omega.data(), omega.data() + omega.size())};
    seal(r);
    send_to(self, server_node, caf::make_message(std::move(r)),
            static_cast<std::uint64_t>(omega.size()) * sizeof(double) + 16);
  }
  if (peer) {  // a peer sends its one message (the server expects it in round 0 only)
    s.done = true;
    if (!fbo::traits(cfg.algorithm).sends_messages) finish_run(self);  // no message to overtake
    return;
  }
  maybe_continue(self);
}

/// Round 0: the initial design, on the kickoff; an agent down at t = 0 starts when it
/// recovers (or on the first broadcast it gets).
void start_initial_design(self_ptr self) {
  auto& s = self->state;
  if (s.started || !s.alive) return;
  s.started = true;
  const auto& cfg = s.shared->config;
  const bool in_region = cfg.explore_own_region && s.shared->context->partition.size() > 1;
  // A peer's t_n observations are its history from before the run: no compute time charged.
  const bool peer = is_peer(s);
  s.pending.clear();
  for (int idx : fbo::initial_design(*s.agent, peer ? cfg.peer_observations : cfg.n_init,
                                     in_region, cfg.seed, static_cast<int>(s.id)))
    s.pending.push_back({idx, fbo::Branch::init, -1});
  s.pending_report_round = 0;
  s.busy = true;
  send_to(self, s.id, caf::make_message(timer{0, 0, peer ? 0 : cfg.n_init}));
}

void reset_agent(self_ptr self) {
  auto& s = self->state;
  const int P = s.shared->context->partition.size();
  s.agent.emplace(static_cast<int>(s.id), static_cast<int>(s.id) % P, s.shared->context);
  s.history.clear();
}

/// The agent's checkpoint fields, for both directions (actors/checkpoint/state_archive.hpp).
/// Loading rebuilds what is derived: the engine agent from its history, the FTS pool from the
/// broadcast it views.
template <class Archive>
void agent_fields(Archive& a, self_ptr self) {
  auto& s = self->state;
  RandomStream::State noise = s.noise->state();
  std::vector<double> pool_weights = s.pool.weights();
  double pool_total = s.pool.total();
  a(noise, s.best, s.has_best, s.iteration, s.started, s.busy, s.alive, s.done, s.pending,
    s.pending_report_round, s.used_round, s.latest, s.pool_source, pool_weights, pool_total,
    s.history);
  if constexpr (Archive::loading) {
    s.noise = RandomStream::from_state(noise);
    auto history = std::move(s.history);
    reset_agent(self);  // clears s.history
    for (const auto& [index, y] : history) s.agent->observe(index, y);
    s.history = std::move(history);
    if (s.pool_source) {
      reset_pool(s);
      s.pool.restore_weights(std::move(pool_weights), pool_total);
    }
  }
}

}  // namespace

caf::behavior agent_actor(caf::stateful_actor<AgentActorState>* self, node_id id,
                          std::shared_ptr<const AgentShared> shared) {
  fail_loudly(self, "agent " + std::to_string(id));
  auto& s = self->state;
  s.id = id;
  s.shared = std::move(shared);
  s.noise.emplace(s.shared->config.seed, fbo::streams::agent_noise, id);
  reset_agent(self);
  return {
      [self](kickoff, virtual_time) {
        start_initial_design(self);
        return caf::ok_atom_v;
      },
      [self](const timer& tm, virtual_time vt) {
        auto& s = self->state;
        if (s.alive && s.busy && tm.round == s.pending_report_round) finish_evaluations(self, vt.seconds);
        return caf::ok_atom_v;
      },
      // Payloads are shared by every recipient: handlers take them by const reference.
      [self](const broadcast& b, virtual_time) {
        auto& s = self->state;
        if (!s.latest || b.round > s.latest->round) s.latest = b;
        start_initial_design(self);  // no-op once started
        maybe_continue(self);
        return caf::ok_atom_v;
      },
      [self](const crash_notice& c, virtual_time vt) {
        auto& s = self->state;
        logger("agent")->debug("t={:.3f} agent {} crashes ({})", vt.seconds, s.id,
                               c.keep_state ? "state kept" : "state lost");
        s.alive = false;
        s.busy = false;  // evaluations in flight are lost with the crash
        s.pending.clear();
        if (!c.keep_state) reset_agent(self);
        return caf::ok_atom_v;
      },
      [self](recover_notice, virtual_time vt) {
        logger("agent")->debug("t={:.3f} agent {} recovers", vt.seconds, self->state.id);
        self->state.alive = true;
        start_initial_design(self);  // no-op once started
        maybe_continue(self);
        return caf::ok_atom_v;
      },
      [self](save_atom) {
        return save_state(self->context(), [self](auto& a) { agent_fields(a, self); });
      },
      [self](restore_atom, const std::vector<char>& bytes) {
        load_state(self->context(), bytes, "agent " + std::to_string(self->state.id),
                   [self](auto& a) { agent_fields(a, self); });
        return caf::ok_atom_v;
      },
  };
}

}  // namespace fedsim::actors
