#pragma once
/// Subcommands of the `fedsim` command line: each lives in its own file and registers itself
/// on the top-level CLI11 app.
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace fedsim::cli {

/// A bad argument or value: main() prints "fedsim: error: <what>" and exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A run that ended without being able to finish (its summary.json says "completed": false):
/// main() prints "fedsim: run did not complete: <what>" and exits with code 3.
struct IncompleteRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A run stopped at a checkpoint by a signal: main() prints "fedsim: interrupted: <what>" and
/// exits with `code` (128 + the signal's number, as a shell reports a signal).
struct RunStopped : std::runtime_error {
  RunStopped(const std::string& what, int exit_code) : std::runtime_error(what), code(exit_code) {}
  int code;
};

/// `fedsim privacy`: the privacy accountant as a calculator.
void add_privacy_command(CLI::App& app);
/// `fedsim run`: a scenario file run by a federation of actors or (--driver loop) the engine's loop.
void add_run_command(CLI::App& app);
/// `fedsim serve`: a run whose agents join from other processes (`fedsim agents`).
void add_serve_command(CLI::App& app);
/// `fedsim agents`: hosts some agents of a served run in this process.
void add_agents_command(CLI::App& app);
/// `fedsim reference`: alias of `fedsim run SCENARIO --driver loop` for the scenario its options make.
void add_reference_command(CLI::App& app);
/// `fedsim sweep`: a scenario over a grid of values and seeds, aggregated into sweep.csv.
void add_sweep_command(CLI::App& app);
/// `fedsim plot`: regret, privacy-utility and straggler plots of run and sweep folders.
void add_plot_command(CLI::App& app);
/// `fedsim dashboard`: the browser dashboard of a finished run or sweep folder.
void add_dashboard_command(CLI::App& app);
/// `fedsim report`: one self-contained HTML file of a finished run or sweep folder.
void add_report_command(CLI::App& app);
/// `fedsim algorithms`: the registered algorithms, their drivers and their own keys.
void add_algorithms_command(CLI::App& app);
/// `fedsim xarmed`: alias of `fedsim sweep SCENARIO --driver loop` over seeds, for the Fed-PNE,
/// DP-Fed-PNE or HCT scenario its options make (written to OUT/scenario.toml).
void add_xarmed_command(CLI::App& app);
/// `fedsim compare`: a verdict on a claim about two grid points of sweeps on the same seeds.
void add_compare_command(CLI::App& app);

}  // namespace fedsim::cli
