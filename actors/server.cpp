#include "actors/server.hpp"

#include "actors/agent_states.hpp"
#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"
#include "actors/integrity.hpp"
#include "actors/logging.hpp"
#include "actors/policy/registry.hpp"
#include "engine/fbo/algorithm_traits.hpp"
#include "engine/fbo/streams.hpp"

#include <cmath>
#include <functional>
#include <limits>

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<ServerState>*;
using policy::Verdict;

constexpr std::int32_t deadline_tag = 0;
constexpr std::int32_t period_tag = 1;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int num_agents(const ServerState& s) { return s.shared->config.agents; }
Membership& members(ServerState& s) { return *s.members; }

void send_to(self_ptr self, node_id to, caf::message payload, double delay = 0.0,
             std::uint64_t bytes = 0) {
  auto& s = self->state;
  post(self, s.box, s.shared->network, envelope{server_node, to, delay, bytes, std::move(payload)});
}

void send_all(self_ptr self, const caf::message& payload, std::uint64_t bytes) {
  // One message, shared by reference for every recipient; agents that finished need none.
  for (int n = 0; n < num_agents(self->state); ++n)
    if (!members(self->state).done(n)) send_to(self, static_cast<node_id>(n), payload, 0.0, bytes);
}

void log_event(self_ptr self, const char* kind, const report& r, const char* reason) {
  auto& s = self->state;
  network_event e;
  e.time = s.now;
  e.seq = s.event_seq++;
  e.kind = kind;
  e.from = r.agent;
  e.to = server_node;
  e.payload = "report";
  e.round = r.round;
  e.reason = reason;
  self->send(s.shared->recorder, std::move(e));
}

void log_reject(self_ptr self, const report& r, const char* reason) {
  ++self->state.rejected;
  log_event(self, "reject", r, reason);
}

/// Why `r` is not a well-formed report for this server now, or nullptr if it is. Validation
/// only: what a valid report does is the policy's decision.
const char* invalid(const ServerState& s, const report& r) {
  if (r.agent >= static_cast<node_id>(num_agents(s))) return "not a member";
  if (r.round < 0 || r.round > s.round) return "unknown round";
  if (static_cast<int>(r.omega.size()) != s.shared->config.features) return "wrong dimension";
  const Eigen::Map<const Eigen::VectorXd> omega(r.omega.data(), r.omega.size());
  if (!omega.allFinite()) return "not finite";
  if (omega.norm() > max_report_norm) return "norm too large";
  if (!intact(r)) return "corrupted";  // integrity last: the checks above name what they catch
  return nullptr;
}

bool has_vector(const ServerState& s, int n) { return !s.kept[n].empty(); }

/// Keeps r's vector for agent n: in place of what n sent before, or (buffer) beside it.
void keep(ServerState& s, int n, const report& r, bool buffer) {
  if (!buffer) s.kept[n].clear();
  s.kept[n].push_back(
      KeptReport{r.round, Eigen::Map<const Eigen::VectorXd>(r.omega.data(), r.omega.size())});
  members(s).set_contributed(n, true);
}

void open_round(self_ptr self);

/// Counts this round's misses (membership.hpp): dead_after_missed in a row presume an agent
/// dead until it reports again, so no policy waits for a crashed agent forever.
void note_misses(ServerState& s) {
  for (int n : members(s).close_round())
    logger("server")->info("t={:.3f} round {}: agent {} presumed dead after {} missed rounds",
                           s.now, s.round, n, members(s).missed(n));
}

/// Broadcasts the round's result, records it and opens the next round.
void finish_round(self_ptr self, broadcast b, const fbo::RoundStats& stats, int participants,
                  int selected, const privacy_status& spent, int alive, int filtered = 0) {
  auto& s = self->state;
  const std::uint64_t bytes = b.joint.size() * sizeof(double) + 16;
  const bool released = b.released;
  double norm2 = 0.0;
  for (std::size_t k = 0; k < b.joint.size(); ++k) norm2 += b.joint.begin()[k] * b.joint.begin()[k];
  // FTS's peers (the target-agent setting) send one message, in round 0: the server expects
  // them no longer. (An agent_done of theirs could overtake their report on a slow link.)
  if (s.round == 0)
    for (int n = s.shared->config.learners(); n < num_agents(s); ++n) members(s).mark_done(n);
  send_all(self, caf::make_message(std::move(b)), bytes);
  logger("server")->debug("t={:.3f} round {}: {} vectors, {} selected, {} late, {} rejected, eps {:.3f}",
                          s.now, s.round, participants, selected, s.late, s.rejected, spent.epsilon);
  round_event e;
  e.round = s.round;
  e.time = s.now;
  e.participants = participants;
  e.selected = selected;
  e.late = s.late;
  e.dropped = s.dropped;
  e.rejected = s.rejected + stats.rejected;
  e.clipped = stats.clipped;
  e.alive = alive;
  e.noise_std = stats.noise_std;
  e.epsilon = spent.epsilon;
  e.released = released;
  e.aggregate_norm = std::sqrt(norm2);
  e.epsilon_rdp = spent.epsilon_rdp;
  e.epsilon_pld = spent.epsilon_pld;
  e.filtered = filtered;
  self->send(s.shared->recorder, std::move(e));
  for (int n = 0; n < num_agents(s); ++n) {
    s.kept[n].clear();
    members(s).set_contributed(n, false);
  }
  ++s.round;
  // Rounds closed so far: the network takes a checkpoint after a multiple of checkpoint_every.
  self->send(s.shared->network, checkpoint_atom::value, static_cast<std::int64_t>(s.round));
  open_round(self);
}

