#pragma once
/// The rules the multi-armed baselines on the X-armed problems (Fed1-UCB, FN-UCB) share at load:
/// their arms are a mesh of K^d points of the problem's domain (engine/baselines/arm_mesh.hpp)
/// and their loops keep a number per step.
#include <cstdint>
#include <string>

#include "actors/run_config.hpp"

namespace fedsim::actors::algorithms {

/// The dimension d of the configuration's X-armed problem, from a problem of one client (M
/// clients' objectives would take memory the load has not yet estimated); a tuning problem's
/// from its task alone (no data read).
int problem_dimension(const scenario::ScenarioConfig& config);

/// Throws std::invalid_argument "key 'algorithm.budget': ..." when T > 1e9 (the engines' bound),
/// and "key 'TABLE.arms_per_dim': ..." when arms_per_dim^d exceeds baselines::max_mesh_arms on
/// the problem's domain (d from the configuration's problem). `name`: the algorithm's, for the
/// message.
void check_mesh_rules(std::int64_t arms_per_dim, const scenario::ScenarioConfig& config,
                      const std::string& table, const std::string& name);

}  // namespace fedsim::actors::algorithms
