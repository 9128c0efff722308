#include "actors/policy/liveness.hpp"

#include <cmath>

#include "actors/policy/registry.hpp"

namespace fedsim::actors::policy {

std::vector<std::string> liveness_warnings(const scenario::ScenarioConfig& config) {
  const scenario::PolicyConfig& p = config.policy;
  const scenario::NetworkConfig& net = config.world.network;
  const auto round_policy = make_round_policy(p);
  if (!round_policy->agents_wait() || std::isfinite(round_policy->round_wait()) ||
      std::isfinite(net.detection_delay))
    return {};
  std::string lost;
  for (std::size_t i = 0; i < net.crashes.size() && lost.empty(); ++i)
    if (!std::isfinite(net.crashes[i].recover))
      lost = "world.network.crashes[" + std::to_string(i) + "] never recovers";
  for (std::size_t i = 0; i < net.partitions.size() && lost.empty(); ++i)
    if (!std::isfinite(net.partitions[i].end))
      lost = "world.network.partitions[" + std::to_string(i) + "] never ends";
  if (lost.empty()) return {};
  const std::string key = round_policy->round_wait_key();
  return {"policy '" + name_of(p.kind) + "' with " + key +
          " = inf may never close a round: " + lost +
          " and world.network.detection_delay = inf (the server is never told); the run "
          "will end with completed = false. Set a finite " + key + " or detection_delay."};
}

}  // namespace fedsim::actors::policy