/// Each agent's kept reports, weighted by the policy's staleness weight and summed (one
/// vector per agent: DE's aggregate is linear in it); too stale ones are dropped and counted.
/// Size 0: nothing from that agent. Moves from the kept reports.
std::vector<Eigen::VectorXd> weighted_vectors(ServerState& s) {
  std::vector<Eigen::VectorXd> out(num_agents(s));
  for (int n = 0; n < num_agents(s); ++n)
    for (KeptReport& k : s.kept[n]) {  // used up: finish_round clears them
      const std::optional<double> w = s.policy->weight(s.round - k.round);
      if (!w) {
        ++s.dropped;
        continue;
      }
      if (out[n].size() == 0) out[n] = *w == 1.0 ? std::move(k.omega) : Eigen::VectorXd(k.omega * *w);
      else out[n] += *w * k.omega;
    }
  return out;
}

/// Closes the current round: aggregates (charging the accountant first for a private
/// release) and calls `done` once the broadcast is sent.
void close_round(self_ptr self, std::function<void()> done) {
  auto& s = self->state;
  const auto& cfg = s.shared->config;
  const int N = num_agents(s);
  s.open = false;
  s.arrivals = 0;
  const int alive = members(s).expected_count();
  note_misses(s);
  auto vectors = std::make_shared<const std::vector<Eigen::VectorXd>>(weighted_vectors(s));
  std::vector<const Eigen::VectorXd*> inbox(N, nullptr);
  int participants = 0;
  for (int n = 0; n < N; ++n)
    if ((*vectors)[n].size() > 0) {
      inbox[n] = &(*vectors)[n];
      ++participants;
    }

  broadcast b;
  b.round = s.round;
  b.rows = cfg.features;
  if (fbo::traits(cfg.algorithm).server == fbo::ServerKind::relay) {  // relay every vector
    auto data = std::make_shared<std::vector<double>>();
    auto sources = std::make_shared<std::vector<std::int32_t>>();
    for (int n = 0; n < N; ++n)
      if (inbox[n]) {
        data->insert(data->end(), inbox[n]->data(), inbox[n]->data() + inbox[n]->size());
        sources->push_back(n);
      }
    b.cols = static_cast<std::int32_t>(sources->size());
    b.joint.data = std::move(data);
    b.sources.data = std::move(sources);
    finish_round(self, std::move(b), fbo::RoundStats{}, participants, participants,
                 privacy_status{}, alive);
    return done();
  }

  // The privacy spent after this round, as the accountant reports it (zero for a run that is
  // not private; NaN when the accountant could not answer, which fails the run loudly anyway).
  // `admitted`: the agents the per-agent filter let in (empty: every participant).
  auto release = [self, vectors, inbox, participants, alive](broadcast b, privacy_status spent) {
    auto& s = self->state;
    std::vector<const Eigen::VectorXd*> in = inbox;
    int taken = participants, filtered = 0;
    if (!spent.admitted.empty() && static_cast<int>(spent.admitted.size()) < participants) {
      std::vector<bool> keep(in.size(), false);
      for (std::int32_t n : spent.admitted) keep[static_cast<std::size_t>(n)] = true;
      for (std::size_t n = 0; n < in.size(); ++n)
        if (in[n] && !keep[n]) in[n] = nullptr;
      taken = static_cast<int>(spent.admitted.size());
      filtered = participants - taken;
    }
    RandomStream rng(s.shared->config.seed, fbo::streams::server_round, s.round);
    fbo::RoundStats stats;
    const Eigen::MatrixXd joint = s.de->aggregate(s.round, in, rng, &stats);
    b.cols = static_cast<std::int32_t>(joint.cols());
    b.joint.data = std::make_shared<const std::vector<double>>(joint.data(),
                                                               joint.data() + joint.size());
    finish_round(self, std::move(b), stats, taken, stats.selected, spent, alive, filtered);
  };
  // Nothing released: past the budget (withheld from now on), with no participant, or with
  // none the per-agent filter admits (`filtered` of them).
  auto nothing = [self, alive](broadcast b, int participants, privacy_status spent, bool budget,
                               int filtered) {
    if (budget && self->state.releasing)
      logger("server")->warn("t={:.3f} round {}: privacy budget reached, aggregates withheld from now on",
                             self->state.now, self->state.round);
    if (budget) self->state.releasing = false;
    b.released = false;
    finish_round(self, std::move(b), fbo::RoundStats{}, participants, 0, spent, alive, filtered);
  };
  const privacy_status unknown{false, kNaN, 0, kNaN, kNaN, {}};

  if (!cfg.is_private()) {
    // No participant, no release (an aggregate of nobody would be noise alone; docs/privacy.md,
    // "What is charged"): the agents go local until a release.
    if (participants == 0) nothing(std::move(b), 0, privacy_status{}, false, 0);
    else release(std::move(b), privacy_status{});
    return done();
  }
  // Nothing to charge (no participant, or the budget already reached): the epsilon so far.
  if (participants == 0 || !s.releasing) {
    const bool budget = participants > 0;
    self->request(s.shared->accountant, caf::infinite, caf::get_atom_v)
        .await(
            [=](privacy_status st) mutable {
              nothing(std::move(b), participants, st, budget, 0);
              done();
            },
            [=](caf::error&) mutable {
              nothing(std::move(b), participants, unknown, budget, 0);
              done();
            });
    return;
  }
  charge_request charge{cfg.q, cfg.z, {}};
  for (int n = 0; n < N; ++n)
    if (inbox[n]) charge.candidates.push_back(n);
  self->request(s.shared->accountant, caf::infinite, std::move(charge))
      .await(
          [=](privacy_status st) mutable {
            if (st.admitted.empty())  // the filter admitted nobody: no release, no charge
              nothing(std::move(b), 0, st, false, participants);
            else if (st.granted) release(std::move(b), std::move(st));
            else nothing(std::move(b), participants, st, true, 0);
            done();
          },
          [=](caf::error&) mutable {
            nothing(std::move(b), participants, unknown, true, 0);
            done();
          });
}

