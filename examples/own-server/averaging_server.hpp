#pragma once
// A minimal server of one's own for fedsim's FTS-DE agents (actors/server_host.hpp): a
// synchronous round closes when every agent that has not finished has reported it, and the
// server broadcasts the plain mean of the vectors, the same for every sub-region column (no
// DE weights, no subsampling, no privacy). It prints each round as it closes when `print` is
// set. Used by examples/own-server/main.cpp and by fedsim's test of RunOptions::server_host.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/integrity.hpp"
#include "actors/messages.hpp"
#include "actors/server_host.hpp"

namespace own_server {

/// What the server saw, read by the program after the run.
struct Tally {
  int rounds_closed = 0;
  int reports = 0;
  int rejected = 0;  ///< not intact, wrong length, or for another round
};

struct State {
  fedsim::actors::ServerSlots slots;
  std::shared_ptr<Tally> tally;
  bool print = false;
  int round = 0;
  std::vector<std::vector<double>> inbox;  ///< this round's vector of each agent (empty: none)
  std::vector<bool> done;
};

inline caf::behavior averaging_server(caf::stateful_actor<State>* self,
                                      fedsim::actors::ServerSlots slots,
                                      std::shared_ptr<Tally> tally, bool print) {
  using namespace fedsim::actors;
  auto& s = self->state;
  s.slots = slots;
  s.tally = std::move(tally);
  s.print = print;
  s.inbox.assign(slots.agents, {});
  s.done.assign(slots.agents, false);
  // Closes the round once every agent still running has reported it.
  auto try_close = [self]() {
    auto& s = self->state;
    int waiting = 0, got = 0;
    for (int n = 0; n < s.slots.agents; ++n) {
      if (!s.inbox[n].empty()) ++got;
      else if (!s.done[n]) ++waiting;
    }
    if (waiting > 0 || got == 0) return;
    const int m = s.slots.features;
    std::vector<double> mean(m, 0.0);
    for (const auto& v : s.inbox)
      for (int i = 0; i < static_cast<int>(v.size()); ++i) mean[i] += v[i] / got;
    broadcast b;
    b.round = s.round;
    b.rows = m;
    b.cols = s.slots.regions;
    std::vector<double> joint;
    for (int p = 0; p < s.slots.regions; ++p) joint.insert(joint.end(), mean.begin(), mean.end());
    b.joint.data = std::make_shared<const std::vector<double>>(std::move(joint));
    const auto bytes = static_cast<std::uint64_t>(b.joint.size() * sizeof(double) + 16);
    const caf::message msg = caf::make_message(std::move(b));
    for (int n = 0; n < s.slots.agents; ++n)
      if (!s.done[n]) send_from_server(self, s.slots.network, static_cast<node_id>(n), msg, bytes);
    if (s.print) std::printf("round %d closed: mean of %d vectors\n", s.round, got);
    ++s.tally->rounds_closed;
    ++s.round;
    for (auto& v : s.inbox) v.clear();
  };
  return {
      [](kickoff, virtual_time) { return caf::ok_atom_v; },
      [self, try_close](const report& r, virtual_time) {
        auto& s = self->state;
        const bool ok = intact(r) && r.agent < static_cast<node_id>(s.slots.agents) &&
                        r.round == s.round &&
                        static_cast<int>(r.omega.size()) == s.slots.features;
        if (!ok) {
          ++s.tally->rejected;
        } else {
          ++s.tally->reports;
          s.inbox[r.agent] = r.omega;
          try_close();
        }
        return caf::ok_atom_v;
      },
      [self, try_close](const agent_done& d, virtual_time) {
        auto& s = self->state;
        if (d.agent < static_cast<node_id>(s.slots.agents)) s.done[d.agent] = true;
        try_close();
        return caf::ok_atom_v;
      },
      [](const membership_notice&, virtual_time) { return caf::ok_atom_v; },
      [](const timer&, virtual_time) { return caf::ok_atom_v; },
      [self](caf::get_atom) {
        return self->state.tally->rounds_closed > 0 ? std::string()
                                                     : std::string("no round closed");
      },
  };
}

}  // namespace own_server
