// The `fedsim` command line. Exit codes: 0 success, 2 bad arguments, 3 a run that could not
// complete (its outputs are written), 1 anything else.
#include <exception>
#include <iostream>

#include "tools/fedsim/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"fedsim: federated Bayesian optimisation and X-armed bandits, simulated"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fedsim 0.1.0");
  fedsim::cli::add_run_command(app);
  fedsim::cli::add_privacy_command(app);
  fedsim::cli::add_reference_command(app);
  fedsim::cli::add_sweep_command(app);
  fedsim::cli::add_plot_command(app);
  fedsim::cli::add_xarmed_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "fedsim: error: " << e.what() << "\n";
    return 2;
  } catch (const fedsim::cli::UsageError& e) {
    std::cerr << "fedsim: error: " << e.what() << "\n";
    return 2;
  } catch (const fedsim::cli::IncompleteRun& e) {
    std::cerr << "fedsim: run did not complete: " << e.what() << "\n";
    return 3;
  } catch (const std::invalid_argument& e) {
    std::cerr << "fedsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fedsim: failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
