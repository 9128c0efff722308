#pragma once
/// The scenario keys of the network ([world.network] and its link model) that code outside the
/// loader names in messages: the liveness warnings (actors/policy/liveness.cpp) and the loop
/// driver's refusals (tools/fedsim/loop_driver.cpp). Each is spelled once, here: the schema
/// (scenarios/schema_fields.cpp) declares these fields with these names (layers depend in one
/// direction, scenarios -> actors, as for actors/policy/keys.hpp).
#include <string>

namespace fedsim::actors::network_keys {

constexpr const char* world = "world";
constexpr const char* network = "network";
// The link model (also under groups[]).
constexpr const char* compute = "compute";
constexpr const char* uplink = "uplink";
constexpr const char* downlink = "downlink";
constexpr const char* bandwidth = "bandwidth";
constexpr const char* drop = "drop";
constexpr const char* loss = "loss";
constexpr const char* duplicate = "duplicate";
// [world.network] itself.
constexpr const char* groups = "groups";
constexpr const char* crashes = "crashes";
constexpr const char* partitions = "partitions";
constexpr const char* availability_file = "availability_file";
constexpr const char* detection_delay = "detection_delay";
constexpr const char* malformed = "malformed";
constexpr const char* malformed_rate = "rate";  ///< under malformed

/// "world.network." + name ("world.network.crashes").
inline std::string full(const char* name) {
  return std::string(world) + "." + network + "." + name;
}

}  // namespace fedsim::actors::network_keys
