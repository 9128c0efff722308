#include "actors/server.hpp"

#include "actors/failure.hpp"
#include "actors/integrity.hpp"
#include "actors/logging.hpp"

#include <cmath>
#include <functional>

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<ServerState>*;
using Policy = scenario::PolicyConfig::Kind;

constexpr std::int32_t deadline_tag = 0;
constexpr std::int32_t period_tag = 1;

int num_agents(const ServerState& s) { return s.shared->config.agents; }
const scenario::PolicyConfig& policy(const ServerState& s) { return s.shared->policy; }

void send_to(self_ptr self, node_id to, caf::message payload, double delay = 0.0,
             std::uint64_t bytes = 0) {
  self->send(self->state.shared->network, envelope{server_node, to, delay, bytes, std::move(payload)});
}

void send_all(self_ptr self, const caf::message& payload, std::uint64_t bytes) {
  // One message, shared by reference for every recipient; agents that finished need none.
  for (int n = 0; n < num_agents(self->state); ++n)
    if (!self->state.done[n]) send_to(self, static_cast<node_id>(n), payload, 0.0, bytes);
}

void log_event(self_ptr self, const char* kind, const report& r, const char* reason) {
  auto& s = self->state;
  self->send(s.shared->recorder, network_event{s.now, s.event_seq++, kind, r.agent, server_node,
                                               "report", r.round, 0, reason});
}

void log_reject(self_ptr self, const report& r, const char* reason) {
  ++self->state.rejected;
  log_event(self, "reject", r, reason);
}

bool expected(const ServerState& s, int n) { return !s.done[n] && !s.presumed_dead[n]; }
bool has_vector(const ServerState& s, int n) { return s.vectors[n].size() > 0; }

// Counts are kept up to date on every change, so a report costs O(1), not O(N).
int count_expected(const ServerState& s) { return s.expected_count; }
int count_stored(const ServerState& s) { return s.stored_count; }
bool all_expected_reported(const ServerState& s) {
  return s.expected_with_vector == s.expected_count;
}

void store_vector(ServerState& s, int n, const Eigen::Ref<const Eigen::VectorXd>& v,
                  std::int32_t round) {
  if (!has_vector(s, n)) {
    ++s.stored_count;
    if (expected(s, n)) ++s.expected_with_vector;
  }
  s.vectors[n] = v;
  s.vector_round[n] = round;
}

void clear_vector(ServerState& s, int n) {
  if (!has_vector(s, n)) return;
  --s.stored_count;
  if (expected(s, n)) --s.expected_with_vector;
  s.vectors[n].resize(0);
}

/// Changes what the server believes of agent n, keeping the counts right.
void set_status(ServerState& s, int n, bool done, bool presumed_dead) {
  const bool was = expected(s, n);
  s.done[n] = done;
  s.presumed_dead[n] = presumed_dead;
  const bool is = expected(s, n);
  if (was == is) return;
  s.expected_count += is ? 1 : -1;
  if (has_vector(s, n)) s.expected_with_vector += is ? 1 : -1;
}

int quorum_size(const ServerState& s) {
  const double q = policy(s).quorum;
  return q > 1.0 ? static_cast<int>(q) : static_cast<int>(std::ceil(q * num_agents(s) - 1e-9));
}

double staleness_weight(const scenario::PolicyConfig& p, int staleness) {
  switch (p.staleness) {
    case scenario::PolicyConfig::Staleness::constant: return 1.0;
    case scenario::PolicyConfig::Staleness::inverse: return 1.0 / (1.0 + staleness);
    case scenario::PolicyConfig::Staleness::polynomial:
      return std::pow(1.0 + staleness, -p.staleness_exponent);
  }
  return 1.0;
}

void open_round(self_ptr self);

/// An agent whose vector is missing when a round closes has missed it; after
/// dead_after_missed misses in a row it is presumed dead (until it reports again), so no
/// policy waits for a crashed agent forever and every run ends.
void note_misses(ServerState& s) {
  for (int n = 0; n < num_agents(s); ++n) {
    if (s.vectors[n].size() > 0) s.missed[n] = 0;
    else if (expected(s, n) && ++s.missed[n] >= policy(s).dead_after_missed) {
      set_status(s, n, s.done[n], true);
      logger("server")->info("t={:.3f} round {}: agent {} presumed dead after {} missed rounds",
                             s.now, s.round, n, s.missed[n]);
    }
  }
}

