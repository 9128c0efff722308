#pragma once
/// `fedsim sweep` as a function, for the command and for its aliases (`fedsim xarmed`).
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
};

/// Runs the sweep: every run in its folder, sweep_runs.csv and sweep.csv, one line on stdout.
/// Throws UsageError for bad options or scenario values, std::runtime_error if a run failed.
void run_sweep(const SweepOptions& options);

}  // namespace fedsim::cli
