// `fedsim run`: one run from a scenario file: a federation of actors in virtual time, or
// (--driver loop) the engine's plain synchronous loop (tools/fedsim/loop_driver.hpp).
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "actors/federation.hpp"
#include "actors/logging.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "scenarios/echo.hpp"
#include "tools/fedsim/loop_driver.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/run_outputs.hpp"

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
};

void run(RunCommandOptions& o) {
  scenario::ScenarioConfig config;
  try {
    auto overrides = o.overrides;
    if (o.has_seed) overrides.push_back("seed=" + std::to_string(parse_seed(o.seed)));
    scenario::LoadedScenario loaded = scenario::load_scenario_file(o.scenario, overrides);
    for (const std::string& w : loaded.warnings) std::fprintf(stderr, "fedsim: warning: %s\n", w.c_str());
    config = std::move(loaded.config);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (o.threads < 0) throw UsageError("--threads must be >= 0");
  const Driver driver = parse_driver(o.driver);
  check_driver(config, driver);
  if (!o.log_level.empty()) {
    try {
      actors::set_log_levels(o.log_level);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--log-level: ") + e.what());
    }
  }
  const std::filesystem::path dir = o.out.empty() ? "out/" + config.name : o.out;
  const FolderLock lock(dir, current_command_line());
  switch (folder_state(dir, config)) {
    case FolderState::absent:
    case FolderState::empty:
    case FolderState::same_run: break;
    case FolderState::other_run:
      if (o.force) break;
      throw UsageError("--out " + scenario::quote(dir.string()) +
                       " holds a run of another configuration; give --force to replace it, or "
                       "choose another --out");
    case FolderState::not_a_run:
      throw UsageError("--out " + scenario::quote(dir.string()) +
                       " holds files that are not a run's; choose another --out");
  }
  StagingFolder staging(dir);
  write_resolved_config(staging.path(), config);

  actors::RunOptions options;
  options.out_dir = staging.path().string();
  options.threads = o.threads;
  const bool tty = isatty(fileno(stderr));
  const int every = std::max(1, config.algorithm.iterations / 10);
  if (!o.quiet)
    options.on_round = [tty, every](const actors::round_event& r) {
      if (!tty && r.round % every != 0) return;
      std::fprintf(stderr, "%sround %d  time %.3f  eps %.3f  agents alive %d  participants %d%s",
                   tty ? "\r" : "", r.round, r.time, r.epsilon, r.alive, r.participants,
                   tty ? "   " : "\n");
    };
  const DriverResult result = run_with_driver(config, options, driver);
  const actors::RunResult& r = result.run;
  if (!o.quiet && tty && driver == Driver::actors) std::fprintf(stderr, "\n");
  write_summary(staging.path(), config, result, driver);
  staging.publish();
  if (config.xarmed.enabled) {
    const auto& fp = config.xarmed.fed_pne;
    std::printf("%s: %s on %s, M=%d T=%lld  %s %.2f", config.name.c_str(),
                scenario::xarmed_algorithm_name(config.xarmed).c_str(),
                xarmed::to_string(fp.problem.objective).c_str(), config.world.agents,
                static_cast<long long>(fp.budget),
                config.xarmed.hct ? "cumulative regret" : "avg cumulative regret per client",
                r.average_cumulative_regret);
    if (fp.is_private()) std::printf("  eps %.2f (delta %.2e)", r.epsilon, r.delta);
  } else {
    std::printf("%s: %s, N=%d T=%d  mean final simple regret %.4f", config.name.c_str(),
                fbo::to_string(config.algorithm.algorithm).c_str(), config.world.agents,
                config.algorithm.iterations, r.final_simple_regret);
    if (config.algorithm.is_private()) std::printf("  eps %.2f (delta %.2e)", r.epsilon, r.delta);
  }
  std::printf("  messages %llu (dropped %llu)  virtual time %.2f  wall %.2fs  -> %s\n",
              static_cast<unsigned long long>(r.network.sent),
              static_cast<unsigned long long>(r.network.dropped), r.last_query_time,
              r.wall_time, dir.string().c_str());
  if (!r.completed) throw IncompleteRun(r.reason + " (summary.json: \"completed\": false)");
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a federation of actors from a scenario file");
  cmd->add_option("scenario", o->scenario, "scenario file (TOML, see scenarios/README.md)")
      ->required();
  cmd->add_option("--out", o->out, "output folder (default: out/<scenario name>)");
  auto* seed = cmd->add_option("--seed", o->seed, "override the scenario's seed");
  cmd->add_option("--set", o->overrides, "override a key: --set algorithm.q=0.5 (repeatable)")
      ->allow_extra_args(false);  // one key=value per --set, so a positional may follow
  cmd->add_option("--threads", o->threads, "actor scheduler threads (0: CAF's default)")
      ->capture_default_str();
  cmd->add_option("--driver", o->driver,
                  "actors (a federation in virtual time) | loop (the engine's synchronous loop: "
                  "a perfect network under sync only; the only driver of algorithm.name = hct)")
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_flag("--force", o->force,
                "replace a run of another configuration in --out (never a folder of other files)");
  cmd->add_option("--log-level", o->log_level,
                  "actor logs on stderr: a level (trace, debug, info, warn, error, off) or "
                  "'warn,server=debug'; default warn, or SPDLOG_LEVEL");
  cmd->callback([o, seed] {
    o->has_seed = seed->count() > 0;
    run(*o);
  });
}

}  // namespace fedsim::cli
