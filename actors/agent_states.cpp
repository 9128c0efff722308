#include "actors/agent_states.hpp"

#include <algorithm>
#include <cmath>

namespace fedsim::actors {

std::vector<agent_state_event> agent_state_schedule(const NetworkPlan& plan) {
  std::vector<agent_state_event> out;
  auto add = [&out](double time, std::size_t n, const char* state) {
    if (!std::isfinite(time)) return;
    agent_state_event e;
    e.time = time;
    e.agent = static_cast<std::int32_t>(n);
    e.state = state;
    out.push_back(std::move(e));
  };
  for (std::size_t n = 0; n < plan.agents.size(); ++n) {
    const AgentPlan& a = plan.agents[n];
    if (a.link.speed_factor > 1.0) add(0.0, n, "straggling");
    if (!a.available.empty()) {
      // Offline outside the up-intervals (sorted, disjoint): from 0 to the first start, and
      // between one interval's end and the next one's start.
      double down_since = 0.0;
      for (const Interval& up : a.available) {
        if (up.start > down_since) {
          add(down_since, n, "offline");
          add(up.start, n, "online");
        }
        down_since = up.end;
      }
      add(down_since, n, "offline");
    }
    for (const CrashPlan& c : a.crashes) {
      add(c.time, n, "crashed");
      add(c.recover, n, "recovered");
    }
    for (const Interval& p : a.partitions) {
      add(p.start, n, "partitioned");
      add(p.end, n, "healed");
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return x.time != y.time ? x.time < y.time : x.agent < y.agent;
  });
  return out;
}

}  // namespace fedsim::actors
