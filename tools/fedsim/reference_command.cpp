// `fedsim reference`: the engine's synchronous reference loop on the synthetic objective.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/fbo/reference_loop.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/seed_option.hpp"
#include "actors/csv_writer.hpp"

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

void write_observations(const std::filesystem::path& file, const fbo::ReferenceResult& r) {
  actors::CsvWriter csv(file, {"agent", "iteration", "x", "y", "f", "simple_regret", "branch", "source"});
  for (const auto& o : r.observations)
    csv.row(o.agent, o.iteration, o.x, o.y, o.f, o.simple_regret, fbo::to_string(o.branch),
            o.source);
}

void write_rounds(const std::filesystem::path& file, const fbo::ReferenceResult& r) {
  actors::CsvWriter csv(file, {"round", "received", "rejected", "selected", "clipped", "phi_max",
                       "noise_std", "epsilon"});
  for (const auto& x : r.rounds)
    csv.row(x.round, x.stats.received, x.stats.rejected, x.stats.selected, x.stats.clipped,
            x.stats.phi_max, x.stats.noise_std, x.epsilon);
}

nlohmann::json config_json(const fbo::ReferenceConfig& c) {
  return {{"algorithm", fbo::to_string(c.algorithm)},
          {"agents", c.agents},
          {"iterations", c.iterations},
          {"n_init", c.n_init},
          {"features", c.features},
          {"subregions", c.effective_regions()},
          {"q", c.server_config().q},
          {"z", c.z},
          {"clip", c.clip},
          {"lambda", c.lambda},
          {"noise_variance", c.noise_variance},
          {"kernel_lengthscale", c.kernel_lengthscale},
          {"beta", c.beta},
          {"p_schedule", fbo::to_string(c.p_schedule)},
          {"p1_equals_p2", c.p1_equals_p2},
          {"fts_one_shot", c.fts_one_shot},
          {"temperature", fbo::to_string(c.temperature)},
          {"weight_a", c.weight_a},
          {"explore_own_region", c.explore_own_region},
          {"peer_observations", c.peer_observations},
          {"local_sampler", fbo::to_string(c.local_sampler)},
          {"accountant", c.accountant},
          {"seed", c.seed},
          {"objective",
           {{"kind", c.objective.kind == SyntheticConfig::Kind::perturbed ? "perturbed" : "mixture"},
            {"grid_size", c.objective.grid_size},
            {"lengthscale", c.objective.lengthscale},
            {"perturbation", c.objective.perturbation},
            {"alpha", c.objective.alpha},
            {"seed", c.objective.seed}}}};
}

void run(ReferenceOptions& o) {
  auto& c = o.config;
  try {
    c.algorithm = fbo::parse_algorithm(o.algorithm);
    c.p_schedule = fbo::parse_p_schedule(o.p_schedule);
    c.temperature = fbo::parse_temperature_schedule(o.temperature);
    c.local_sampler = fbo::parse_local_sampler(o.local_sampler);
    if (o.objective == "perturbed") c.objective.kind = SyntheticConfig::Kind::perturbed;
    else if (o.objective == "mixture") c.objective.kind = SyntheticConfig::Kind::mixture;
    else throw std::invalid_argument("unknown objective '" + o.objective + "': allowed perturbed, mixture");
    c.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const auto start = std::chrono::steady_clock::now();
  const fbo::ReferenceResult r = fbo::run_reference(c);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::filesystem::path dir(o.out);
  std::filesystem::create_directories(dir);
  write_observations(dir / "observations.csv", r);
  if (!r.rounds.empty()) write_rounds(dir / "rounds.csv", r);
  nlohmann::json summary = {
      {"algorithm", fbo::to_string(c.algorithm)},
      {"mean_final_simple_regret", r.final_simple_regret},
      {"mean_simple_regret_by_iteration", r.mean_simple_regret},
      {"epsilon", c.is_private() ? nlohmann::json(r.epsilon) : nlohmann::json(nullptr)},
      {"delta", c.is_private() ? nlohmann::json(r.delta) : nlohmann::json(nullptr)},
      {"releases", r.rounds.size()},
      {"wall_time_s", wall},
      {"config", config_json(c)}};
  std::ofstream(dir / "summary.json") << summary.dump(2) << "\n";

  std::printf("%s: N=%d T=%d M=%d P=%d seed=%llu  mean final simple regret %.4f", 
              fbo::to_string(c.algorithm).c_str(), c.agents, c.iterations, c.features,
              c.effective_regions(), static_cast<unsigned long long>(c.seed),
              r.final_simple_regret);
  if (c.is_private()) std::printf("  eps %.2f (delta %.2e, %s)", r.epsilon, r.delta,
                                  c.accountant.c_str());
  std::printf("  wall %.2fs  -> %s\n", wall, dir.string().c_str());
}

}  // namespace

void add_reference_command(CLI::App& app) {
  auto o = std::make_shared<ReferenceOptions>();
  auto& c = o->config;
  CLI::App* cmd = app.add_subcommand(
      "reference", "Run the plain synchronous reference loop (no actors) on the synthetic objective");
  cmd->add_option("--algorithm", o->algorithm, "ts | fts | fts-de | dp-fts | dp-fts-de")
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
  cmd->add_option("--delta", c.delta, "delta for eps (default 1/N^1.1)");
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
