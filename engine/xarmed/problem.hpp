#pragma once
/// A federated X-armed bandit problem: the global objective regret is measured on, one local
/// objective per client, and the reward noise. Synthetic problems (Fed-PNE appendix E.2): the
/// local objective of client m is the global one plus a constant drawn once from N(0, 1); the
/// SEIR problem: client m is region m and the global objective is the mean over regions; the
/// tuning problem (the landmine analogue, engine/xarmed/tuning_problem.hpp): client m's
/// objective is the validation score of a model trained on its own shard of a real data set,
/// and the global objective is the mean over clients.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/objectives/objective.hpp"
#include "engine/objectives/tuning_objective.hpp"

namespace fedsim::xarmed {

enum class ObjectiveKind { garland, double_sine, seir, tuning };
/// "garland", "double-sine", "seir" or "tuning"; throws std::invalid_argument naming the
/// allowed values.
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

  /// Tuning (the keys of the FBO family's tuning objective, under the same names): the task,
  /// the data set (loaded by the caller: make_tuning_problem), its first `samples` (0: all),
  /// the split's label and quantity skew, the svm task's positive class, the SGD tasks'
  /// epochs, and the seed of the split and the training (0: `seed`).
  TuningSettings::Task task = TuningSettings::Task::svm;
  std::string dataset = "fashion-mnist";
  int samples = 0;
  double label_skew = 0.5;
  double quantity_skew = 0.0;
  int positive_class = 0;
  int epochs = 20;
  std::uint64_t objective_seed = 0;
  bool is_tuning() const { return objective == ObjectiveKind::tuning; }

  /// 0.1 for the synthetic objectives (values span ~1), 0.01 for SEIR (attack rates differ by
  /// a few hundredths near the optimum), 0 for tuning (the score is what the client observes:
  /// the randomness of training is its noise).
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

/// Validates the config and builds the problem. The tuning problem needs its data set: this
/// throws std::invalid_argument for it (see make_tuning_problem).
FederatedProblem make_problem(const ProblemConfig& config);

}  // namespace fedsim::xarmed