/// Broadcasts the round's result, records it and opens the next round.
void finish_round(self_ptr self, broadcast b, const fbo::RoundStats& stats, int participants,
                  int selected, double epsilon, int alive) {
  auto& s = self->state;
  const std::uint64_t bytes = b.joint.size() * sizeof(double) + 16;
  double norm2 = 0.0;
  for (std::size_t k = 0; k < b.joint.size(); ++k) norm2 += b.joint.begin()[k] * b.joint.begin()[k];
  // FTS's peers (the target-agent setting) send one message, in round 0: the server expects
  // them no longer. (An agent_done of theirs could overtake their report on a slow link.)
  if (s.round == 0)
    for (int n = s.shared->config.learners(); n < num_agents(s); ++n)
      set_status(s, n, true, s.presumed_dead[n]);
  send_all(self, caf::make_message(std::move(b)), bytes);
  logger("server")->debug("t={:.3f} round {}: {} vectors, {} selected, {} late, {} rejected, eps {:.3f}",
                          s.now, s.round, participants, selected, s.late, s.rejected, epsilon);
  self->send(s.shared->recorder,
             round_event{s.round, s.now, participants, selected, s.late, s.dropped, s.rejected + stats.rejected,
                         stats.clipped, alive, stats.noise_std, epsilon, s.releasing,
                         std::sqrt(norm2)});
  for (int n = 0; n < num_agents(s); ++n) clear_vector(s, n);
  ++s.round;
  open_round(self);
}

/// Closes the current round: aggregates (charging the accountant first for a private
/// release) and calls `done` once the broadcast is sent.
void close_round(self_ptr self, std::function<void()> done) {
  auto& s = self->state;
  const auto& cfg = s.shared->config;
  const int N = num_agents(s);
  s.open = false;
  s.arrivals = 0;
  const int alive = count_expected(s);
  note_misses(s);
  if (policy(s).kind == Policy::async)
    for (int n = 0; n < N; ++n) {
      if (s.vectors[n].size() == 0) continue;
      const int staleness = s.round - s.vector_round[n];
      if (staleness > policy(s).max_staleness) {
        clear_vector(s, n);
        ++s.dropped;
      } else {
        s.vectors[n] *= staleness_weight(policy(s), staleness);
      }
    }
  std::vector<const Eigen::VectorXd*> inbox(N, nullptr);
  int participants = 0;
  for (int n = 0; n < N; ++n)
    if (s.vectors[n].size() > 0) {
      inbox[n] = &s.vectors[n];
      ++participants;
    }

  broadcast b;
  b.round = s.round;
  b.rows = cfg.features;
  if (cfg.algorithm == fbo::Algorithm::fts) {  // relay every vector
    auto data = std::make_shared<std::vector<double>>();
    for (int n = 0; n < N; ++n)
      if (inbox[n]) {
        data->insert(data->end(), inbox[n]->data(), inbox[n]->data() + inbox[n]->size());
        b.sources.push_back(n);
      }
    b.cols = static_cast<std::int32_t>(b.sources.size());
    b.joint.data = std::move(data);
    finish_round(self, std::move(b), fbo::RoundStats{}, participants, participants, 0.0, alive);
    return done();
  }

  auto release = [self, inbox, participants, alive](broadcast b, double epsilon) {
    auto& s = self->state;
    RandomStream rng(s.shared->config.seed, "server.round", s.round);
    fbo::RoundStats stats;
    const Eigen::MatrixXd joint = s.de->aggregate(s.round, inbox, rng, &stats);
    b.cols = static_cast<std::int32_t>(joint.cols());
    b.joint.data = std::make_shared<const std::vector<double>>(joint.data(),
                                                               joint.data() + joint.size());
    finish_round(self, std::move(b), stats, participants, stats.selected, epsilon, alive);
  };
  auto withhold = [self, alive, participants](broadcast b, double epsilon) {
    if (self->state.releasing)
      logger("server")->warn("t={:.3f} round {}: privacy budget reached, aggregates withheld from now on",
                             self->state.now, self->state.round);
    self->state.releasing = false;
    b.released = false;
    finish_round(self, std::move(b), fbo::RoundStats{}, participants, 0, epsilon, alive);
  };

  if (!cfg.is_private()) {
    release(std::move(b), 0.0);
    return done();
  }
  if (!s.releasing) {
    withhold(std::move(b), -1.0);
    return done();
  }
  self->request(s.shared->accountant, caf::infinite, charge_atom::value, cfg.q, cfg.z)
      .await(
          [=](privacy_status st) mutable {
            if (st.granted) release(std::move(b), st.epsilon);
            else withhold(std::move(b), st.epsilon);
            done();
          },
          [=](caf::error&) mutable {
            withhold(std::move(b), -1.0);
            done();
          });
}

