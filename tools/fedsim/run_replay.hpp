#pragma once
/// The live stream (docs/stream.md) of a finished run or sweep folder, rebuilt from its files,
/// for `fedsim dashboard DIR` and `fedsim report DIR`.
///
/// A run folder's lines come from config.resolved.toml (the start line, and the agents' state
/// changes of its network plan up to the run's end), observations.csv, rounds.csv (FBO) or
/// phases.csv (Fed-PNE), the faults of events.jsonl and summary.json (the end line), through
/// the same LiveRun as a live run. What the files do not hold is absent: the servers'
/// presumptions (presumed_dead, revived), and wall times (`wall` is null). The files' numbers
/// have 10 significant digits. Records of one time are ordered by round (iteration, phase),
/// then as in a live stream's wave.
/// A sweep folder's lines are its runs' (sweep_runs.csv, in its order), each line with `run`
/// (the run's folder) and `point` (that folder without its seed, the grid point).
#include <filesystem>
#include <string>
#include <vector>

namespace fedsim::cli {

/// A run folder (summary.json) or a sweep folder (sweep_runs.csv).
enum class FolderKind { run, sweep };

/// Which of the two `dir` is; throws UsageError (naming `what`, e.g. "DIR") for neither, or for
/// an unfinished run (no summary.json).
FolderKind finished_folder_kind(const std::filesystem::path& dir, const std::string& what);

/// Every line of the folder's stream, observation and pull lines included.
std::vector<std::string> replay_folder(const std::filesystem::path& dir);

}  // namespace fedsim::cli
