#pragma once
/// `fedsim sweep` as a function, for the command and for its aliases (`fedsim xarmed`).
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedsim::cli {

/// The options of `fedsim sweep` (see its --help).
struct SweepOptions {
  std::string scenario;
  std::vector<std::string> grid;
  int seeds = 1;
  std::vector<long long> seed_list;
  int jobs = 1;
  std::string out;
  std::vector<std::string> overrides;
  int threads = 1;
  bool quiet = false;
  std::string driver = "actors";
  std::string max_memory;  ///< --max-memory SIZE | none; empty: the machine's memory
  std::string max_work;    ///< --max-work TIME | none; empty: 24 CPU-hours
  /// The scenario's TOML text, when it is not read from the file `scenario` (which then only
  /// names it in messages and resolves its relative paths): the Python module's scenarios.
  std::optional<std::string> scenario_text;
  /// Set to non-zero (a signal number) from anywhere: no further run starts (those running
  /// finish), and run_sweep throws SweepInterrupted. Null for the command.
  const std::atomic<int>* interrupt = nullptr;
  /// Print the result line on stdout (the command); the Python module returns the table.
  bool result_line = true;
};

/// A sweep stopped by SweepOptions::interrupt: the finished runs are kept, and the same sweep
/// run again skips them.
struct SweepInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs the sweep: every run in its folder, sweep_runs.csv and sweep.csv, one line on stdout.
/// Throws UsageError for bad options or scenario values, std::runtime_error if a run failed.
void run_sweep(const SweepOptions& options);

}  // namespace fedsim::cli
