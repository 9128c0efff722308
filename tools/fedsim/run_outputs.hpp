#pragma once
/// The files `fedsim run` writes around a federation run (config.resolved.toml before it,
/// summary.json after it), shared by `fedsim run` and `fedsim sweep`.
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "tools/fedsim/loop_driver.hpp"

namespace fedsim::cli {

/// The content of summary.json, one schema for both drivers: the driver, final regret and the
/// regret curve, eps and delta, message counts, virtual and wall time, seed, version. A loop
/// run has no network and no clock: its message counts and virtual times are 0. A Fed-PNE or
/// DP-Fed-PNE run of the loop also has "communication" (rounds, nodes_sent_per_client,
/// nodes_received_per_client: DriverResult::communication); the actors' runs leave it out.
/// "clock" is the run's clock: {"time": "virtual"}, or in wall-clock time {"time": "wall",
/// "time_scale", "injected_compute", "delivery_lateness_median_s", "delivery_lateness_p99_s"}
/// (null when nothing was delivered); virtual_time and virtual_time_last_event are then model
/// seconds of the wall clock (docs/wall-clock.md).
/// "warnings" holds the liveness warnings of the configuration (actors/policy/liveness.hpp:
/// a round that can never close, a fedbuff buffer that can never fill), when there are any.
nlohmann::json run_summary(const scenario::ScenarioConfig& config, const DriverResult& result,
                           Driver driver);

/// Writes config.resolved.toml (every key, defaults included) into `dir`, creating it.
void write_resolved_config(const std::filesystem::path& dir, const scenario::ScenarioConfig& config);

/// Writes summary.json into `dir` atomically (a temporary file renamed over it): written last,
/// its presence marks a complete run.
void write_summary(const std::filesystem::path& dir, const scenario::ScenarioConfig& config,
                   const DriverResult& result, Driver driver);

/// The summary.json of a complete run in `dir`, or nothing when it is missing or unreadable.
std::optional<nlohmann::json> read_summary(const std::filesystem::path& dir);

}  // namespace fedsim::cli
