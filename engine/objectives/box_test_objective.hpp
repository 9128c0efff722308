#pragma once
/// The built-in box test functions (engine/objectives/test_functions.hpp: Branin, Hartmann-3,
/// Hartmann-6, Ackley) behind the FederatedObjective interface: agent n evaluates its own
/// shifted variant (make_agent_objective), on the unit box without candidates (a continuous
/// domain), observed with noise N(0, noise_sd^2) drawn from the agent's stream.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/objectives/federated_objective.hpp"
#include "engine/objectives/test_functions.hpp"

namespace fedsim {

class BoxTestObjective final : public FederatedObjective {
 public:
  /// function: "branin", "hartmann3", "hartmann6" or "ackley" (dimension is read by Ackley
  /// only); agents >= 1; shift: per-agent shift magnitude (finite, >= 0); seed keys the shifts;
  /// noise_sd finite >= 0; first_is_base: agent 0 gets the unshifted base (FTS's target agent).
  /// Throws std::invalid_argument naming the bad argument.
  BoxTestObjective(const std::string& function, int dimension, int agents, double shift,
                   std::uint64_t seed, double noise_sd, bool first_is_base = false);

  const SearchDomain& domain() const override { return domain_; }
  int agents() const override { return static_cast<int>(functions_.size()); }
  /// f = agent's function at query.x (which must have dimension() coordinates in [0, 1]);
  /// y = f + noise_sd * one normal draw from `noise`.
  Answer evaluate(const Query& query, RandomStream& noise) const override;
  /// The base function's optimum: shifting keeps it (ShiftedObjective).
  std::optional<double> optimum(int agent) const override;

  /// Agent n's function.
  const ShiftedObjective& function(int agent) const { return *functions_.at(agent); }

 private:
  std::vector<std::shared_ptr<const ShiftedObjective>> functions_;
  double noise_sd_;
  SearchDomain domain_;
};

}  // namespace fedsim