/// Closes the round if the policy says it is complete. With nobody expected and nothing kept
/// the server stops once every agent is done, and otherwise idles (every agent left is
/// presumed dead; a report from one revives it).
void check_complete(self_ptr self, std::function<void()> done) {
  auto& s = self->state;
  if (!s.open) return done();
  const Membership& m = members(s);
  if (m.expected_count() == 0 && m.contributors() == 0) {
    if (m.done_count() == num_agents(s)) {
      s.open = false;
      s.stopped = true;
    }
    return done();
  }
  const policy::Tally t{num_agents(s), m.expected_count(), m.contributors(),
                        m.all_expected_contributed(), s.arrivals};
  if (s.policy->complete(t)) return close_round(self, std::move(done));
  done();
}

/// Arms the current round's timeout or deadline once. With nobody expected (every agent done
/// or presumed dead) it stays unarmed so an idle server lets the run end; a report from a
/// revived agent arms it.
void arm_round_timer(self_ptr self) {
  auto& s = self->state;
  if (!s.open || s.round_timer_armed || members(s).expected_count() == 0) return;
  double wait = s.policy->round_wait();
  // Round 0 follows the initial design: n_init evaluations instead of one.
  if (s.round == 0) wait *= s.shared->config.n_init;
  if (!(wait > 0.0) || !std::isfinite(wait)) return;
  s.round_timer_armed = true;
  send_to(self, server_node, caf::make_message(timer{deadline_tag, s.round, 0}), wait);
}

/// Arms the policy's period timer unless it is pending, nobody is left to report, or the last
/// dead_after_missed periods were all empty (the server idles until the next report).
void arm_period_timer(self_ptr self) {
  auto& s = self->state;
  const double period = s.policy->period();
  const Membership& m = members(s);
  if (!(period > 0) || s.period_timer_armed || s.stopped ||
      (m.expected_count() == 0 && m.contributors() == 0) ||
      s.empty_periods >= s.shared->policy.dead_after_missed)
    return;
  s.period_timer_armed = true;
  send_to(self, server_node, caf::make_message(timer{period_tag, 0, 0}), period);
}

