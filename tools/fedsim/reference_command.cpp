// `fedsim reference`: an alias of `fedsim run SCENARIO --driver loop`. It writes the scenario
// its options stand for (OUT/config.resolved.toml, which `fedsim run` accepts back), prints the
// equivalent `fedsim run` command on stderr, and runs it: the same files as that command.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "actors/algorithms/algorithm_kind.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/loop_driver.hpp"
#include "tools/fedsim/run_outputs.hpp"
#include "tools/fedsim/seed_option.hpp"

namespace fedsim::cli {
namespace {

struct ReferenceOptions {
  fbo::ReferenceConfig config;
  std::string algorithm = "dp-fts-de";
  std::string p_schedule = "1/sqrt(t)";
  std::string temperature = "synthetic";
  std::string local_sampler = "rff";
  std::string objective = "perturbed";
  std::string out = "out/reference";
  bool quiet = false;
};

/// The scenario that `fedsim run --driver loop` runs for these options: a perfect network
/// (the defaults) under sync, the algorithm and world taken from the options.
scenario::ScenarioConfig scenario_of(const fbo::ReferenceConfig& c) {
  scenario::ScenarioConfig s;
  s.name = "reference";
  s.seed = c.seed;
  s.algorithm = c;
  s.world.agents = c.agents;
  s.world.objective = c.objective;
  s.world.noise_variance = c.noise_variance;
  s.world.peer_observations = c.peer_observations;
  s.privacy.accountant = c.accountant;
  s.privacy.delta = c.delta;
  return s;
}

/// --algorithm: a registered FBO algorithm of the engine's loop (its variants; the others
/// run from their scenario files).
fbo::Algorithm parse_fbo_algorithm(const std::string& name) {
  namespace al = actors::algorithms;
  const al::AlgorithmKind* k = al::find_algorithm(name);
  if (!k || !k->fbo || !k->fbo->variant)
    throw std::invalid_argument(
        "unknown algorithm '" + name + "': allowed " +
        al::joined(al::names_where([](const al::AlgorithmKind& a) { return a.fbo && a.fbo->variant; })));
  return *k->fbo->variant;
}

void run(ReferenceOptions& o) {
  auto& c = o.config;
  scenario::ScenarioConfig config;
  try {
    c.algorithm = parse_fbo_algorithm(o.algorithm);
    c.p_schedule = fbo::parse_p_schedule(o.p_schedule);
    c.temperature = fbo::parse_temperature_schedule(o.temperature);
    c.local_sampler = fbo::parse_local_sampler(o.local_sampler);
    if (o.objective == "perturbed") c.objective.kind = SyntheticConfig::Kind::perturbed;
    else if (o.objective == "mixture") c.objective.kind = SyntheticConfig::Kind::mixture;
    else throw std::invalid_argument("unknown objective '" + o.objective + "': allowed perturbed, mixture");
    c.validate();
    config = scenario_of(c);
    scenario::validate(config);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // An alias: the scenario it stands for is the run's config.resolved.toml (which `fedsim run`
  // accepts back), and the command that runs it.
  const std::filesystem::path dir(o.out);
  write_resolved_config(dir, config);
  const std::filesystem::path file = dir / "config.resolved.toml";
  std::fprintf(stderr, "fedsim reference is an alias of: fedsim run %s --driver loop --out %s\n",
               file.string().c_str(), dir.string().c_str());
  config = scenario::load_scenario_file(file.string(), {}).config;
  const DriverResult result = run_loop(config, dir);
  const actors::RunResult& r = result.run;
  write_summary(dir, config, result, Driver::loop);

  std::printf("%s: N=%d T=%d M=%d P=%d seed=%llu  mean final simple regret %.4f",
              fbo::to_string(c.algorithm).c_str(), c.agents, c.iterations, c.features,
              c.effective_regions(), static_cast<unsigned long long>(c.seed),
              r.final_simple_regret);
  if (c.is_private()) std::printf("  eps %.2f (delta %.2e, %s)", r.epsilon, r.delta,
                                  c.accountant.c_str());
  std::printf("  wall %.2fs  -> %s\n", r.wall_time, dir.string().c_str());
}

}  // namespace

void add_reference_command(CLI::App& app) {
  auto o = std::make_shared<ReferenceOptions>();
  auto& c = o->config;
  CLI::App* cmd = app.add_subcommand(
      "reference",
      "Alias of `fedsim run SCENARIO --driver loop` (the plain synchronous loop on the synthetic "
      "objective): writes OUT/config.resolved.toml and prints the equivalent command");
  cmd->add_option("--algorithm", o->algorithm,
                  actors::algorithms::joined(
                      actors::algorithms::names_where([](const actors::algorithms::AlgorithmKind& k) {
                        return k.fbo && k.fbo->variant;
                      }),
                      " | "))
      ->capture_default_str();
  cmd->add_option("--agents", c.agents, "number of agents N")->capture_default_str();
  cmd->add_option("--iterations", c.iterations, "BO iterations T after the initial design")
      ->capture_default_str();
  cmd->add_option("--init", c.n_init, "initial points per agent N_init")->capture_default_str();
  cmd->add_option("--features", c.features, "random features M")->capture_default_str();
  cmd->add_option("--subregions", c.subregions, "sub-regions P (fts-de, dp-fts-de)")
      ->capture_default_str();
  cmd->add_option("--q", c.q, "subsampling probability (dp variants)")->capture_default_str();
  cmd->add_option("--z", c.z, "noise multiplier (dp variants)")->capture_default_str();
  cmd->add_option("--clip", c.clip, "clipping threshold S (dp variants)")->capture_default_str();
  cmd->add_option("--p-schedule", o->p_schedule, "1 - p_t: 1/sqrt(t) | 1/t | 1/t^2 | local")
      ->capture_default_str();
  cmd->add_flag("--p1-equals-p2", c.p1_equals_p2, "use p_1 = p_2 (FTS paper)");
  cmd->add_flag("--fts-one-shot", c.fts_one_shot,
                "fts: messages sent once before the start, each used once");
  cmd->add_option("--peer-observations", c.peer_observations,
                  "FTS's target-agent setting when > 0: agent 0 optimises, agents 1..N-1 are "
                  "peers with this many (t_n) random observations and one message each "
                  "(ts, or fts with --fts-one-shot)")
      ->capture_default_str();
  cmd->add_option("--temperature", o->temperature,
                  "DE weight schedule: synthetic | real-world | fixed | uniform")
      ->capture_default_str();
  cmd->add_flag("!--explore-everywhere", c.explore_own_region,
                "DE ablation: initial points from the whole domain, not the agent's sub-region");
  cmd->add_option("--local-sampler", o->local_sampler, "local TS: rff | exact (pathwise GP)")
      ->capture_default_str();
  cmd->add_option("--lengthscale", c.kernel_lengthscale, "SE kernel lengthscale of the features")
      ->capture_default_str();
  cmd->add_option("--objective", o->objective, "synthetic objective: perturbed | mixture")
      ->capture_default_str();
  cmd->add_option("--perturbation", c.objective.perturbation, "perturbation d (perturbed)")
      ->capture_default_str();
  cmd->add_option("--alpha", c.objective.alpha, "heterogeneity alpha (mixture)")
      ->capture_default_str();
  cmd->add_option("--accountant", c.accountant, "moments | moments-paper | tight")->capture_default_str();
  cmd->add_option("--delta", c.delta, "delta for eps (default min(1/N^1.1, 0.01))");
  cmd->add_option("--seed", c.seed, "run seed (objective, features, all draws)")
      ->check(seed_check(~0ULL))
      ->capture_default_str();
  cmd->add_option("--objective-seed", c.objective.seed,
                  "seed of the objective functions only (0: the run seed)")
      ->check(seed_check(~0ULL))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "output folder")->capture_default_str();
  cmd->callback([o] { run(*o); });
}

}  // namespace fedsim::cli
