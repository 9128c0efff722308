#pragma once
/// The objective a scenario's FBO world evaluates ([world.objective], every kind): the
/// papers' synthetic grids, the box test functions, or an external black box. The actors
/// (run_federation) and the loop driver both build theirs here.
#include <filesystem>
#include <memory>

#include "actors/run_config.hpp"
#include "engine/objectives/federated_objective.hpp"

namespace fedsim::actors {

/// By config.world.objective.kind:
///  - perturbed, mixture: fbo::make_synthetic_objective(scenario::reference_config(config));
///  - branin, hartmann3, hartmann6, ackley: a BoxTestObjective with one shifted function per
///    agent (world.objective.shift), noise sd sqrt(world.noise_variance), shifts keyed by
///    world.objective.seed (0: the run's seed), agent 0 unshifted when
///    world.peer_observations > 0 (FTS's target agent, as the grid kinds do);
///  - command, tcp: an external::ExternalObjective whose workers write their stderr to
///    <run_folder>/workers/worker-<slot>.log (the folder is created; the workers start when
///    first asked).
/// Throws std::invalid_argument for a config the schema rejects (an X-armed one included) or
/// settings the external evaluator refuses, std::runtime_error if the log folder cannot be made.
std::shared_ptr<const FederatedObjective> make_world_objective(
    const scenario::ScenarioConfig& config, const std::filesystem::path& run_folder);

}  // namespace fedsim::actors
