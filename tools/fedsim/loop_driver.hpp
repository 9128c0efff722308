#pragma once
/// The drivers of `fedsim run --driver actors|loop` (and `fedsim sweep --driver`): the actor
/// federation in virtual time, or the engine's plain synchronous loop from the same scenario
/// file, which the algorithm's kind runs (AlgorithmKind::loop; actors/algorithms/loop_run.hpp
/// says what each family's loop writes and what it cannot know).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "actors/algorithms/loop_run.hpp"
#include "actors/federation.hpp"

namespace fedsim::cli {

enum class Driver { actors, loop };

/// "actors" or "loop"; anything else is a UsageError naming --driver and the allowed values.
Driver parse_driver(const std::string& name);
std::string to_string(Driver driver);

/// A driver's result: the run's, and what only the loop counts (absent for the actors, whose
/// result does not carry it): Fed-PNE's communication, an algorithm's own summary sections.
using DriverResult = actors::algorithms::LoopRun;

/// Throws a UsageError (one line naming the key) when `driver` cannot honour `config`: the
/// actors do not run the algorithms whose kind says so (AlgorithmKind::actors: HCT, the
/// baselines); the loop has no clock, so no run.time =
/// "wall" (docs/wall-clock.md); it runs only a perfect network (no
/// delays, faults, groups, crashes, partitions, availability trace or malformed payloads)
/// under policy.kind = "sync", and no privacy.budget for a private algorithm (the loop releases
/// every round).
void check_driver(const scenario::ScenarioConfig& config, Driver driver);

/// Runs `config` (validated, accepted by check_driver) with `driver`, writing its files into
/// options.out_dir (the actors call options.observer; the loop ignores options.threads, and
/// calls only the observer's `pull`, for a centralised learner's progress: a pull_event of
/// client 0 every hundredth of the budget). The actors run in `system` when given (options.threads is then
/// the system's), else in an actor system of their own.
DriverResult run_with_driver(const scenario::ScenarioConfig& config,
                             const actors::RunOptions& options, Driver driver,
                             actors::FederationSystem* system = nullptr);

/// The loop driver alone: runs `config` and writes its files into `dir` (created); a
/// centralised learner reports its progress to observer->pull when given.
DriverResult run_loop(const scenario::ScenarioConfig& config, const std::filesystem::path& dir,
                      const actors::RunObserver* observer = nullptr);

}  // namespace fedsim::cli
