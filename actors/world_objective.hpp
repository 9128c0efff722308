#pragma once
/// The objective a scenario's world evaluates ([world.objective], every kind). FBO: the
/// papers' synthetic grids, the box test functions, an external black box or tuning on real
/// data; X-armed: the synthetic and SEIR problems or tuning on real data. The actors
/// (run_federation, run_fed_pne_federation) and the loop driver build theirs here.
#include <filesystem>
#include <memory>

#include "actors/run_config.hpp"
#include "engine/objectives/federated_objective.hpp"
#include "engine/xarmed/problem.hpp"

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

/// The X-armed problem of `problem` (a scenario's xarmed.fed_pne.problem): xarmed::make_problem
/// for garland, double-sine and seir; for tuning, the data set (problem.dataset, its first
/// problem.samples) loaded from Debian's packages and xarmed::make_tuning_problem. Throws
/// std::invalid_argument for a bad setting, std::runtime_error for missing data (naming the
/// package) or too little of it.
std::shared_ptr<const xarmed::FederatedProblem> make_xarmed_problem(
    const xarmed::ProblemConfig& problem);

}  // namespace fedsim::actors
