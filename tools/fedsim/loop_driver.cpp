#include "tools/fedsim/loop_driver.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include "actors/network_keys.hpp"
#include "actors/run_keys.hpp"
#include "scenarios/did_you_mean.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
namespace {

using scenario::Distribution;
using scenario::LinkModel;
using scenario::ScenarioConfig;

bool no_delay(const Distribution& d) {
  return d.kind == Distribution::Kind::constant && d.value == 0.0;
}

/// The key of [world.network]'s link that makes it imperfect, or "".
std::string imperfect_link_key(const LinkModel& link) {
  namespace k = actors::network_keys;
  if (!no_delay(link.compute)) return k::full(k::compute);
  if (!no_delay(link.uplink)) return k::full(k::uplink);
  if (!no_delay(link.downlink)) return k::full(k::downlink);
  if (std::isfinite(link.bandwidth)) return k::full(k::bandwidth);
  if (link.drop != 0.0) return k::full(k::drop);
  if (!link.loss.kind.empty()) return k::full(k::loss);
  if (link.duplicate != 0.0) return k::full(k::duplicate);
  return "";
}

/// The first key that keeps `config`'s network from being perfect, or "".
std::string imperfect_network_key(const ScenarioConfig& config) {
  namespace k = actors::network_keys;
  const auto& n = config.world.network;
  if (auto key = imperfect_link_key(n.link); !key.empty()) return key;
  if (!n.groups.empty()) return k::full(k::groups);
  if (!n.crashes.empty()) return k::full(k::crashes);
  if (!n.partitions.empty()) return k::full(k::partitions);
  if (!n.availability_file.empty()) return k::full(k::availability_file);
  if (n.malformed.rate != 0.0) return k::full(k::malformed) + "." + k::malformed_rate;
  return "";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Driver parse_driver(const std::string& name) {
  if (name == "actors") return Driver::actors;
  if (name == "loop") return Driver::loop;
  throw UsageError("--driver: unknown value '" + name + "'" +
                   scenario::did_you_mean(name, {"actors", "loop"}) + " (allowed: actors, loop)");
}

std::string to_string(Driver driver) {
  switch (driver) {
    case Driver::actors: return "actors";
    case Driver::loop: return "loop";
  }
  throw std::logic_error("internal error: a driver without a name");
}

void check_driver(const ScenarioConfig& config, Driver driver) {
  switch (driver) {
    case Driver::actors:
      if (const auto& kind = scenario::algorithm_kind(config); !kind.actors)
        throw UsageError("key 'algorithm.name': \"" + kind.name +
                         "\" runs with --driver loop only (the actors run " +
                         actors::algorithms::joined(actors::algorithms::names_where(
                             [](const actors::algorithms::AlgorithmKind& k) { return k.actors; })) +
                         ")");
      return;
    case Driver::loop:
      if (config.run.wall())
        throw UsageError("key '" + actors::run_keys::full(actors::run_keys::time) +
                         "': --driver loop has no clock (it runs no network and charges no "
                         "time), so it cannot run in wall-clock time; use --driver actors, or "
                         "run.time = \"virtual\"");
      if (config.policy.kind != scenario::PolicyConfig::Kind::sync)
        throw UsageError("key 'policy.kind': --driver loop runs policy.kind = \"sync\" only, got \"" +
                         scenario::name_of(config.policy.kind) + "\" (use --driver actors)");
      if (!config.xarmed.enabled && config.algorithm.is_private() &&
          std::isfinite(config.privacy.budget))
        throw UsageError("key 'privacy.budget': --driver loop has no privacy budget (it releases "
                         "every round; use --driver actors)");
      if (!config.xarmed.enabled && config.algorithm.is_private() &&
          std::isfinite(config.privacy.agent_budget))
        throw UsageError("key 'privacy.agent_budget': --driver loop has no per-agent privacy "
                         "filter (every agent takes part in every release; use --driver actors)");
      if (const std::string key = imperfect_network_key(config); !key.empty())
        throw UsageError("key '" + key + "': --driver loop runs a perfect network only (no "
                         "delays, faults, groups, crashes, partitions or availability trace; "
                         "use --driver actors)");
      return;
  }
}

DriverResult run_loop(const ScenarioConfig& config, const std::filesystem::path& dir,
                      const actors::RunObserver* observer) {
  check_driver(config, Driver::loop);
  const auto start = std::chrono::steady_clock::now();
  std::filesystem::create_directories(dir);
  DriverResult result = scenario::algorithm_kind(config).loop({config, dir, observer});
  result.run.wall_time = seconds_since(start);
  return result;
}

DriverResult run_with_driver(const ScenarioConfig& config, const actors::RunOptions& options,
                             Driver driver, actors::FederationSystem* system) {
  check_driver(config, driver);
  switch (driver) {
    case Driver::actors:
      return {system ? actors::run_federation(system->get(), config, options)
                     : actors::run_federation(config, options),
              std::nullopt,
              {}};
    case Driver::loop: return run_loop(config, options.out_dir, &options.observer);
  }
  throw std::logic_error("internal error: an unknown driver");
}

}  // namespace fedsim::cli
