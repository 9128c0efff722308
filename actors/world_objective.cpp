#include "actors/world_objective.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/fbo/reference_loop.hpp"
#include "engine/objectives/box_test_objective.hpp"
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
  }
  throw std::logic_error("internal error: a world objective kind without a builder");
}

}  // namespace fedsim::actors
