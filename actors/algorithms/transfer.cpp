#include "actors/algorithms/transfer.hpp"

#include <limits>
#include <stdexcept>
#include <utility>

#include "actors/recorder.hpp"
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/fbo/agent.hpp"

namespace fedsim::actors::algorithms::transfer {

AlgorithmKind kind(std::string name, std::string doc, std::string source) {
  AlgorithmKind k = fbo_plugin_kind(std::move(name), {false, fbo::ServerKind::none, false, false},
                                    std::move(doc), std::move(source));
  k.family_keys = {"iterations", "n_init", "features", "lambda", "kernel_lengthscale",
                   "acquisition_candidates", "acquisition_refine"};
  k.actors = false;
  return k;
}

void check(const scenario::ScenarioConfig& config, const std::string& table,
           const baselines::TransferLoopConfig& loop) {
  if (config.world.peer_observations < 1)
    throw std::invalid_argument(
        "key 'world.peer_observations': must be >= 1 with algorithm.name = \"" +
        scenario::algorithm_kind(config).name + "\" (FTS's target-agent setting: agent 0 is the target, "
        "the others peers holding this many observations), got " +
        std::to_string(config.world.peer_observations));
  if (config.world.agents < 2)
    throw std::invalid_argument("key 'world.agents': must be >= 2 with algorithm.name = \"" +
                                scenario::algorithm_kind(config).name +
                                "\" (the target and at least one peer), got " +
                                std::to_string(config.world.agents));
  named_by_table(table, [&] { loop.validate(); });
}

baselines::TransferLoopConfig loop_config(const scenario::ScenarioConfig& config,
                                          baselines::TransferAlgorithm algorithm) {
  const fbo::ReferenceConfig r = scenario::reference_config(config);
  baselines::TransferLoopConfig c;
  c.algorithm = algorithm;
  c.agents = r.agents;
  c.iterations = r.iterations;
  c.n_init = r.n_init;
  c.peer_observations = r.peer_observations;
  c.features = r.features;
  c.lambda = r.lambda;
  c.noise_variance = r.noise_variance;
  c.kernel_lengthscale = r.kernel_lengthscale;
  c.acquisition_candidates = r.acquisition_candidates;
  c.acquisition_refine = r.acquisition_refine;
  c.seed = r.seed;
  c.objective = r.objective;
  return c;
}

LoopRun run(const LoopInput& in, const baselines::TransferLoopConfig& config,
            const std::string& name) {
  const auto objective = make_world_objective(in.config, in.dir);
  const baselines::TransferResult r = baselines::run_transfer(config, *objective);
  std::vector<observation_event> observations;
  observations.reserve(r.records.size());
  for (const baselines::TransferRecord& t : r.records) {
    observation_event e;
    e.agent = 0;
    e.iteration = t.iteration;
    e.index = t.index;
    e.x.assign(t.x.data(), t.x.data() + t.x.size());
    e.y = t.y;
    e.f = t.f;
    e.simple_regret = t.simple_regret;
    e.best_y = t.best_y;
    e.branch = static_cast<std::int32_t>(t.iteration <= 0 ? fbo::Branch::init : fbo::Branch::local);
    e.wall_seconds = std::numeric_limits<double>::quiet_NaN();  // the loop measures none
    observations.push_back(std::move(e));
  }
  ObservationRows rows(observations.size() + 1, ObservationOrder{});
  for (const auto& o : observations) rows.push(o);
  write_observations((in.dir / "observations.csv").string(), rows, objective->dimension());
  write_rounds((in.dir / "rounds.csv").string(), {});

  LoopRun out;
  // The recorder's own curve over the target's rows (the one learner).
  RegretCurve curve = mean_regret_curve(observations, 1, config.iterations);
  out.run.mean_simple_regret = std::move(curve.mean);
  out.run.agents_without_observations = curve.without_observations;
  out.run.mean_best_observed = curve.mean_best_observed;
  if (!out.run.mean_simple_regret.empty())
    out.run.final_simple_regret = out.run.mean_simple_regret.back();
  out.summary.push_back({name,
                         {{"payload_length", static_cast<std::int64_t>(r.payload_length)},
                          {"surrogates_accepted", static_cast<std::int64_t>(r.accepted)},
                          {"surrogates_rejected", static_cast<std::int64_t>(r.rejected)}}});
  return out;
}

}  // namespace fedsim::actors::algorithms::transfer
