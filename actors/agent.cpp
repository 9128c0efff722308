#include "actors/agent.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/checkpoint/state_archive.hpp"
#include "actors/decimal.hpp"
#include "actors/failure.hpp"
#include "engine/fbo/algorithm_traits.hpp"
#include "engine/fbo/streams.hpp"
#include "actors/integrity.hpp"
#include "actors/logging.hpp"
#include "actors/run_keys.hpp"

namespace fedsim::fbo {
/// Checkpoint fields of a point and of a query's choice.
template <class Archive>
void fields(Archive& a, Point& p) {
  a(p.index, p.x);
}
template <class Archive>
void fields(Archive& a, Choice& c) {
  a(c.point, c.branch, c.source);
}
}  // namespace fedsim::fbo

namespace fedsim::actors {
template <class Archive>
void fields(Archive& a, PendingQuery& q) {
  a(q.choice, q.iteration, q.answered, q.failed, q.y, q.f, q.cost, q.wall_seconds, q.attempts,
    q.failure);
}
}  // namespace fedsim::actors

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<AgentActorState>*;

/// FEDSIM_DEBUG_PLANT_RACE set: every agent counts the broadcasts it handles in one counter of
/// the process, unguarded, and a watcher thread started by the first reads it now and then with
/// no lock: each later count, in an agent's handler on one of CAF's worker threads, races with
/// those reads. (The network orders the agents' deliveries, so agents alone would not race in
/// virtual time, and two runs' agents in a sweep meet at global locks too often to race
/// reliably.) CI's ThreadSanitizer job must report it: tools/tsan.supp may not hide actor
/// handlers (tests/tools/sanitizer_cli_test.cpp).
[[gnu::noinline]] void planted_race_for_sanitizer_test() {
  static volatile long handled = 0;
  static std::once_flag watcher;
  std::call_once(watcher, [] {
    std::thread([] {
      for (;;) {
        [[maybe_unused]] const long seen = handled;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }).detach();
  });
  handled = handled + 1;
}
bool race_planted() {
  static const bool planted = std::getenv("FEDSIM_DEBUG_PLANT_RACE") != nullptr;
  return planted;
}

void send_to(self_ptr self, node_id to, caf::message payload, std::uint64_t bytes = 0,
             double delay = 0.0) {
  auto& s = self->state;
  post(self, s.box, s.shared->network, envelope{s.id, to, delay, bytes, std::move(payload)});
}

constexpr double absent = std::numeric_limits<double>::quiet_NaN();

bool is_peer(const AgentActorState& s) {
  return static_cast<int>(s.id) >= s.shared->config.learners();
}

/// FTS: the pool of relayed vectors viewing the broadcast pool_source holds.
void reset_pool(AgentActorState& s) {
  const broadcast& b = *s.pool_source;
  // As fedsim's server sends them: one M-vector per source, each source an agent id.
  const int agents = s.shared->config.agents;
  const bool shaped = b.rows == s.shared->config.features &&
                      b.joint.size() == b.sources.size() * static_cast<std::size_t>(b.rows) &&
                      std::all_of(b.sources.begin(), b.sources.end(),
                                  [agents](std::int32_t n) { return n >= 0 && n < agents; });
  if (!shaped)
    throw std::runtime_error("the relayed messages of round " + std::to_string(b.round) +
                             " are not one M = " + std::to_string(s.shared->config.features) +
                             " vector per source agent id in 0.." + std::to_string(agents - 1));
  // The pool refuses sources out of ascending order (its draws go in agent order).
  s.pool = fbo::FtsMessagePool(s.shared->config.fts_one_shot);
  s.pool.reset(b.joint.begin(), b.sources.begin(), b.sources.size(), b.rows,
               static_cast<int>(s.id));
}

void finish_evaluations(self_ptr self, double now);

/// Every answer of the batch is in: the network charges its compute time (the objective's
/// cost where given, else the link's compute model per evaluation) and then fires the timer;
/// held replies go after the timer, so the network has it queued when it goes on. A timer that
/// costs nothing, sent while the delivery being handled gives leave (virtual_time::settle), is
/// settled at once: the evaluations finish now, as they would on its delivery.
void charge_compute_time(self_ptr self) {
  auto& s = self->state;
  double cost = 0.0;
  std::int32_t modelled = 0;
  const bool peer_history = is_peer(s) && s.pending.front().choice.branch == fbo::Branch::init;
  for (const PendingQuery& q : s.pending) {
    if (peer_history) continue;  // a peer's history is from before the run: no compute time
    if (std::isnan(q.cost)) ++modelled;
    else cost += q.cost;
  }
  if (post_timer(self, s.box, s.shared->network,
                 envelope{s.id, s.id, cost, 0,
                          caf::make_message(timer{0, s.pending_report_round, modelled})}))
    return finish_evaluations(self, *s.box.settle_at);  // (nothing held: settled in a delivery)
  for (auto& p : s.held) p.deliver(caf::ok_atom_v);
  s.held.clear();
}

void record_answer(PendingQuery& q, const Answer& a, double wall_seconds, int attempts) {
  q.answered = true;
  q.y = a.y;
  q.f = a.f.value_or(absent);
  q.cost = a.cost.value_or(absent);
  q.wall_seconds = wall_seconds;
  q.attempts = attempts;
}

/// FEDSIM_DEBUG_OOM_AGENT: takes memory in 1 MiB blocks until the allocator refuses, and
/// keeps it (as a real out-of-memory leaves the memory taken). Meant for an address-space limit
/// (ulimit -v): one byte of each block is touched, not the whole block.
[[noreturn]] void exhaust_memory() {
  static std::vector<std::unique_ptr<char[]>> taken;
  taken.reserve(std::size_t{1} << 20);
  for (;;) {
    taken.emplace_back(new char[std::size_t{1} << 20]);
    taken.back()[0] = 1;
  }
}

/// The breaker: counts an outcome and, when failures go on, stops the run (close_atom to the
/// network, once, with the line `fedsim run` prints). Returns whether failures go on.
bool failures_stop_run(self_ptr self, const PendingQuery& q) {
  auto& s = self->state;
  const AgentShared& sh = *s.shared;
  ++s.evaluations;
  if (!q.failed) {
    s.failures_in_row = 0;
    return false;
  }
  ++s.failures;
  ++s.failures_in_row;
  std::string why;
  if (sh.max_consecutive_failures > 0 && s.failures_in_row >= sh.max_consecutive_failures)
    why = std::to_string(s.failures_in_row) + " evaluations in a row failed (run." +
          run_keys::max_consecutive_failures + " = " +
          std::to_string(sh.max_consecutive_failures) + ")";
  else if (s.evaluations >= sh.failure_rate_after &&
           static_cast<double>(s.failures) > sh.max_failure_rate * static_cast<double>(s.evaluations)) {
    why = std::to_string(s.failures) + " of " + std::to_string(s.evaluations) +
          " evaluations failed (run." + run_keys::max_failure_rate + " = ";
    append_g10(why, sh.max_failure_rate);
    why += ")";
  } else {
    return false;
  }
  if (s.halted) return true;  // said once
  s.halted = true;
  self->send(sh.network, caf::close_atom_v,
             "agent " + std::to_string(s.id) + ": " + why + "; the last: " + q.failure +
                 (sh.failure_hint.empty() ? "" : "; " + sh.failure_hint));
  return true;
}

/// Asks the objective for every query of the batch: at once for an objective evaluated here,
/// or by submitting them to one evaluated elsewhere, whose outcomes come back as
/// evaluation_result messages.
void ask_objective(self_ptr self) {
  auto& s = self->state;
  const FederatedObjective& objective = *s.shared->objective;
  s.busy = true;
  if (static_cast<std::int64_t>(s.id) == s.shared->fail_agent)
    throw std::runtime_error("injected failure (FEDSIM_DEBUG_FAIL_AGENT)");
  if (static_cast<std::int64_t>(s.id) == s.shared->oom_agent) exhaust_memory();
  const AsyncEvaluator* remote = objective.async();
  const int id = static_cast<int>(s.id);
  for (std::size_t k = 0; k < s.pending.size(); ++k) {
    PendingQuery& q = s.pending[k];
    const Query query = fbo::make_query(id, q.iteration, q.choice.point);
    if (!remote) {
      record_answer(q, objective.evaluate(query, *s.noise), absent, 1);
      continue;
    }
    caf::actor me = caf::actor_cast<caf::actor>(self);
    remote->submit(query, [me, generation = s.generation,
                           slot = static_cast<std::int32_t>(k)](EvaluationOutcome o) {
      evaluation_result r;
      r.generation = generation;
      r.slot = slot;
      r.ok = o.answer.has_value();
      if (o.answer) {
        r.y = o.answer->y;
        r.f = o.answer->f.value_or(absent);
        r.cost = o.answer->cost.value_or(absent);
      }
      r.wall_seconds = o.wall_seconds;
      r.attempts = o.attempts;
      r.failure_kind = std::move(o.failure_kind);
      r.failure_message = std::move(o.failure_message);
      r.fatal = o.fatal;
      caf::anon_send(me, std::move(r));
    });
  }
  if (!remote) charge_compute_time(self);
}

/// An external evaluation's outcome.
void on_evaluation_result(self_ptr self, const evaluation_result& r) {
  auto& s = self->state;
  if (r.generation != s.generation || !s.busy || r.slot < 0 ||
      r.slot >= static_cast<std::int32_t>(s.pending.size()) || s.pending[r.slot].answered)
    return;  // a batch abandoned by a crash
  PendingQuery& q = s.pending[r.slot];
  if (r.fatal)
    throw std::runtime_error("objective: the evaluation of iteration " +
                             std::to_string(q.iteration) + " failed and stops the run: " +
                             r.failure_kind + ": " + r.failure_message);
  if (r.ok) {
    Answer a;
    a.y = r.y;
    if (!std::isnan(r.f)) a.f = r.f;
    if (!std::isnan(r.cost)) a.cost = r.cost;
    record_answer(q, a, r.wall_seconds, r.attempts);
  } else {
    q.answered = true;
    q.failed = true;
    q.cost = absent;
    q.wall_seconds = r.wall_seconds;
    q.attempts = r.attempts;
    q.failure = r.failure_kind + ": " + r.failure_message;
  }
  // The agent goes on as before: the network ends the run (an agent in another process,
  // whose stand-in does not pass the message on, just goes on).
  failures_stop_run(self, q);
  for (const PendingQuery& p : s.pending)
    if (!p.answered) return;
  charge_compute_time(self);
}

/// Whether the answer to the current delivery is due now (true), or held while external
/// evaluations of the batch are out (false: a response promise answers it when they are in).
bool answer_now(self_ptr self) {
  auto& s = self->state;
  bool out = false;
  for (const PendingQuery& q : s.pending) out = out || !q.answered;
  if (!s.busy || !out) return true;
  s.held.push_back(self->make_response_promise());
  return false;
}

/// Handles a delivery stamped `vt` with `body`, which returns answer_now(self) or true
/// (actors/outbox.hpp).
template <class Body>
caf::result<caf::ok_atom> delivery(self_ptr self, virtual_time vt, Body&& body) {
  return answer_delivery(self, self->state.box, self->state.shared->network, vt,
                         std::forward<Body>(body));
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
    // fedsim's server always sends M x P; a server of one's own (RunOptions::server_host) may
    // not: a wrong shape fails this agent, and with it the run, instead of reading past it.
    const int regions = s.shared->context->partition.size();
    if (b->rows != cfg.features || b->cols != regions ||
        b->joint.size() != static_cast<std::size_t>(b->rows) * static_cast<std::size_t>(b->cols))
      throw std::runtime_error("the broadcast of round " + std::to_string(b->round) + " is " +
                               std::to_string(b->rows) + " x " + std::to_string(b->cols) +
                               " with " + std::to_string(b->joint.size()) +
                               " values; expected M x P = " + std::to_string(cfg.features) +
                               " x " + std::to_string(regions));
    joint.emplace(Eigen::Map<const Eigen::MatrixXd>(b->joint.begin(), b->rows, b->cols));
    input.joint = &*joint;
  }
  PendingQuery q;
  q.choice = fbo::choose_query(s.shared->step, *s.agent, static_cast<int>(s.id), t, input);
  q.iteration = t;
  if (b) s.used_round = b->round;
  s.pending.assign(1, std::move(q));
  s.pending_report_round = s.used_round + 1;
  ask_objective(self);
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
  const SearchDomain& domain = objective.domain();
  const bool initial = s.pending.front().choice.branch == fbo::Branch::init;
  const bool peer = is_peer(s);
  const int id = static_cast<int>(s.id);
  for (const PendingQuery& q : s.pending) {
    if (q.failed) {  // skipped: recorded, never observed
      network_event e;
      e.time = now;
      e.kind = "evaluation_failed";
      e.from = e.to = s.id;
      e.payload = "evaluation";
      e.round = q.iteration;
      e.reason = q.failure;
      self->send(s.shared->recorder, std::move(e));
      continue;
    }
    Answer a;
    a.y = q.y;
    if (!std::isnan(q.f)) a.f = q.f;
    const fbo::Evaluation e = fbo::observe_answer(*s.agent, id, q.choice.point, a);
    const double fx = e.f.value_or(absent), y = e.y;
    if (peer) continue;  // a peer's history, not a query of the run: not recorded
    // Once an f is unknown the best is too: no regret without every f (NaN stays NaN).
    s.best = !s.has_best || std::isnan(fx) || std::isnan(s.best) ? fx : std::max(s.best, fx);
    s.best_y = s.has_best ? std::max(s.best_y, y) : y;
    s.has_best = true;
    const Eigen::VectorXd x = domain.to_bounds(q.choice.point.x);
    observation_event o;
    o.agent = static_cast<std::int32_t>(s.id);
    o.iteration = q.iteration;
    o.index = q.choice.point.index;
    o.time = now;
    o.x.assign(x.data(), x.data() + x.size());
    o.y = y;
    o.f = fx;
    o.simple_regret = objective.optimum(id).value_or(absent) - s.best;
    o.best_y = s.best_y;
    o.branch = static_cast<std::int32_t>(q.choice.branch);
    o.source = q.choice.source;
    o.wall_seconds = q.wall_seconds;
    self->send(s.shared->recorder, std::move(o));
  }
  if (!initial) ++s.iteration;
  // An iteration's batch is one query: the initial design's room (n_init queries, 1.1 KiB at
  // 10) is given back rather than kept by every agent for the whole run.
  s.pending.clear();
  if (s.pending.capacity() > 1) s.pending.shrink_to_fit();
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
  const int count = peer ? cfg.peer_observations : cfg.n_init;
  s.pending.reserve(static_cast<std::size_t>(count));
  const std::vector<fbo::Point> design =
      fbo::initial_design(*s.agent, count, in_region, cfg.seed, static_cast<int>(s.id));
  for (int k = 0; k < count; ++k) {
    PendingQuery q;
    q.choice = {design[k], fbo::Branch::init, -1};
    q.iteration = k - count + 1;
    s.pending.push_back(std::move(q));
  }
  s.pending_report_round = 0;
  ask_objective(self);
}

