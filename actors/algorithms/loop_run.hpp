#pragma once
/// An algorithm's loop driver (`fedsim run --driver loop`, AlgorithmKind::loop): the engine's
/// plain synchronous loop run from a scenario, writing the run folder's files with the actor
/// run's columns. What it is given and what it gives back.
///
/// Values the loop cannot know follow one convention: the loop has no clock, so every `time`
/// is 0 (and summary.json's virtual times); it has no network, so every message count is 0.
/// Per family (the files each kind's loop writes are said in its file):
///  - FBO: observations.csv (the same rows as the actors on a perfect network under sync) and
///    rounds.csv (one row per server round, as the actors write it; aggregate_norm nan);
///  - Fed-PNE, DP-Fed-PNE: observations.csv (one row per client and phase), phases.csv;
///  - the centralised X-armed learners (HCT, KernelTS, GP-BO): observations.csv in the pull
///    layout, one row per round of the learner as client 0 (phase = step = t);
///  - the federated X-armed baselines (Fed1-UCB, FN-UCB): observations.csv in the pull layout,
///    rows per client (Fed1-UCB: one per phase; FN-UCB: every ceil(T / 100) rounds), and
///    their communication counts in summary.json's section named after them.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/algorithms/parameters.hpp"
#include "actors/federation.hpp"

namespace fedsim::actors::algorithms {

/// Fed-PNE's (and DP-Fed-PNE's) communication as the engine loop counts it
/// (xarmed::FedPneResult): every client receives each broadcast and sends each report.
struct Communication {
  std::int64_t rounds = 0;                     ///< phases broadcast (the last one may be cut)
  std::int64_t nodes_sent_per_client = 0;      ///< sum of |K^p| over reported phases
  std::int64_t nodes_received_per_client = 0;  ///< sum of |K^p| over broadcasts
};

/// An algorithm's own entries of summary.json: the object `name` with these members.
struct SummarySection {
  std::string name;
  std::vector<std::pair<std::string, ParamValue>> entries;
};

struct LoopInput {
  const scenario::ScenarioConfig& config;  ///< validated
  std::filesystem::path dir;               ///< the run folder (exists)
  /// Progress, where the loop reports any (the centralised learners: a pull_event of client
  /// 0 every hundredth of the budget); may be null.
  const RunObserver* observer = nullptr;
};

struct LoopRun {
  RunResult run;
  std::optional<Communication> communication;
  std::vector<SummarySection> summary;
};

/// The loops shared by a family's kinds (fbo_kind sets the FBO one).
LoopRun fbo_loop(const LoopInput& input);
LoopRun fed_pne_loop(const LoopInput& input);

/// A centralised learner's records in the pull layout (observations.csv): one row per round t
/// = 1..T with the cumulative regret after it; `regret_curve[t-1]`.
void write_central_pulls(const std::filesystem::path& file, const std::vector<double>& regret_curve);

/// The progress a centralised learner reports: observer->pull(client 0, t, t, 0, regret), or
/// an empty function when nobody observes.
std::function<void(std::int64_t, double)> central_progress(const RunObserver* observer);

}  // namespace fedsim::actors::algorithms
