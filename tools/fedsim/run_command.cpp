// `fedsim run`: one run from a scenario file: a federation of actors in virtual (or, with
// run.time = "wall", wall-clock) time, or (--driver loop) the engine's plain synchronous loop
// (tools/fedsim/loop_driver.hpp).
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "actors/logging.hpp"
#include "actors/remote/join_auth.hpp"
#include "actors/remote/serve.hpp"
#include "actors/run_keys.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/dashboard_hub.hpp"
#include "tools/fedsim/dashboard_server.hpp"
#include "tools/fedsim/fresh_run.hpp"
#include "scenarios/echo.hpp"
#include "tools/fedsim/live_run.hpp"
#include "tools/fedsim/loop_driver.hpp"
#include "tools/fedsim/run_checkpoint.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/stream_file.hpp"

namespace fedsim::cli {
namespace {

/// --seed: an integer in [0, 2^63 - 1], digits only.
long long parse_seed(const std::string& text) {
  long long seed = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, seed);
  if (text.empty() || text[0] == '-' || text[0] == '+' || ec != std::errc() || ptr != end)
    throw UsageError("--seed " + scenario::quote(text) +
                     ": expected an integer in [0, 9223372036854775807]");
  return seed;
}

struct RunCommandOptions {
  std::string scenario;
  std::string out;
  std::vector<std::string> overrides;
  std::string seed;  ///< as given: parsed strictly, so "-5" or 2^63 is an error, not ignored
  int threads = 0;
  bool quiet = false;
  bool force = false;
  bool has_seed = false;
  std::string log_level;
  std::string driver = "actors";
  long long checkpoint_every = 0;
  std::string resume;
  bool resume_any_build = false;  ///< --resume-any-build: a checkpoint of another build is taken
  std::string stream;  ///< --stream FILE, or - for standard output
  std::string dashboard;  ///< --dashboard HOST:PORT
  bool dashboard_allow_remote = false;
  // fedsim serve: the agents join from other processes (actors/remote/serve.hpp).
  bool serve = false;
  std::string listen;
  std::string secret_file;
  std::string port_file;
  actors::remote::TlsFiles tls;
  double join_timeout = 60;
  double auth_timeout = 10;
  std::uint64_t max_message_bytes = actors::remote::default_max_message_bytes;
  std::string max_memory;  ///< --max-memory SIZE | none; empty: the machine's memory
  std::string max_work;    ///< --max-work TIME | none; empty: 24 CPU-hours
};

/// FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS=n stops the run as if interrupted by SIGINT once it has
/// written n checkpoints: a deterministic interruption for tests (a real signal arrives at
/// whatever round the run is in).
int stop_after_checkpoints_from_environment() {
  const char* v = std::getenv("FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS");
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return (*end == '\0' && n > 0 && n < 1000000) ? static_cast<int>(n) : 0;
}

/// A new run's configuration: the scenario with its overrides. Its warnings are printed by
/// the caller once every check has passed (a refused run prints its one error line alone).
scenario::LoadedScenario fresh_config(const RunCommandOptions& o) {
  if (o.scenario.empty())
    throw UsageError("give a SCENARIO file to run, or --resume DIR to continue an interrupted run");
  try {
    auto overrides = o.overrides;
    if (o.has_seed) overrides.push_back("seed=" + std::to_string(parse_seed(o.seed)));
    return scenario::load_scenario_file(o.scenario, overrides);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void print_result(std::FILE* out, const scenario::ScenarioConfig& config,
                  const actors::RunResult& r, const std::filesystem::path& dir) {
  if (config.xarmed.enabled) {
    const auto& fp = config.xarmed.fed_pne;
    std::fprintf(out, "%s: %s on %s, M=%d T=%lld  %s %.2f", config.name.c_str(),
                scenario::algorithm_kind(config).name.c_str(),
                xarmed::to_string(fp.problem.objective).c_str(), config.world.agents,
                static_cast<long long>(fp.budget),
                scenario::algorithm_kind(config).xarmed->federated
                    ? "avg cumulative regret per client"
                    : "cumulative regret",
                r.average_cumulative_regret);
    if (fp.is_private()) std::fprintf(out, "  eps %.2f (delta %.2e)", r.epsilon, r.delta);
  } else {
    std::fprintf(out, "%s: %s, N=%d T=%d  ", config.name.c_str(),
                scenario::algorithm_kind(config).name.c_str(), config.world.agents,
                config.algorithm.iterations);
    // As summary.json: no number when no agent observed anything (not a regret of 0); with no
    // known optimum (regret not defined), the mean best observed value instead.
    if (r.mean_simple_regret.empty()) std::fprintf(out, "mean final simple regret none (no agent observed)");
    else if (std::isnan(r.final_simple_regret))
      std::fprintf(out, "mean best observed %.4f (no known optimum: no regret)", r.mean_best_observed);
    else std::fprintf(out, "mean final simple regret %.4f", r.final_simple_regret);
    if (config.algorithm.is_private()) std::fprintf(out, "  eps %.2f (delta %.2e)", r.epsilon, r.delta);
  }
  std::fprintf(out, "  messages %llu (dropped %llu)  %s time %.2f  wall %.2fs",
              static_cast<unsigned long long>(r.network.sent),
              static_cast<unsigned long long>(r.network.dropped),
              config.run.wall() ? "model" : "virtual", r.last_query_time, r.wall_time);
  if (config.run.wall())
    std::fprintf(out, "  (wall clock x%g, lateness median %.2g s p99 %.2g s)", config.run.time_scale,
                r.network.lateness_median, r.network.lateness_p99);
  std::fprintf(out, "  -> %s\n", dir.string().c_str());
}

/// fedsim serve's checks, before anything is written.
void check_serve(const RunCommandOptions& o, const scenario::ScenarioConfig& config) {
  if (o.driver != "actors")
    throw UsageError("fedsim serve takes no --driver (its agents are actors in other processes)");
  if (config.xarmed.enabled)
    throw UsageError("fedsim serve: a Fed-PNE / DP-Fed-PNE / HCT scenario keeps its clients in one "
                     "process; use fedsim run");
  if (!(o.join_timeout > 0) || o.join_timeout > 1e6)
    throw UsageError("--join-timeout must be in (0, 1e6] seconds");
  if (o.max_message_bytes < 1024 || o.max_message_bytes > (std::uint64_t{1} << 30))
    throw UsageError("--max-message-bytes must be in 1024 .. 1073741824");
  if (!(o.auth_timeout >= 0.01) || o.auth_timeout > 1e6)
    throw UsageError("--auth-timeout must be in [0.01, 1e6] seconds");
  try {
    // Served agents make participation adaptive: a pld filter the scenario asks for is refused.
    if (config.algorithm.is_private()) {
      actors::ParticipationContext served;
      served.served = true;
      actors::resolved_filter(config, actors::adaptive_reasons(config, served));
    }
    actors::remote::parse_endpoint(o.listen, "--listen");
    actors::remote::read_secret_file(o.secret_file);
    actors::remote::TlsFiles probe = o.tls;
    caf::actor_system_config cfg;  // TLS files checked, nothing started
    if (probe.enabled()) actors::remote::configure_network(cfg, probe);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

/// Runs `config` with its agents in other processes: listens, waits for them, runs.
actors::RunResult serve(const RunCommandOptions& o, const scenario::ScenarioConfig& config,
                        actors::RunOptions options) {
  actors::remote::ServeOptions serve;
  try {
    std::tie(serve.host, serve.port) = actors::remote::parse_endpoint(o.listen, "--listen");
    serve.secret = actors::remote::read_secret_file(o.secret_file);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  serve.tls = o.tls;
  serve.join_timeout = o.join_timeout;
  serve.max_message_bytes = o.max_message_bytes;
  serve.auth_timeout = o.auth_timeout;
  serve.scenario_text = scenario::to_toml(config);
  const bool quiet = o.quiet;
  const std::string port_file = o.port_file;
  serve.on_listening = [quiet, port_file, host = serve.host, n = config.world.agents](std::uint16_t port) {
    if (!port_file.empty()) {  // written whole, then renamed: a reader never sees half a port
      const std::string tmp = port_file + ".tmp";
      std::ofstream(tmp) << port << "\n";
      std::filesystem::rename(tmp, port_file);
    }
    if (!quiet)
      std::fprintf(stderr, "fedsim serve: listening on %s:%u, waiting for %d agents\n",
                   host.c_str(), static_cast<unsigned>(port), n);
  };
  if (!quiet)
    serve.on_join = [](const std::vector<std::uint32_t>& ids, int joined, int total) {
      std::fprintf(stderr, "fedsim serve: agents %s joined (%d of %d)\n",
                   actors::remote::format_id_list(ids).c_str(), joined, total);
    };
  try {  // in its own actor system; the TLS files were checked with the other options
    return actors::remote::serve_federation(config, std::move(options), serve);
  } catch (const actors::remote::ServeError& e) {
    throw actors::RunFailure(e.what());
  }
}

void run(RunCommandOptions& o) {
  if (o.threads < 0) throw UsageError("--threads must be >= 0");
  if (o.checkpoint_every < 0) throw UsageError("--checkpoint-every must be >= 0 (0: only on SIGINT/SIGTERM)");
  const bool resuming = !o.resume.empty();
  if (o.resume_any_build && !resuming)
    throw UsageError("--resume-any-build goes with --resume DIR");
  if (resuming && (!o.scenario.empty() || !o.overrides.empty() || o.has_seed || !o.out.empty() ||
                   o.force || o.driver != "actors"))
    throw UsageError("--resume DIR continues the run in DIR with the configuration it started "
                     "with: give no SCENARIO, --set, --seed, --out, --force or --driver with it");
  if (!o.log_level.empty()) {
    try {
      actors::set_log_levels(o.log_level);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--log-level: ") + e.what());
    }
  }
  scenario::ScenarioConfig config;
  std::vector<std::string> warnings;  // the loader's, printed once every check has passed
  std::optional<actors::Checkpoint> checkpoint;
  std::string replaces;  // the configuration hash of another run --force replaces, if any
  std::filesystem::path dir;
  std::optional<scenario::WorkEstimate> work;
  if (!resuming) {
    scenario::LoadedScenario loaded = fresh_config(o);
    config = std::move(loaded.config);
    warnings = std::move(loaded.warnings);
    check_run_memory(config, o.max_memory);
    work = check_run_work(config, o.max_work);
    dir = o.out.empty() ? "out/" + config.name : o.out;
  } else {
    dir = o.resume;
  }
  const Driver driver = parse_driver(o.driver);
  // The live view's options, checked before the run's folder is touched (the stream file is
  // opened, so a FIFO without a reader or a file another run holds is refused now); the dashboard's
  // server listens from here (the port is taken or refused now), and outlives the run a
  // little (~Dashboard), so that open pages get the last lines.
  for (const auto& [option, given] : {std::pair{"--stream", !o.stream.empty()},
                                      std::pair{"--dashboard", !o.dashboard.empty()}})
    if (driver != Driver::actors && given)
      throw UsageError(std::string(option) + ": the loop driver has no live records (it "
                       "writes its files at the end); use --driver actors");
  std::optional<LineSink> stream;
  if (!o.stream.empty()) stream = open_stream_file(o.stream, dir);
  auto hub = std::make_shared<DashboardHub>();
  struct Dashboard {
    std::shared_ptr<DashboardHub> hub;
    std::optional<DashboardServer> server;
    ~Dashboard() {
      hub->finish();
      if (server) server->drain(2.0);
    }
  } board{hub, {}};
  if (!o.dashboard.empty())
    board.server.emplace(o.dashboard, "--dashboard", o.dashboard_allow_remote, hub);
  const FolderLock lock(dir, current_command_line());
  if (resuming) {
    if (!has_checkpoint(dir))
      throw UsageError("--resume " + scenario::quote(dir.string()) +
                       ": no checkpoint there (a run leaves one when interrupted by SIGINT or "
                       "SIGTERM, or with --checkpoint-every, until it completes)");
    try {
      checkpoint = actors::read_checkpoint(checkpoint_folder(dir));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    config = checkpoint_config(*checkpoint, o.resume_any_build);
    check_resume_folder(dir, *checkpoint, config);
    replaces = checkpoint_replaces(*checkpoint);
    check_run_memory(config, o.max_memory);
    work = check_run_work(config, o.max_work);  // the whole run's, as when it started
    if (config.run.wall())  // never written by fedsim run; refused before anything is touched
      throw UsageError("--resume " + scenario::quote(dir.string()) + ": key '" +
                       actors::run_keys::full(actors::run_keys::time) +
                       "' is \"wall\": a run in wall-clock time resumes no checkpoint");
    if (o.serve) check_serve(o, config);
  } else {
    if (o.serve) check_serve(o, config);
    replaces = check_fresh_run(config, dir, driver, o.checkpoint_every, o.force);
  }
  for (const std::string& w : warnings) std::fprintf(stderr, "fedsim: warning: %s\n", w.c_str());
  if (work && !o.quiet) print_work_estimate("the run", *work);
  // Staged next to DIR and moved into place when complete (fresh_run.hpp); the body runs it
  // with its live view and checkpoints.
  const DriverResult result = run_staged(config, dir, driver, {}, [&](actors::RunOptions& options) {
    options.threads = o.threads;
    const bool tty = isatty(fileno(stderr));
    // The progress line, the live stream and the dashboard (live_run.hpp): from the run's
    // observer.
    LiveRun live(config, !o.quiet, tty);
    if (stream) live.add_sink(std::move(*stream));
    if (board.server) {
      live.add_sink(hub->sink());
      std::fprintf(stderr, "dashboard: %s\n", board.server->url().c_str());
    }
    live.attach(options.observer);
    // Actors runs take checkpoints on SIGINT/SIGTERM, and every --checkpoint-every rounds; in
    // wall-clock time they take none, and a signal ends the process as it would any other.
    std::optional<InterruptGuard> interrupts;
    if (driver == Driver::actors && !config.run.wall()) {
      interrupts.emplace(dir);
      options.interrupt = &InterruptGuard::flag();
      options.checkpoint_dir = checkpoint_folder(dir).string();
      options.checkpoint_every = o.checkpoint_every;
      options.checkpoint_header = checkpoint_header(config, replaces);
      options.stop_after_checkpoints = stop_after_checkpoints_from_environment();
      if (checkpoint) options.resume = &*checkpoint;
    }
    try {
      return live.around(o.threads, [&] {
        if (!o.serve) return run_with_driver(config, options, driver);
        DriverResult ran;
        ran.run = serve(o, config, options);
        return ran;
      });
    } catch (const actors::RunInterrupted& e) {
      const int signal = e.signal != 0 ? e.signal : SIGINT;
      char when[96];
      std::snprintf(when, sizeof when, " after %lld rounds (virtual time %.3f)",
                    static_cast<long long>(e.rounds), e.time);
      throw RunStopped(signal_name(signal) + when + ": checkpoint saved in " + e.folder +
                           "; continue with: fedsim " + (o.serve ? "serve" : "run") + " --resume " +
                           dir.string() + (o.serve ? " --listen ... --secret-file ..." : ""),
                       128 + signal);
    } catch (const actors::RunFailure& e) {
      // A served run in virtual time fails when an agent process is lost: its last checkpoint
      // (if --checkpoint-every took one) is kept, and resumes with new agent processes.
      if (o.serve && has_checkpoint(dir))
        throw actors::RunFailure(std::string(e.what()) + "; the last checkpoint is kept: continue with: "
                                 "fedsim serve --resume " + dir.string() +
                                 " --listen ... --secret-file ... and the agent processes again");
      throw;
    }
  });
  const actors::RunResult& r = result.run;
  print_result(o.stream == "-" ? stderr : stdout, config, r, dir);
  if (!r.completed) throw IncompleteRun(r.reason + " (summary.json: \"completed\": false)");
}

/// An option given an empty value is an error saying what to give, not the option left out
/// (--stream "", --dashboard "").
CLI::Validator not_empty(const std::string& what, const std::string& name) {
  return CLI::Validator([what](std::string& v) { return v.empty() ? what : std::string(); }, name);
}

}  // namespace

namespace {

/// The options `run` and `serve` share, declared once (their texts differ where the commands
/// do: a served run's agents live in other processes). Returns the --seed option.
CLI::Option* add_run_options(CLI::App* cmd, RunCommandOptions& o) {
  const bool serve = o.serve;
  cmd->add_option("scenario", o.scenario,
                  serve ? "scenario file (TOML, FBO family); none with --resume"
                        : "scenario file (TOML, see scenarios/README.md); none with --resume");
  cmd->add_option("--out", o.out, "output folder (default: out/<scenario name>)");
  CLI::Option* seed = cmd->add_option("--seed", o.seed, "override the scenario's seed");
  cmd->add_option("--set", o.overrides, "override a key: --set algorithm.q=0.5 (repeatable)")
      ->allow_extra_args(false);  // one key=value per --set, so a positional may follow
  cmd->add_option("--threads", o.threads, "actor scheduler threads (0: CAF's default)")
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", o.checkpoint_every,
                  serve ? "save a checkpoint in OUT/checkpoint after every R rounds (virtual time; "
                          "the agent processes send their agents' states); one is also saved on "
                          "SIGINT/SIGTERM, and kept when an agent process is lost"
                        : "save a checkpoint in OUT/checkpoint after every R rounds (Fed-PNE: "
                          "phases); one is also saved on SIGINT/SIGTERM, which then stop the run "
                          "(exit 128 + signal). Actors driver only")
      ->capture_default_str();
  cmd->add_option("--resume", o.resume,
                  serve ? "continue the served run in DIR from its checkpoint: the agents join "
                          "again (from any processes) and get their states back (no SCENARIO, "
                          "--set, --seed, --out or --force)"
                        : "continue the interrupted run in DIR from its checkpoint, with the "
                          "configuration it started with (its finished outputs are those of an "
                          "uninterrupted run). Refused when the checkpoint was written by another "
                          "build (commit) of fedsim, or DIR holds a run of another configuration");
  cmd->add_flag("--resume-any-build", o.resume_any_build,
                "with --resume: continue a checkpoint written by another build (commit) of "
                "fedsim (its outputs may then differ from an uninterrupted run's)");
  cmd->add_option("--max-memory", o.max_memory,
                  "refuse the run when its estimated memory (scenarios/resources.hpp: the "
                  "agents' posteriors, the candidate grid, ...) exceeds SIZE (8G, 512M; units K, "
                  "M, G, T of 1024); default: the machine's physical memory; none: no check");
  cmd->add_option("--max-work", o.max_work,
                  "refuse the run when its estimated CPU work (scenarios/work.hpp: the agents' "
                  "acquisitions, the objective's trainings, a baseline's fits, ...) exceeds TIME "
                  "(24h, 90m, 2d, 3600; units s, m, h, d); default: 24h; none: no check. A run "
                  "estimated above a minute prints its estimate before it starts");
  cmd->add_flag("--quiet", o.quiet, "no progress output");
  cmd->add_option("--stream", o.stream,
                  std::string("write the run's live event stream to FILE (- : standard output, "
                              "and the result line goes to stderr): one JSON object a line, "
                              "flushed after each round (docs/stream.md)") +
                      (serve ? "" : ". Actors driver only"))
      ->check(not_empty("give a file, or - for standard output", "FILE|-"));
  cmd->add_option("--dashboard", o.dashboard,
                  std::string("serve a live dashboard of the run at HOST:PORT (port 0: any free "
                              "port; the URL is printed on stderr), e.g. 127.0.0.1:8050; open it "
                              "in a browser") +
                      (serve ? "" : ". Actors driver only"))
      ->check(not_empty("give HOST:PORT, e.g. 127.0.0.1:8050", "HOST:PORT"));
  cmd->add_flag("--dashboard-allow-remote", o.dashboard_allow_remote,
                "allow a --dashboard address that is not loopback (the page shows the run to "
                "whoever connects)");
  cmd->add_flag("--force", o.force,
                "replace a run of another configuration in --out (never a folder of other files)");
  cmd->add_option("--log-level", o.log_level,
                  "actor logs on stderr: a level (trace, debug, info, warn, error, off) or "
                  "'warn,server=debug'; default warn, or SPDLOG_LEVEL");
  return seed;
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a federation of actors from a scenario file");
  CLI::Option* seed = add_run_options(cmd, *o);
  cmd->add_option("--driver", o->driver,
                  "actors (a federation in virtual time) | loop (the engine's synchronous loop: "
                  "a perfect network under sync only; the only driver of algorithm.name = hct)")
      ->capture_default_str();
  cmd->callback([o, seed] {
    o->has_seed = seed->count() > 0;
    run(*o);
  });
}

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<RunCommandOptions>();
  o->serve = true;
  CLI::App* cmd = app.add_subcommand(
      "serve", "Run a scenario's network, server, accountant and recorder here, with its agents "
               "joining from other processes (fedsim agents)");
  CLI::Option* seed = add_run_options(cmd, *o);
  cmd->add_option("--listen", o->listen,
                  "HOST:PORT to listen on (port 0: any free port; --port-file says which)")
      ->required();
  cmd->add_option("--secret-file", o->secret_file,
                  "file holding the secret shared with the agent processes (at least 16 bytes; "
                  "e.g. openssl rand -hex 32 > secret)")
      ->required();
  cmd->add_option("--join-timeout", o->join_timeout,
                  "seconds to wait for every agent to join before giving up (exit 1)")
      ->capture_default_str();
  cmd->add_option("--max-message-bytes", o->max_message_bytes,
                  "a message from an agent process larger than this is dropped and counted; a "
                  "frame larger than 4 times this plus 64 KiB closes its connection")
      ->capture_default_str();
  cmd->add_option("--auth-timeout", o->auth_timeout,
                  "seconds a connection may take to prove the shared secret before it is closed "
                  "(until then its frames are at most 64 KiB and 256 KiB in all)")
      ->capture_default_str();
  cmd->add_option("--port-file", o->port_file, "write the port listened on to this file");
  cmd->add_option("--tls-cert", o->tls.certificate,
                  "TLS: this server's certificate (PEM; with --tls-key and --tls-ca the agents "
                  "must connect with TLS and a certificate signed by the same CA)");
  cmd->add_option("--tls-key", o->tls.key, "TLS: the certificate's private key (PEM)");
  cmd->add_option("--tls-ca", o->tls.ca, "TLS: the CA certificate that signed every participant's (PEM)");
  cmd->callback([o, seed] {
    o->has_seed = seed->count() > 0;
    run(*o);
  });
}

}  // namespace fedsim::cli
