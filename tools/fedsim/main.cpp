// The `fedsim` command line. Exit codes: 0 success; 2 a usage error (a bad argument, option
// value, scenario file, output folder or checkpoint: "fedsim: error: ..."); 3 a run that could not complete
// (its outputs are written: "fedsim: run did not complete: ..."); 1 a run that failed
// ("fedsim: failed: ...") or an internal error, a bug ("fedsim: internal error: ...");
// 128 + N a run stopped by signal N (SIGINT: 130) after saving a checkpoint
// ("fedsim: interrupted: ...", naming the command that continues it).
// Every message is one line: what it echoes is escaped and cut (scenarios/echo.hpp).
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include "actors/failure.hpp"
#include "actors/checkpoint/checkpoint.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/parse_error.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/version.hpp"

namespace {

int report(const char* kind, const std::string& what, int code) {
  std::cerr << "fedsim: " << kind << ": " << fedsim::scenario::one_line(what) << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fedsim: federated Bayesian optimisation and X-armed bandits, simulated"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("fedsim ") + fedsim::cli::fedsim_version());
  fedsim::cli::add_run_command(app);
  fedsim::cli::add_serve_command(app);
  fedsim::cli::add_agents_command(app);
  fedsim::cli::add_privacy_command(app);
  fedsim::cli::add_reference_command(app);
  fedsim::cli::add_algorithms_command(app);
  fedsim::cli::add_sweep_command(app);
  fedsim::cli::add_compare_command(app);
  fedsim::cli::add_plot_command(app);
  fedsim::cli::add_xarmed_command(app);
  fedsim::cli::add_dashboard_command(app);
  fedsim::cli::add_report_command(app);
  fedsim::cli::set_command_line(fedsim::cli::command_line(argc, argv));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // an unknown subcommand or option: did you mean ...?
    return report("error", fedsim::cli::parse_error_message(app, e), 2);
  } catch (const fedsim::cli::UsageError& e) {
    return report("error", e.what(), 2);
  } catch (const fedsim::scenario::ScenarioError& e) {
    return report("error", e.what(), 2);
  } catch (const fedsim::actors::CheckpointRefused& e) {  // --resume of a checkpoint it cannot take
    return report("error", e.what(), 2);
  } catch (const fedsim::cli::RunStopped& e) {
    return report("interrupted", e.what(), e.code);
  } catch (const fedsim::cli::IncompleteRun& e) {
    return report("run did not complete", e.what(), 3);
  } catch (const std::logic_error& e) {  // a broken invariant: a bug, not the user's input
    return report("internal error", e.what(), 1);
  } catch (const std::bad_alloc& e) {
    fedsim::actors::release_memory_reserve();  // room for the line below
    return report("internal error", std::string("out of memory (") + e.what() + ")", 1);
  } catch (const std::exception& e) {
    return report("failed", e.what(), 1);
  } catch (...) {
    return report("internal error", "unknown exception", 1);
  }
  return 0;
}
