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

}  // namespace fedsim::actors
