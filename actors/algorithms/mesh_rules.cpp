#include "actors/algorithms/mesh_rules.hpp"

#include <stdexcept>

#include "actors/world_objective.hpp"
#include "engine/baselines/arm_mesh.hpp"

namespace fedsim::actors::algorithms {

int problem_dimension(const scenario::ScenarioConfig& config) {
  xarmed::ProblemConfig one = scenario::fed_pne_config(config).problem;
  if (one.is_tuning()) {
    TuningSettings tuning;
    tuning.task = one.task;
    return tuning.dimension();
  }
  one.clients = 1;
  return make_xarmed_problem(one)->domain.dim();
}

void check_mesh_rules(std::int64_t arms_per_dim, const scenario::ScenarioConfig& config,
                      const std::string& table, const std::string& name) {
  const std::int64_t budget = config.xarmed.fed_pne.budget;
  if (budget > 1000000000)
    throw std::invalid_argument("key 'algorithm.budget': must be in [1, 1e9] for " + name +
                                ", got " + std::to_string(budget));
  const int d = problem_dimension(config);
  double arms = 1.0;
  for (int j = 0; j < d; ++j) arms *= static_cast<double>(arms_per_dim);
  if (arms > static_cast<double>(baselines::max_mesh_arms))
    throw std::invalid_argument("key '" + table + ".arms_per_dim': arms_per_dim^d must be <= " +
                                std::to_string(baselines::max_mesh_arms) + " on this " +
                                std::to_string(d) + "-dimensional domain, got " +
                                std::to_string(arms_per_dim) + "^" + std::to_string(d));
}

}  // namespace fedsim::actors::algorithms
