#include "actors/network_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "actors/network_availability.hpp"
#include "engine/rng.hpp"

namespace fedsim::actors {

bool AgentPlan::crashed(double t) const {
  for (const auto& c : crashes)
    if (t >= c.time && t < c.recover) return true;
  return false;
}

double AgentPlan::next_available(double t) const {
  if (available.empty()) return t;
  double next = std::numeric_limits<double>::infinity();
  for (const auto& a : available) {
    if (a.contains(t)) return t;
    if (a.start > t) next = std::min(next, a.start);
  }
  return next;
}

bool AgentPlan::down(double t) const {
  if (crashed(t)) return true;
  if (available.empty()) return false;
  for (const auto& a : available)
    if (a.contains(t)) return false;
  return true;
}

bool AgentPlan::partitioned(double t) const {
  for (const auto& p : partitions)
    if (p.contains(t)) return true;
  return false;
}

std::vector<int> select_agents(const std::vector<int>& ids, double fraction, int num_agents,
                               std::uint64_t seed, const std::string& purpose, int index) {
  std::vector<int> out;
  if (!ids.empty()) {
    out = ids;
  } else if (fraction > 0) {
    std::vector<int> order(num_agents);
    std::iota(order.begin(), order.end(), 0);
    RandomStream rng(seed, purpose, index);
    for (int i = num_agents - 1; i > 0; --i)  // Fisher-Yates with a keyed stream
      std::swap(order[i], order[rng.uniform_index(i + 1)]);
    const int k = std::min(num_agents, static_cast<int>(std::ceil(fraction * num_agents - 1e-9)));
    out.assign(order.begin(), order.begin() + k);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::unique_ptr<faults::LossModel> make_loss_model(const scenario::LinkModel& link) {
  const std::string kind_name = link.loss.kind.empty() ? "bernoulli" : link.loss.kind;
  const faults::LossKind* kind = faults::find_loss_kind(kind_name);
  if (!kind) throw std::invalid_argument("unknown loss kind '" + kind_name + "'");
  const faults::LossParams params =
      link.loss.kind.empty() ? faults::LossParams{{"p", link.drop}} : link.loss.params;
  return kind->make(faults::complete_params(*kind, params, "loss"));
}

NetworkPlan make_network_plan(const scenario::ScenarioConfig& config) {
  const auto& net = config.world.network;
  const int N = config.world.agents;
  NetworkPlan plan;
  plan.seed = config.seed;
  plan.malformed = net.malformed;
  plan.detection_delay = net.detection_delay;
  plan.clock = {config.run.wall(), config.run.time_scale, config.run.injected_compute,
                config.run.wall_horizon};
  plan.agents.assign(N, AgentPlan{});
  for (auto& a : plan.agents) a.link = net.link;
  for (size_t g = 0; g < net.groups.size(); ++g)
    for (int n : select_agents(net.groups[g].agents, net.groups[g].fraction, N, config.seed,
                               "network.group", static_cast<int>(g)))
      plan.agents[n].link = net.groups[g].link;
  for (size_t c = 0; c < net.crashes.size(); ++c) {
    const auto& crash = net.crashes[c];
    for (int n : select_agents(crash.agents, crash.fraction, N, config.seed, "network.crash",
                               static_cast<int>(c)))
      plan.agents[n].crashes.push_back({crash.time, crash.recover, crash.keep_state});
  }
  for (size_t p = 0; p < net.partitions.size(); ++p) {
    const auto& part = net.partitions[p];
    for (int n : select_agents(part.agents, part.fraction, N, config.seed, "network.partition",
                               static_cast<int>(p)))
      plan.agents[n].partitions.push_back({part.start, part.end});
  }
  for (auto& a : plan.agents)
    std::sort(a.crashes.begin(), a.crashes.end(),
              [](const CrashPlan& x, const CrashPlan& y) { return x.time < y.time; });
  if (!net.availability_file.empty())
    for (const AvailabilityRecord& r : read_availability_file(net.availability_file, N))
      plan.agents[r.agent].available.push_back({r.start, r.end});
  for (auto& a : plan.agents) {
    using Kind = scenario::Distribution::Kind;
    const scenario::LinkModel& l = a.link;
    a.certain = l.loss.kind.empty() && l.drop == 0.0 && l.duplicate == 0.0 &&
                l.uplink.kind == Kind::constant && l.downlink.kind == Kind::constant &&
                !(plan.malformed.rate > 0.0);
  }
  return plan;
}

}  // namespace fedsim::actors
