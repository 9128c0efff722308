#pragma once
/// The scenario keys of the run's clock ([run]: actors/run_config.hpp, RunClockConfig) that
/// code outside the loader names in messages: the federation's and the CLI's refusals of
/// checkpoints in wall-clock time, the loop driver's refusal of a wall clock. Each is spelled
/// once, here: the schema (scenarios/schema_fields.cpp) declares these fields with these names
/// (layers depend in one direction, scenarios -> actors, as for actors/network_keys.hpp).
#include <string>

namespace fedsim::actors::run_keys {

constexpr const char* table = "run";
constexpr const char* time = "time";
constexpr const char* time_scale = "time_scale";
constexpr const char* injected_compute = "injected_compute";
constexpr const char* wall_horizon = "wall_horizon";
constexpr const char* max_consecutive_failures = "max_consecutive_failures";
constexpr const char* max_failure_rate = "max_failure_rate";

/// "run." + name ("run.time").
inline std::string full(const char* name) { return std::string(table) + "." + name; }

}  // namespace fedsim::actors::run_keys
