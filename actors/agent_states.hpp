#pragma once
/// The agents' state changes a network plan holds (crashes and recoveries, availability,
/// partitions, persistent stragglers), as a list in time order: the network sends each to the
/// recorder as its clock passes the time (agent_state_event, for RunObserver::agent and the live
/// stream), when an observer asked for them.
#include <vector>

#include "actors/messages.hpp"
#include "actors/network_plan.hpp"

namespace fedsim::actors {

/// Sorted by (time, agent), and within one agent and time in the plan's order of cause
/// (straggling, then offline/online, crashed/recovered, partitioned/healed).
std::vector<agent_state_event> agent_state_schedule(const NetworkPlan& plan);

/// A server's presumptions (its Membership's presumed-dead flag turning on or off) to the
/// recorder as presumed_dead / revived at the server's time: both servers' state has `members`,
/// `now` and `shared->recorder`.
template <class Self>
void report_presumptions(Self* self) {
  self->state.members->on_presumed_dead([self](int n, bool dead) {
    agent_state_event e;
    e.time = self->state.now;
    e.agent = n;
    e.state = dead ? "presumed_dead" : "revived";
    self->send(self->state.shared->recorder, std::move(e));
  });
}

}  // namespace fedsim::actors