void open_round(self_ptr self) {
  auto& s = self->state;
  if (s.stopped) return;
  s.open = true;
  s.late = s.dropped = s.rejected = 0;
  s.round_timer_armed = false;
  arm_round_timer(self);
}

/// What a validated report does, as the policy decides.
void apply(self_ptr self, const report& r) {
  auto& s = self->state;
  const int n = static_cast<int>(r.agent);
  switch (s.policy->on_report(r.round, s.round, has_vector(s, n))) {
    case Verdict::keep:
      keep(s, n, r, false);
      ++s.arrivals;
      return;
    case Verdict::buffer:
      keep(s, n, r, true);
      ++s.arrivals;
      return;
    case Verdict::carry:
      ++s.late;
      log_event(self, "late", r, "");
      keep(s, n, r, false);
      return;
    case Verdict::late:
      ++s.late;
      log_event(self, "late", r, "");
      ++s.dropped;
      return;
    case Verdict::duplicate:
      ++s.dropped;
      return;
  }
}

/// Why the run could not finish, read once the network is idle ("" if nothing stopped it).
std::string unfinished_reason(const ServerState& s) {
  if (fbo::traits(s.shared->config.algorithm).server == fbo::ServerKind::none) return "";
  const Membership& m = s.members.value();
  if (s.open && s.policy->agents_wait() && m.expected_missing() > 0)
    return "round " + std::to_string(s.round) + " never closed: " +
           std::to_string(m.expected_missing()) +
           " agent(s) never reported it, were never presumed dead and no timeout or deadline "
           "was pending (an infinite timeout or deadline without crash detection)";
  if (!s.learner_progressed)
    return "no progress past the initial design reached the server (no report after round "
           "0 and no agent finished)";
  return "";
}

/// The server's checkpoint fields, for both directions (the policy, the engine server and the
/// shared configuration are rebuilt from the scenario).
template <class Archive>
void server_fields(Archive& a, ServerState& s) {
  a(s.round, s.open, s.stopped, s.releasing, s.round_timer_armed, s.period_timer_armed, s.kept,
    s.arrivals, s.empty_periods, s.late, s.dropped, s.rejected, s.learner_progressed,
    s.event_seq, s.now, *s.members);
  if constexpr (Archive::loading) {
    const std::string wrong = check_server_state(s);
    if (!wrong.empty()) throw std::runtime_error(wrong);
  }
}

}  // namespace

std::string check_server_delivery(const caf::message& payload) {
  if (payload.match_elements<report>() || payload.match_elements<kickoff>() ||
      payload.match_elements<timer>() || payload.match_elements<agent_done>() ||
      payload.match_elements<membership_notice>())
    return {};
  return "a payload the server cannot take";
}

std::string check_server_state(const ServerState& s) {
  const int N = num_agents(s);
  const int dead_after = s.shared->policy.dead_after_missed;
  if (s.round < 0) return "round " + std::to_string(s.round) + " < 0";
  if (s.stopped && s.open) return "stopped, yet a round is open";
  for (const auto& [name, count] : {std::pair{"arrivals", s.arrivals}, std::pair{"late", s.late},
                                    std::pair{"dropped", s.dropped}, std::pair{"rejected", s.rejected}})
    if (count < 0) return std::string(name) + " " + std::to_string(count) + " < 0";
  // More than dead_after_missed empty periods in a row never happen (the period timer is no
  // longer armed); a count below 0 would idle for ever.
  if (s.empty_periods < 0 || s.empty_periods > dead_after)
    return "empty periods " + std::to_string(s.empty_periods) + " out of [0, " +
           std::to_string(dead_after) + "]";
  if (!(s.now >= 0.0 && std::isfinite(s.now))) return "clock " + std::to_string(s.now) + " is not finite and >= 0";
  if (s.kept.size() != static_cast<std::size_t>(N))
    return "reports kept for " + std::to_string(s.kept.size()) + " agents, the scenario has " +
           std::to_string(N);
  const std::string members = s.members->check(N, dead_after);
  if (!members.empty()) return members;
  for (int n = 0; n < N; ++n) {
    if (s.kept[n].empty() == s.members->contributed(n))
      return "agent " + std::to_string(n) + ": its kept reports disagree with its contribution flag";
    for (const KeptReport& k : s.kept[n]) {
      if (k.round < 0 || k.round > s.round)
        return "agent " + std::to_string(n) + ": a report kept for round " + std::to_string(k.round) +
               ", out of [0, " + std::to_string(s.round) + "]";
      if (k.omega.size() != s.shared->config.features || !k.omega.allFinite() ||
          k.omega.norm() > max_report_norm)
        return "agent " + std::to_string(n) + ": a kept report of another dimension than " +
               std::to_string(s.shared->config.features) + ", not finite or too large";
    }
  }
  return {};
}