/// Closes the round if the policy says it is complete; stops when nobody is left.
void check_complete(self_ptr self, std::function<void()> done) {
  auto& s = self->state;
  if (!s.open) return done();
  const int expected_now = count_expected(s), stored = count_stored(s);
  if (expected_now == 0 && stored == 0) {
    s.open = false;
    s.stopped = true;
    return done();
  }
  bool complete = false;
  switch (policy(s).kind) {
    case Policy::sync:
    case Policy::deadline: complete = all_expected_reported(s); break;
    case Policy::quorum: complete = stored >= quorum_size(s) || all_expected_reported(s); break;
    case Policy::async:
      complete = (policy(s).async_every > 0 && s.arrivals >= policy(s).async_every) ||
                 (expected_now == 0 && stored > 0);
      break;
  }
  if (complete) return close_round(self, std::move(done));
  done();
}

/// Arms the current round's timeout (sync) or deadline (deadline, quorum) once. With nobody
/// expected (every agent done or presumed dead) it stays unarmed so an idle server lets the
/// run end; a report from a revived agent arms it.
void arm_round_timer(self_ptr self) {
  auto& s = self->state;
  if (!s.open || s.round_timer_armed || count_expected(s) == 0) return;
  const auto& p = policy(s);
  double wait = p.kind == Policy::sync ? p.round_timeout
                : p.kind == Policy::async ? 0.0 : p.deadline;
  // Round 0 follows the initial design: n_init evaluations instead of one.
  if (s.round == 0) wait *= s.shared->config.n_init;
  if (!(wait > 0.0) || !std::isfinite(wait)) return;
  s.round_timer_armed = true;
  send_to(self, server_node, caf::make_message(timer{deadline_tag, s.round, 0}), wait);
}

/// Arms the async period timer unless it is pending or nobody is left to report.
void arm_period_timer(self_ptr self) {
  auto& s = self->state;
  const auto& p = policy(s);
  if (p.kind != Policy::async || !(p.async_period > 0) || s.period_timer_armed || s.stopped ||
      (count_expected(s) == 0 && count_stored(s) == 0))
    return;
  s.period_timer_armed = true;
  send_to(self, server_node, caf::make_message(timer{period_tag, 0, 0}), p.async_period);
}

void open_round(self_ptr self) {
  auto& s = self->state;
  if (s.stopped) return;
  s.open = true;
  s.late = s.dropped = s.rejected = 0;
  s.round_timer_armed = false;
  arm_round_timer(self);
}

/// Runs `body(done)`, answering the network's delivery request once `done` is called.
template <class Body>
caf::response_promise handle(self_ptr self, double now, Body body) {
  self->state.now = now;
  auto rp = self->make_response_promise();
  body([rp]() mutable { rp.deliver(caf::ok_atom::value); });
  return rp;
}

}  // namespace