void reset_agent(self_ptr self) {
  auto& s = self->state;
  const int P = s.shared->context->partition.size();
  s.agent.emplace(static_cast<int>(s.id), static_cast<int>(s.id) % P, s.shared->context);
}

/// What is wrong with a point of the agent's domain (empty if nothing).
std::string check_point(const fbo::Point& p, const fbo::AgentContext& c) {
  if (p.x.size() != c.dim() || !p.x.allFinite())
    return "a point of dimension " + std::to_string(p.x.size()) + " (the scenario's: " +
           std::to_string(c.dim()) + ") or not finite";
  if (c.discrete() ? p.index < 0 || p.index >= c.grid.size() || p.x != c.grid.points.row(p.index).transpose()
                   : p.index != -1)
    return "a point that is not candidate " + std::to_string(p.index);
  return {};
}

}  // namespace

std::string check_broadcast(const broadcast& b, const fbo::ReferenceConfig& cfg, int regions) {
  const bool relay = fbo::traits(cfg.algorithm).server == fbo::ServerKind::relay;
  const bool de = fbo::traits(cfg.algorithm).server == fbo::ServerKind::de;
  if (b.round < 0 || b.rows != cfg.features || b.cols < 0 ||
      b.joint.size() != static_cast<std::size_t>(b.rows) * static_cast<std::size_t>(b.cols) ||
      (de && b.released && b.cols != regions))
    return "a broadcast of round " + std::to_string(b.round) + " shaped " + std::to_string(b.rows) +
           " x " + std::to_string(b.cols) + " with " + std::to_string(b.joint.size()) +
           " values (M = " + std::to_string(cfg.features) + ", P = " + std::to_string(regions) + ")";
  if (relay ? b.sources.size() != static_cast<std::size_t>(b.cols) : !b.sources.empty())
    return "a broadcast whose sources are not its columns";
  for (std::size_t k = 0; k < b.sources.size(); ++k)
    if (b.sources.begin()[k] < 0 || b.sources.begin()[k] >= cfg.agents ||
        (k > 0 && b.sources.begin()[k] <= b.sources.begin()[k - 1]))
      return "a broadcast whose sources are not ascending agent ids";
  for (std::size_t k = 0; k < b.joint.size(); ++k)
    if (!std::isfinite(b.joint.begin()[k])) return "a broadcast with a value that is not finite";
  return {};
}

