#include "actors/world_objective.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/fbo/reference_loop.hpp"
#include "data/datasets.hpp"
#include "engine/objectives/box_test_objective.hpp"
#include "engine/objectives/tuning_objective.hpp"
#include "engine/xarmed/tuning_problem.hpp"
#include "external/external_objective.hpp"

namespace fedsim::actors {

std::shared_ptr<const FederatedObjective> make_world_objective(
    const scenario::ScenarioConfig& config, const std::filesystem::path& run_folder) {
  if (config.xarmed.enabled)
    throw std::invalid_argument("world objective: an X-armed scenario has no FBO objective");
  const SyntheticConfig& o = config.world.objective;
  o.validate();
  using Kind = SyntheticConfig::Kind;
  switch (o.kind) {
    case Kind::perturbed:
    case Kind::mixture:
      return fbo::make_synthetic_objective(scenario::reference_config(config));
    case Kind::branin:
    case Kind::hartmann3:
    case Kind::hartmann6:
    case Kind::ackley:
      return std::make_shared<const BoxTestObjective>(
          scenario::name_of(o.kind), o.effective_dimension(), config.world.agents, o.shift,
          o.seed != 0 ? o.seed : config.seed, std::sqrt(config.world.noise_variance),
          config.world.peer_observations > 0);
    case Kind::command:
    case Kind::tcp:
      return std::make_shared<const external::ExternalObjective>(
          external::settings_of(o, run_folder / "workers"), o.bounds(), o.optimum);
    case Kind::tuning: {
      TuningSettings t;
      t.task = o.task;
      t.split.agents = config.world.agents;
      t.split.alpha = o.label_skew;
      t.split.quantity_sigma = o.quantity_skew;
      t.positive_class = o.positive_class;
      t.epochs = o.epochs;
      t.cost_per_sample = o.cost_per_sample;
      t.seed = o.seed != 0 ? o.seed : config.seed;
      return std::make_shared<const TuningObjective>(
          std::make_shared<const data::Dataset>(data::load_dataset(o.dataset, {}, o.samples)), t);
    }
  }
  throw std::logic_error("internal error: a world objective kind without a builder");
}

std::shared_ptr<const xarmed::FederatedProblem> make_xarmed_problem(
    const xarmed::ProblemConfig& problem) {
  if (!problem.is_tuning())
    return std::make_shared<const xarmed::FederatedProblem>(xarmed::make_problem(problem));
  problem.validate();
  return std::make_shared<const xarmed::FederatedProblem>(xarmed::make_tuning_problem(
      problem, std::make_shared<const data::Dataset>(
                   data::load_dataset(problem.dataset, {}, problem.samples))));
}

}  // namespace fedsim::actors
