#pragma once
/// The papers' synthetic objectives (engine/objectives/grid_objective.hpp: one tabulated
/// function per agent on a shared grid) behind the FederatedObjective interface, with
/// observation noise N(0, noise_sd^2) drawn from the agent's stream: y = f + noise_sd * z.
#include <memory>

#include "engine/objectives/federated_objective.hpp"
#include "engine/objectives/grid_objective.hpp"

namespace fedsim {

class SyntheticObjective final : public FederatedObjective {
 public:
  /// objectives: one per agent, all on the same grid (a candidate set in [0, 1]^d).
  SyntheticObjective(GridObjectives objectives, double noise_sd);

  const SearchDomain& domain() const override { return domain_; }
  int agents() const override { return static_cast<int>(objectives_.size()); }
  /// f at the query's candidate (which must be one), plus noise_sd times one normal draw.
  Answer evaluate(const Query& query, RandomStream& noise) const override;
  std::optional<double> optimum(int agent) const override;

  const GridObjectives& functions() const { return objectives_; }

 private:
  GridObjectives objectives_;
  double noise_sd_;
  SearchDomain domain_;
};

}  // namespace fedsim