caf::behavior server_actor(caf::stateful_actor<ServerState>* self,
                           std::shared_ptr<const ServerShared> shared) {
  fail_loudly(self, "server");
  auto& s = self->state;
  s.shared = std::move(shared);
  const auto& cfg = s.shared->config;
  const int N = cfg.agents;
  if (cfg.uses_server()) s.de.emplace(cfg.server_config(), s.shared->assignment, cfg.features);
  s.vectors.assign(N, Eigen::VectorXd());
  s.vector_round.assign(N, 0);
  s.done.assign(N, 0);
  s.presumed_dead.assign(N, 0);
  s.missed.assign(N, 0);
  s.expected_count = N;
  return {
      [self](kickoff, virtual_time vt) {
        return handle(self, vt.seconds, [self](auto done) {
          auto& s = self->state;
          if (s.shared->config.algorithm == fbo::Algorithm::ts) {
            s.stopped = true;  // standard TS agents never talk to the server
            return done();
          }
          open_round(self);
          arm_period_timer(self);
          done();
        });
      },
      [self](const report& r, virtual_time vt) {
        return handle(self, vt.seconds, [self, &r](auto done) {
          auto& s = self->state;
          const int N = num_agents(s);
          if (s.stopped) return done();
          if (r.agent >= static_cast<node_id>(N)) {
            log_reject(self, r, "not a member");
            return done();
          }
          if (r.round < 0 || r.round > s.round) {
            log_reject(self, r, "unknown round");
            return done();
          }
          const Eigen::Map<const Eigen::VectorXd> omega(r.omega.data(), r.omega.size());
          if (static_cast<int>(r.omega.size()) != s.shared->config.features) {
            log_reject(self, r, "wrong dimension");
            return done();
          }
          if (!omega.allFinite()) {
            log_reject(self, r, "not finite");
            return done();
          }
          if (omega.norm() > max_report_norm) {
            log_reject(self, r, "norm too large");
            return done();
          }
          if (!intact(r)) {  // integrity last: the checks above keep naming what they catch
            log_reject(self, r, "corrupted");
            return done();
          }
          const int n = static_cast<int>(r.agent);
          set_status(s, n, s.done[n], false);  // it is alive after all
          arm_round_timer(self);
          arm_period_timer(self);
          if (policy(s).kind == Policy::async) {
            store_vector(s, n, omega, r.round);
            ++s.arrivals;
          } else if (r.round == s.round && s.open) {
            if (!has_vector(s, n)) {
              store_vector(s, n, omega, r.round);
            } else {
              ++s.dropped;  // a duplicate delivery
            }
          } else {
            ++s.late;
            log_event(self, "late", r, "");
            const bool carry = policy(s).kind == Policy::deadline && policy(s).carry_late &&
                               s.open && s.vectors[n].size() == 0;
            if (carry) {
              store_vector(s, n, omega, r.round);
            } else {
              ++s.dropped;
            }
          }
          check_complete(self, done);
        });
      },
      [self](const timer& tm, virtual_time vt) {
        return handle(self, vt.seconds, [self, tm](auto done) {
          auto& s = self->state;
          if (s.stopped) return done();
          if (tm.tag == deadline_tag && s.open && tm.round == s.round)
            return close_round(self, done);
          if (tm.tag == period_tag) {
            s.period_timer_armed = false;
            if (s.open && count_stored(s) == 0) note_misses(s);
            arm_period_timer(self);
            if (s.open && count_stored(s) > 0) return close_round(self, done);
            return check_complete(self, done);
          }
          done();
        });
      },
      [self](const agent_done& d, virtual_time vt) {
        return handle(self, vt.seconds, [self, d](auto done) {
          auto& s = self->state;
          if (d.agent < s.done.size()) set_status(s, d.agent, true, s.presumed_dead[d.agent]);
          check_complete(self, done);
        });
      },
      [self](const membership_notice& m, virtual_time vt) {
        return handle(self, vt.seconds, [self, m](auto done) {
          auto& s = self->state;
          if (m.agent < s.presumed_dead.size()) {
            set_status(s, m.agent, s.done[m.agent], !m.alive);
            if (m.alive) s.missed[m.agent] = 0;
          }
          check_complete(self, done);
        });
      },
  };
}

}  // namespace fedsim::actors