std::string check_agent_delivery(const caf::message& payload, const fbo::ReferenceConfig& cfg,
                                 int regions) {
  if (payload.match_elements<broadcast>()) return check_broadcast(payload.get_as<broadcast>(0), cfg, regions);
  if (payload.match_elements<kickoff>() || payload.match_elements<timer>() ||
      payload.match_elements<crash_notice>() || payload.match_elements<recover_notice>())
    return {};
  return "a payload an agent cannot take";
}

std::string check_agent_state(const AgentActorState& s, const AgentHistory& history,
                              const std::vector<double>& pool_weights, double pool_total) {
  const auto& cfg = s.shared->config;
  const fbo::AgentContext& context = *s.shared->context;
  if (s.iteration < 0 || s.iteration > cfg.iterations)
    return "iteration " + std::to_string(s.iteration) + " out of [0, " + std::to_string(cfg.iterations) + "]";
  if (s.used_round < -1 || s.pending_report_round != std::int64_t{s.used_round} + 1)
    return "rounds out of step (used " + std::to_string(s.used_round) + ", reports for " +
           std::to_string(s.pending_report_round) + ")";
  if (s.latest ? s.used_round > s.latest->round : s.used_round != -1)
    return "used round " + std::to_string(s.used_round) + " past the newest broadcast it has";
  if (s.busy == s.pending.empty()) return "busy without a batch, or a batch while idle";
  if (s.busy && !s.started) return "busy before it started";
  if (s.has_best && !std::isfinite(s.best_y)) return "its best y is not finite";
  const int initial = is_peer(s) ? cfg.peer_observations : cfg.n_init;
  if (s.pending.size() > static_cast<std::size_t>(std::max(initial, 1)))
    return "a batch of " + std::to_string(s.pending.size()) + " queries";
  for (const PendingQuery& q : s.pending) {
    const auto branch = static_cast<int>(q.choice.branch);
    const bool init = q.choice.branch == fbo::Branch::init;
    if (branch < static_cast<int>(fbo::Branch::init) || branch > static_cast<int>(fbo::Branch::federated))
      return "a query of branch " + std::to_string(branch);
    if (init ? q.iteration < 1 - initial || q.iteration > 0 : q.iteration != s.iteration + 1)
      return "a query of iteration " + std::to_string(q.iteration);
    if (q.choice.source < -1 || q.choice.source >= cfg.agents || q.attempts < 0 ||
        (q.failed && !q.answered))
      return "a query with a source, attempts or answer it cannot have";
    const std::string point = check_point(q.choice.point, context);
    if (!point.empty()) return "a query of " + point;
  }
  if (history.size() > static_cast<std::size_t>(initial) + static_cast<std::size_t>(s.iteration))
    return std::to_string(history.size()) + " observations after " + std::to_string(s.iteration) +
           " iterations";
  for (const auto& [point, y] : history) {
    const std::string wrong = check_point(point, context);
    if (!wrong.empty()) return "an observation at " + wrong;
    if (!std::isfinite(y)) return "an observation that is not finite";
  }
  for (const auto* b : {s.latest ? &*s.latest : nullptr, s.pool_source ? &*s.pool_source : nullptr})
    if (b) {
      const std::string wrong = check_broadcast(*b, cfg, context.partition.size());
      if (!wrong.empty()) return wrong;
    }
  double total = 0.0;
  for (double w : pool_weights) {
    if (w != 0.0 && w != 1.0) return "an FTS pool weight that is neither 0 nor 1";
    total += w;
  }
  if (s.pool_source && total != pool_total) return "FTS pool weights that do not sum to its total";
  return {};
}

