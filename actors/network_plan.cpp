#include "actors/network_plan.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

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

namespace {
void read_availability(const std::string& file, std::vector<AgentPlan>& agents) {
  std::ifstream in(file);
  if (!in) throw std::invalid_argument(file + ": cannot open availability trace");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || (number == 1 && line.find("agent") != std::string::npos)) continue;
    std::stringstream ss(line);
    std::string a, s, e;
    if (!std::getline(ss, a, ',') || !std::getline(ss, s, ',') || !std::getline(ss, e))
      throw std::invalid_argument(file + ":" + std::to_string(number) +
                                  ": expected 'agent,start,end'");
    try {
      const int agent = std::stoi(a);
      const double start = std::stod(s), end = std::stod(e);
      if (agent < 0 || agent >= static_cast<int>(agents.size()))
        throw std::invalid_argument("agent id out of range");
      if (!(start < end) || start < 0) throw std::invalid_argument("need 0 <= start < end");
      agents[agent].available.push_back({start, end});
    } catch (const std::exception& err) {
      throw std::invalid_argument(file + ":" + std::to_string(number) + ": " + err.what());
    }
  }
}
}  // namespace

NetworkPlan make_network_plan(const scenario::ScenarioConfig& config) {
  const auto& net = config.world.network;
  const int N = config.world.agents;
  NetworkPlan plan;
  plan.seed = config.seed;
  plan.malformed = net.malformed;
  plan.detection_delay = net.detection_delay;
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
  if (!net.availability_file.empty()) read_availability(net.availability_file, plan.agents);
  return plan;
}

}  // namespace fedsim::actors
