#pragma once
/// The drivers of `fedsim run --driver actors|loop` (and `fedsim sweep --driver`): the actor
/// federation in virtual time, or the engine's plain synchronous loop from the same scenario
/// file (fbo::run_reference for the FBO family, xarmed::run_fed_pne for Fed-PNE and
/// DP-Fed-PNE, xarmed::run_hct for HCT).
///
/// The loop driver writes the actor run's files with the actor run's columns:
///  - FBO: observations.csv (same rows as the actors on a perfect network under sync) and
///    rounds.csv (one row per server round, as the actors write it);
///  - Fed-PNE, DP-Fed-PNE: observations.csv (one row per client and phase) and phases.csv
///    (one row per completed phase);
///  - HCT: observations.csv, one row per evaluation (client 0, the central learner; phase =
///    step = t, HCT's round being one evaluation).
/// Values the loop cannot know follow one convention: the loop has no clock, so every `time`
/// is 0 (and summary.json's virtual times); it has no network, so every message count is 0;
/// rounds.csv's aggregate_norm (the norm of the broadcast vector, which the engine does not
/// expose) is nan. On a perfect network nothing is late, dropped or rejected, every agent is
/// alive, every round has all agents and every aggregate is released: those columns hold
/// exactly what the actors write. rounds.csv has a row per aggregation of the engine's DE server
/// (fts-de, dp-fts, dp-fts-de); for ts and fts, whose engine loop has no server, it holds the
/// header only (the actors' FTS server relays messages in rounds the loop does not have).
/// events.jsonl (the network's message log) is not written: there are no messages.
/// Fed-PNE's communication counts (phases broadcast, nodes per client received and sent) come
/// from the engine loop only (DriverResult::communication); the actors do not report them.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "actors/federation.hpp"

namespace fedsim::cli {

enum class Driver { actors, loop };

/// "actors" or "loop"; anything else is a UsageError naming --driver and the allowed values.
Driver parse_driver(const std::string& name);
std::string to_string(Driver driver);

/// Fed-PNE's (and DP-Fed-PNE's) communication as the engine loop counts it
/// (xarmed::FedPneResult): every client receives each broadcast and sends each report.
struct Communication {
  std::int64_t rounds = 0;                     ///< phases broadcast (the last one may be cut)
  std::int64_t nodes_sent_per_client = 0;      ///< sum of |K^p| over reported phases
  std::int64_t nodes_received_per_client = 0;  ///< sum of |K^p| over broadcasts
};

/// A driver's result: the run's, and what only the loop counts (absent for the actors, whose
/// result does not carry it, and for HCT, which does not communicate).
/// HCT's tree at the end of the run (summary.json's "hct").
struct HctTree {
  std::string variant;             ///< azar or pyxab (algorithm.hct_variant)
  std::size_t nodes = 0;           ///< stored (pyxab: orphans included)
  int depth = 0;
  std::int64_t re_expansions = 0;  ///< pyxab: inner nodes expanded again
};

struct DriverResult {
  actors::RunResult run;
  std::optional<Communication> communication;
  std::optional<HctTree> hct;
};

/// Throws a UsageError (one line naming the key) when `driver` cannot honour `config`: the
/// actors do not run HCT (algorithm.name = "hct"); the loop has no clock, so no run.time =
/// "wall" (docs/wall-clock.md); it runs only a perfect network (no
/// delays, faults, groups, crashes, partitions, availability trace or malformed payloads)
/// under policy.kind = "sync", and no privacy.budget for a private algorithm (the loop releases
/// every round).
void check_driver(const scenario::ScenarioConfig& config, Driver driver);

/// Runs `config` (validated, accepted by check_driver) with `driver`, writing its files into
/// options.out_dir (the actors call options.observer; the loop ignores options.threads, and
/// calls only the observer's `pull`, for HCT's progress: a pull_event of client 0 every
/// hundredth of the budget). The actors run in `system` when given (options.threads is then
/// the system's), else in an actor system of their own.
DriverResult run_with_driver(const scenario::ScenarioConfig& config,
                             const actors::RunOptions& options, Driver driver,
                             actors::FederationSystem* system = nullptr);

/// The loop driver alone: runs `config` and writes its files into `dir` (created); HCT reports
/// its progress to observer->pull when given.
DriverResult run_loop(const scenario::ScenarioConfig& config, const std::filesystem::path& dir,
                      const actors::RunObserver* observer = nullptr);

}  // namespace fedsim::cli