namespace {

/// The agent's checkpoint fields, for both directions (actors/checkpoint/state_archive.hpp).
/// Loading rebuilds what is derived: the engine agent from its history, the FTS pool from the
/// broadcast it views.
template <class Archive>
void agent_fields(Archive& a, self_ptr self) {
  auto& s = self->state;
  RandomStream::State noise = s.noise->state();
  std::vector<double> pool_weights = s.pool.weights();
  double pool_total = s.pool.total();
  AgentHistory history;
  if constexpr (!Archive::loading) history = s.agent->history();
  a(noise, s.best, s.has_best, s.best_y, s.iteration, s.started, s.busy, s.alive, s.done,
    s.pending, s.generation, s.pending_report_round, s.used_round, s.latest, s.pool_source,
    pool_weights, pool_total, history);
  if constexpr (Archive::loading) {
    if (noise.s[0] == 0 && noise.s[1] == 0 && noise.s[2] == 0 && noise.s[3] == 0)
      throw std::runtime_error("its noise stream is all zeros (it would draw nothing else)");
    if (noise.has_spare && !std::isfinite(noise.spare_normal))
      throw std::runtime_error("its noise stream's spare normal is not finite");
    const std::string wrong = check_agent_state(s, history, pool_weights, pool_total);
    if (!wrong.empty()) throw std::runtime_error(wrong);
    s.noise = RandomStream::from_state(noise);
    reset_agent(self);
    for (const auto& [point, y] : history) s.agent->observe(point, y);
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
      // A broadcast first: CAF 0.17 tries the handlers in order (actors/network.cpp).
      // Payloads are shared by every recipient: handlers take them by const reference.
      [self](const broadcast& b, virtual_time vt) {
        return delivery(self, vt, [self, &b] {
          if (race_planted()) planted_race_for_sanitizer_test();
          auto& s = self->state;
          if (!s.latest || b.round > s.latest->round) s.latest = b;
          start_initial_design(self);  // no-op once started
          maybe_continue(self);
          return answer_now(self);
        });
      },
      [self](kickoff, virtual_time vt) {
        return delivery(self, vt, [self] {
          start_initial_design(self);
          return answer_now(self);
        });
      },
      [self](const timer& tm, virtual_time vt) {
        return delivery(self, vt, [self, &tm, vt] {
          auto& s = self->state;
          if (s.alive && s.busy && tm.round == s.pending_report_round)
            finish_evaluations(self, vt.seconds);
          return answer_now(self);
        });
      },
      [self](const crash_notice& c, virtual_time vt) {
        return delivery(self, vt, [self, &c, vt] {
          auto& s = self->state;
          logger("agent")->debug("t={:.3f} agent {} crashes ({})", vt.seconds, s.id,
                                 c.keep_state ? "state kept" : "state lost");
          s.alive = false;
          s.busy = false;  // evaluations in flight are lost with the crash
          s.pending.clear();
          ++s.generation;  // their late answers are ignored
          for (auto& p : s.held) p.deliver(caf::ok_atom_v);
          s.held.clear();
          if (!c.keep_state) reset_agent(self);
          return true;
        });
      },
      [self](recover_notice, virtual_time vt) {
        return delivery(self, vt, [self, vt] {
          logger("agent")->debug("t={:.3f} agent {} recovers", vt.seconds, self->state.id);
          self->state.alive = true;
          start_initial_design(self);  // no-op once started
          maybe_continue(self);
          return answer_now(self);
        });
      },
      [self](const evaluation_result& r) { on_evaluation_result(self, r); },
      [self](save_atom) {
        return save_state(self->context(), [self](auto& a) { agent_fields(a, self); });
      },
      [self](restore_atom, const std::vector<char>& bytes) {
        return restore_state(self->context(), bytes, "agent " + std::to_string(self->state.id),
                             [self](auto& a) { agent_fields(a, self); });
      },
  };
}

}  // namespace fedsim::actors
