#include "actors/algorithms/mesh_rules.hpp"

#include <stdexcept>

#include "actors/world_objective.hpp"
#include "engine/baselines/arm_mesh.hpp"

namespace fedsim::actors::algorithms {

void check_mesh_rules(std::int64_t arms_per_dim, const scenario::ScenarioConfig& config,
                      const std::string& table, const std::string& name) {
  const std::int64_t budget = config.xarmed.fed_pne.budget;
  if (budget > 1000000000)
    throw std::invalid_argument("key 'algorithm.budget': must be in [1, 1e9] for " + name +
                                ", got " + std::to_string(budget));
  // The dimension only: a problem of one client (M clients' objectives would take memory the
  // load has not yet estimated).
  xarmed::ProblemConfig one = scenario::fed_pne_config(config).problem;
  one.clients = 1;
  const int d = make_xarmed_problem(one)->domain.dim();
  double arms = 1.0;
  for (int j = 0; j < d; ++j) arms *= static_cast<double>(arms_per_dim);
  if (arms > static_cast<double>(baselines::max_mesh_arms))
    throw std::invalid_argument("key '" + table + ".arms_per_dim': arms_per_dim^d must be <= " +
                                std::to_string(baselines::max_mesh_arms) + " on this " +
                                std::to_string(d) + "-dimensional domain, got " +
                                std::to_string(arms_per_dim) + "^" + std::to_string(d));
}

}  // namespace fedsim::actors::algorithms
