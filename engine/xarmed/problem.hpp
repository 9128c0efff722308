#pragma once
/// A federated X-armed bandit problem: the global objective regret is measured on, one local
/// objective per client, and the reward noise. Synthetic problems (Fed-PNE appendix E.2): the
/// local objective of client m is the global one plus a constant drawn once from N(0, 1); the
/// SEIR problem: client m is region m and the global objective is the mean over regions.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/objectives/objective.hpp"

namespace fedsim::xarmed {

enum class ObjectiveKind { garland, double_sine, seir };
/// "garland", "double-sine" or "seir"; throws std::invalid_argument naming the allowed values.
ObjectiveKind parse_objective_kind(const std::string& name);
std::string to_string(ObjectiveKind kind);

/// base(x) + offset: a client's shifted copy of the global objective (same maximiser).
class OffsetObjective final : public Objective {
 public:
  OffsetObjective(std::shared_ptr<const Objective> base, double offset);
  int dim() const override { return base_->dim(); }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override {
    return base_->value(x) + offset_;
  }
  double optimum_value() const override { return base_->optimum_value() + offset_; }
  Eigen::VectorXd optimum_location() const override { return base_->optimum_location(); }
  double offset() const { return offset_; }

 private:
  std::shared_ptr<const Objective> base_;
  double offset_;
};

struct ProblemConfig {
  ObjectiveKind objective = ObjectiveKind::garland;
  int clients = 10;           ///< M
  double offset_std = 1.0;    ///< sd of each client's constant (synthetic objectives)
  double noise = -1.0;        ///< half-width of the uniform reward noise; < 0: default_noise()
  std::uint64_t seed = 1;     ///< offsets from RandomStream(seed, "xarmed.offset", m), SEIR
                              ///< regions from RandomStream(seed, "xarmed.seir_region", m)
  /// 0.1 for the synthetic objectives (values span ~1), 0.01 for SEIR (attack rates differ by
  /// a few hundredths near the optimum).
  double default_noise() const;
  double effective_noise() const { return noise >= 0.0 ? noise : default_noise(); }
  /// Throws std::invalid_argument naming the parameter.
  void validate() const;
};

struct FederatedProblem {
  Box domain;                                            ///< [0, 1] for all three objectives
  std::shared_ptr<const Objective> global;               ///< regret is measured on it
  std::vector<std::shared_ptr<const Objective>> locals;  ///< f_m, one per client
  double noise = 0.1;  ///< a reward is f_m(x) + U[-noise, noise]

  int clients() const { return static_cast<int>(locals.size()); }
};

/// Validates the config and builds the problem.
FederatedProblem make_problem(const ProblemConfig& config);

}  // namespace fedsim::xarmed