namespace {

/// Runs `body(done)`, answering the network's delivery once `done` is called, with what the
/// server sent until then (actors/outbox.hpp).
template <class Body>
caf::result<caf::ok_atom> handle(self_ptr self, double now, Body body) {
  auto& s = self->state;
  s.now = now;
  return handle_delivery(self, s.box, s.shared->network, std::move(body));
}

}  // namespace

caf::behavior server_actor(caf::stateful_actor<ServerState>* self,
                           std::shared_ptr<const ServerShared> shared) {
  fail_loudly(self, "server");
  auto& s = self->state;
  s.shared = std::move(shared);
  const auto& cfg = s.shared->config;
  const int N = cfg.agents;
  s.policy = policy::make_round_policy(s.shared->policy);
  if (cfg.uses_server()) s.de.emplace(cfg.server_config(), s.shared->assignment, cfg.features);
  s.members.emplace(N, s.shared->policy.dead_after_missed);
  if (s.shared->log_states) report_presumptions(self);
  s.kept.assign(N, {});
  return {
      // A report first: CAF 0.17 tries the handlers in order (actors/network.cpp).
      [self](const report& r, virtual_time vt) {
        return handle(self, vt.seconds, [self, &r](auto done) {
          auto& s = self->state;
          if (s.stopped) return done();
          if (const char* why = invalid(s, r)) {
            log_reject(self, r, why);
            return done();
          }
          const int n = static_cast<int>(r.agent);
          members(s).heard_from(n);  // it is alive after all
          if (n < s.shared->config.learners() && r.round >= 1) s.learner_progressed = true;
          s.empty_periods = 0;
          arm_round_timer(self);
          arm_period_timer(self);
          apply(self, r);
          check_complete(self, done);
        });
      },
      [self](kickoff, virtual_time vt) {
        return handle(self, vt.seconds, [self](auto done) {
          auto& s = self->state;
          if (fbo::traits(s.shared->config.algorithm).server == fbo::ServerKind::none) {
            s.stopped = true;  // standard TS agents never talk to the server
            return done();
          }
          open_round(self);
          arm_period_timer(self);
          done();
        });
      },
      [self](const timer& tm, virtual_time vt) {
        return handle(self, vt.seconds, [self, tm](auto done) {
          auto& s = self->state;
          if (s.stopped) return done();
          if (tm.tag == deadline_tag && s.open && tm.round == s.round) {
            s.round_timer_armed = false;
            const Membership& m = members(s);
            // Idle (nobody expected, nothing kept): no round to close; a revived agent's
            // report arms the timer again.
            if (m.expected_count() == 0 && m.contributors() == 0) return done();
            return close_round(self, done);
          }
          if (tm.tag == period_tag) {
            s.period_timer_armed = false;
            // An empty period is nobody's miss (the server cannot tell a crashed agent from
            // one still computing); it only counts toward the server idling.
            const bool empty = !s.open || members(s).contributors() == 0;
            s.empty_periods = empty ? s.empty_periods + 1 : 0;
            arm_period_timer(self);
            if (!empty) return close_round(self, done);
            return check_complete(self, done);
          }
          done();
        });
      },
      [self](const agent_done& d, virtual_time vt) {
        return handle(self, vt.seconds, [self, d](auto done) {
          auto& s = self->state;
          if (members(s).valid(d.agent)) {
            members(s).mark_done(static_cast<int>(d.agent));
            if (static_cast<int>(d.agent) < s.shared->config.learners()) s.learner_progressed = true;
          }
          check_complete(self, done);
        });
      },
      [self](const membership_notice& m, virtual_time vt) {
        return handle(self, vt.seconds, [self, m](auto done) {
          auto& s = self->state;
          if (members(s).valid(m.agent)) members(s).notice(static_cast<int>(m.agent), m.alive);
          // An agent back up is expected again: a round opened while nobody was expected has
          // no deadline yet, and the agent, which missed its broadcast, waits for the next one.
          arm_round_timer(self);
          check_complete(self, done);
        });
      },
      [self](caf::get_atom) { return unfinished_reason(self->state); },
      [self](save_atom) {
        return save_state(self->context(), [self](auto& a) { server_fields(a, self->state); });
      },
      [self](restore_atom, const std::vector<char>& bytes) {
        return restore_state(self->context(), bytes, "server",
                             [self](auto& a) { server_fields(a, self->state); });
      },
  };
}

}  // namespace fedsim::actors
