#include "actors/conductor.hpp"

#include <chrono>

#include "actors/failure.hpp"

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<ConductorState>*;

/// Stops every member, tells the driver and quits.
void end(self_ptr self) {
  const ConductorSetup& st = self->state.setup;
  stop_members(self, st.agents, {st.network, st.server, st.recorder, st.accountant},
               st.out->failure);
  self->send(st.driver, caf::ok_atom_v);
  self->quit();
}

/// The reason `who` died with, if its down message came (null otherwise).
const caf::error* down_reason(const ConductorState& s, const caf::actor_addr& who) {
  for (const auto& [addr, reason] : s.down)
    if (addr == who) return &reason;
  return nullptr;
}

/// Ends the run once every result asked for has come: the first failure in their order is
/// the run's. A receiver that was down is named by its down message, waited for up to 10 s.
void maybe_end(self_ptr self) {
  auto& s = self->state;
  if (s.pending > 0) return;
  for (std::size_t k = 0; k < s.errors.size(); ++k) {
    const caf::error& e = s.errors[k];
    if (!e) continue;
    s.setup.out->failure = describe_failure(e);
    if (e == caf::sec::request_receiver_down) {
      const caf::error* reason = down_reason(s, s.askee[k]);
      if (!reason && !s.timed_out) {
        if (!s.waiting_for_down)
          self->delayed_send(self, std::chrono::seconds(10), caf::error{});
        s.waiting_for_down = true;
        return;
      }
      if (reason && *reason) s.setup.out->failure = describe_failure(*reason);
    }
    break;
  }
  end(self);
}

/// Asks `dest` for result number `k` (its place in ConductorState::errors); `take` keeps it.
template <class T, class Take, class... Ts>
void ask(self_ptr self, std::size_t k, const caf::actor& dest, Take take, Ts&&... xs) {
  auto& s = self->state;
  ++s.pending;
  s.askee[k] = dest.address();
  self->request(dest, caf::infinite, std::forward<Ts>(xs)...)
      .then(
          [self, take](T& x) {
            take(*self->state.setup.out, x);
            --self->state.pending;
            maybe_end(self);
          },
          [self, k](caf::error& e) {
            self->state.errors[k] = std::move(e);
            --self->state.pending;
            maybe_end(self);
          });
}

/// The network is done: the recorder's summary (its files written), the server's reason, the
/// accountant's totals, all asked at once.
void ask_results(self_ptr self) {
  const ConductorSetup& st = self->state.setup;
  ask<finish_summary>(
      self, 0, st.recorder, [](ConductedRun& o, finish_summary& f) { o.summary = std::move(f); },
      finish_atom::value, st.out_dir, st.events, st.learners, st.iterations, st.dimension);
  ask<std::string>(
      self, 1, st.server, [](ConductedRun& o, std::string& why) { o.reason = std::move(why); },
      caf::get_atom::value);
  if (st.accountant) {
    ask<privacy_status>(
        self, 2, st.accountant, [](ConductedRun& o, privacy_status& p) { o.spent = p; },
        caf::get_atom::value);
    ask<agent_privacy>(
        self, 3, st.accountant,
        [](ConductedRun& o, agent_privacy& p) { o.per_agent = std::move(p); },
        agents_atom::value);
  }
}

}  // namespace

caf::behavior conductor_actor(caf::stateful_actor<ConductorState>* self, ConductorSetup setup) {
  fail_loudly(self, "conductor");
  auto& s = self->state;
  s.setup = std::move(setup);
  // The recorder and the accountant are asked for results at the end; if one has died, the
  // answer is "receiver down" and the reason is in its down message. A network that dies ends
  // the run (it ends the run itself when any other member dies).
  for (const auto& a : {s.setup.network, s.setup.recorder, s.setup.accountant})
    if (a) self->monitor(a);
  self->set_down_handler([self](caf::down_msg& d) {
    auto& s = self->state;
    s.down.emplace_back(d.source, d.reason);
    if (d.source == s.setup.network && !s.network_done) {
      s.network_done = true;
      s.setup.out->failure =
          d.reason ? describe_failure(d.reason) : "network: stopped before the run ended";
      return end(self);
    }
    if (s.waiting_for_down) maybe_end(self);
  });
  // Not a request: the network answers with an ordinary message (its totals, or the error a
  // member failed with), and a network that dies instead is seen by its down message.
  self->send(s.setup.network, run_atom::value);
  return {
      [self](std::uint64_t sent, std::uint64_t delivered, std::uint64_t dropped,
             std::uint64_t duplicated, std::uint64_t corrupted, std::uint64_t bytes,
             double final_time, double lateness_median, double lateness_p99,
             std::uint64_t settled, std::string& stopped) {
        auto& s = self->state;
        s.network_done = true;
        s.setup.out->stopped = std::move(stopped);
        s.setup.out->network = {sent,  delivered,  dropped,         duplicated,   corrupted,
                                bytes, final_time, lateness_median, lateness_p99, settled};
        ask_results(self);
        maybe_end(self);
      },
      [self](caf::error& e) {
        auto& s = self->state;
        if (!s.network_done) {  // the network ended the run with a member's failure
          s.network_done = true;
          s.setup.out->failure = describe_failure(e);
          return end(self);
        }
        // The 10 s wait for a down message is over (maybe_end): the error stays unnamed.
        s.timed_out = true;
        maybe_end(self);
      },
      [self](checkpoint_atom, std::int64_t rounds, double time, std::int32_t signal) {
        self->send(self->state.setup.driver, checkpoint_atom::value, rounds, time, signal);
      },
  };
}

}  // namespace fedsim::actors
