#include "actors/policy/liveness.hpp"

#include <cmath>

#include "actors/network_keys.hpp"
#include "actors/policy/keys.hpp"
#include "actors/policy/registry.hpp"
#include "engine/fbo/algorithm_traits.hpp"

namespace fedsim::actors::policy {
namespace {

/// Rounds that wait for agents the server never hears from again, with no timer to end them.
std::vector<std::string> stall_warnings(const scenario::ScenarioConfig& config,
                                        const RoundPolicy& round_policy) {
  const scenario::PolicyConfig& p = config.policy;
  const scenario::NetworkConfig& net = config.world.network;
  if (!round_policy.agents_wait() || std::isfinite(round_policy.round_wait()) ||
      std::isfinite(net.detection_delay))
    return {};
  std::string lost;
  for (std::size_t i = 0; i < net.crashes.size() && lost.empty(); ++i)
    if (!std::isfinite(net.crashes[i].recover))
      lost = network_keys::full(network_keys::crashes) + "[" + std::to_string(i) + "] never recovers";
  for (std::size_t i = 0; i < net.partitions.size() && lost.empty(); ++i)
    if (!std::isfinite(net.partitions[i].end))
      lost = network_keys::full(network_keys::partitions) + "[" + std::to_string(i) + "] never ends";
  if (lost.empty()) return {};
  const std::string key = keys::of(round_policy.round_wait_field());
  return {"policy '" + name_of(p.kind) + "' with " + key +
          " = inf may never close a round: " + lost +
          " and " + network_keys::full(network_keys::detection_delay) +
          " = inf (the server is never told); the run will end with completed = false. Set a "
          "finite " + key + " or " + network_keys::detection_delay + "."};
}

/// A round that closes only on more arrivals than the run can ever deliver.
std::vector<std::string> unreachable_count_warnings(const scenario::ScenarioConfig& config,
                                                    const RoundPolicy& round_policy) {
  const auto field = round_policy.arrivals_field();
  if (field == nullptr) return {};
  const long long most = max_reports(config);
  if (most == 0 || config.policy.*field <= most) return {};  // nothing sent: nothing to aggregate
  const std::string key = keys::of(field);
  const fbo::ReferenceConfig algo = scenario::reference_config(config);
  return {"policy '" + name_of(config.policy.kind) + "' with " + key + " = " +
          std::to_string(config.policy.*field) + " can never aggregate: the agents send at most " +
          std::to_string(most) + " reports in the whole run (" + std::to_string(algo.learners()) +
          " x " + std::to_string(algo.iterations) +
          ": one after the initial design and one after every iteration but the last" +
          (algo.has_peers() ? ", and one from each of the " +
                                  std::to_string(algo.agents - algo.learners()) + " peers"
                            : std::string()) +
          "); the run will complete with no aggregated round (rounds.csv empty, every agent on "
          "its own observations). Set " + key + " <= " + std::to_string(most) + "."};
}

}  // namespace

long long max_reports(const scenario::ScenarioConfig& config) {
  if (config.xarmed.enabled) return 0;  // Fed-PNE's phases close on every live client
  const fbo::ReferenceConfig algo = scenario::reference_config(config);
  if (!fbo::traits(algo.algorithm).sends_messages) return 0;
  const long long learners = algo.learners();
  return learners * algo.iterations + (algo.agents - learners);
}

std::vector<std::string> liveness_warnings(const scenario::ScenarioConfig& config) {
  const auto round_policy = make_round_policy(config.policy);
  std::vector<std::string> out = stall_warnings(config, *round_policy);
  for (std::string& w : unreachable_count_warnings(config, *round_policy)) out.push_back(std::move(w));
  return out;
}

}  // namespace fedsim::actors::policy
