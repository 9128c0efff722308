#pragma once
/// A new run of `fedsim run` (not resumed) as library functions, in the order the command
/// takes them: the checks before anything is written, then the run staged in a temporary
/// folder and moved into place when it completes. `fedsim run` (run_command.cpp) and the Python
/// module's `fedsim.run` (python/, docs/python.md) both call them, so a run from Python writes
/// the files the command writes.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "actors/federation.hpp"
#include "scenarios/work.hpp"
#include "tools/fedsim/loop_driver.hpp"

namespace fedsim::cli {

/// Refuses (UsageError) a run whose estimated memory (scenarios/resources.hpp) exceeds
/// `max_memory` (--max-memory SIZE | none), or the machine's physical memory when it is empty.
void check_run_memory(const scenario::ScenarioConfig& config, const std::string& max_memory);

/// Refuses (UsageError) a run whose estimated CPU work (scenarios/work.hpp) exceeds `max_work`
/// (--max-work TIME | none), or 24 CPU-hours when it is empty. Returns the estimate.
scenario::WorkEstimate check_run_work(const scenario::ScenarioConfig& config,
                                      const std::string& max_work);
/// The estimate's line on stderr ("fedsim: the run's estimated work: about ...", `what`: "the
/// run"), printed by a run that passed its checks when the estimate is above a minute: a long run
/// says so before it starts.
void print_work_estimate(const std::string& what, const scenario::WorkEstimate& work);

/// Refuses (UsageError naming --out) a folder holding something a new run of `config` must
/// not replace: a checkpoint (removed instead with `force`), a run of another configuration
/// (unless `force`), or files that are not a run's.
void check_fresh_folder(const std::filesystem::path& dir, const scenario::ScenarioConfig& config,
                        bool force);

/// The checks of a new run into `dir` (locked by the caller) with `driver`: the driver can run
/// `config` (check_driver), --checkpoint-every goes with it, and the folder (check_fresh_folder).
/// Returns the configuration hash of the other run `force` replaces there ("" when none), for
/// the checkpoints' header.
std::string check_fresh_run(const scenario::ScenarioConfig& config, const std::filesystem::path& dir,
                            Driver driver, std::int64_t checkpoint_every, bool force);

/// Runs `config` into `dir`: stages a temporary folder next to it (StagingFolder) holding
/// config.resolved.toml, calls `run` with `options` whose out_dir is that folder (the caller's
/// body: the driver, with its live view and checkpoints), writes summary.json of its result,
/// moves the staged run into `dir` and removes the folder's checkpoint. When `run` throws,
/// the staged folder is removed and `dir` is left as it was (a checkpoint `run` saved there
/// stays). Returns `run`'s result.
DriverResult run_staged(const scenario::ScenarioConfig& config, const std::filesystem::path& dir,
                        Driver driver, actors::RunOptions options,
                        const std::function<DriverResult(actors::RunOptions&)>& run);

}  // namespace fedsim::cli
