// `fedsim dashboard DIR`: the dashboard page (dashboard_server.hpp) of a finished run or sweep
// folder, its stream rebuilt from the files (run_replay.hpp), served until SIGINT or SIGTERM.
#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <pthread.h>

#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/dashboard_hub.hpp"
#include "tools/fedsim/dashboard_server.hpp"
#include "tools/fedsim/run_replay.hpp"

namespace fedsim::cli {

namespace {

struct DashboardOptions {
  std::string dir;
  std::string listen = "127.0.0.1:8050";
  bool allow_remote = false;
};

void dashboard(const DashboardOptions& o) {
  auto hub = std::make_shared<DashboardHub>();
  // The server's threads must not take the signals: this one waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  DashboardServer server(o.listen, "--listen", o.allow_remote, hub);  // --listen checked first
  std::vector<std::string> lines;
  try {
    lines = replay_folder(o.dir);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const UsageError*>(&e)) throw;
    throw UsageError("DIR '" + o.dir + "': " + e.what());
  }
  for (const auto& line : lines) hub->publish(line);
  hub->finish();
  std::fprintf(stderr, "dashboard of %s: %s  (%zu lines; Ctrl-C to stop)\n", o.dir.c_str(),
               server.url().c_str(), hub->size());
  int signal = 0;
  sigwait(&signals, &signal);
}

}  // namespace

void add_dashboard_command(CLI::App& app) {
  auto o = std::make_shared<DashboardOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dashboard", "Serve the browser dashboard of a finished run or sweep folder (until Ctrl-C)");
  cmd->add_option("DIR", o->dir, "a run folder (fedsim run) or a sweep folder (fedsim sweep)")
      ->required();
  cmd->add_option("--listen", o->listen, "HOST:PORT to serve on (port 0: any free port)")
      ->capture_default_str();
  cmd->add_flag("--listen-allow-remote", o->allow_remote,
                "allow a --listen address that is not loopback (the page shows the run to whoever "
                "connects)");
  cmd->callback([o] { dashboard(*o); });
}

}  // namespace fedsim::cli
