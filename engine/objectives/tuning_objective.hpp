#pragma once
/// Federated hyperparameter tuning on real data (issue 14 item 3): agent n's function is the
/// validation score of a model trained on its own shard with the hyperparameters x, mapped from
/// the unit box onto the DP-FTS-DE paper's ranges (appendix B.2.1), on a log scale where they
/// span decades:
/// - logistic (the human-activity analogue): multinomial logistic regression by mini-batch SGD;
///   x = (batch size in [128, 512], L2 in [1e-6, 10], learning rate in [1e-6, 1]);
/// - mlp (the EMNIST analogue): a one-hidden-layer network; x = (learning rate, learning-rate
///   decay, L2), each in [1e-7, 0.02];
/// - svm (the landmine analogue): a least-squares SVM with an RBF kernel on a binary task
///   (`positive_class` against the rest); x = (RBF gamma in [0.01, 10], penalty in [1e-4, 10]).
/// The score the agents maximise is the validation accuracy (1 - error; logistic, mlp) or the
/// validation AUC (svm). The data set is split over the agents by label and quantity skew
/// (engine/data/federated_split.hpp), each agent's share halved into train and validation and
/// standardised with its train half's statistics. Training draws from the stream
/// (seed, "objective.train", agent, iteration), so an evaluation is a pure function of the query:
/// y = f (no simulated noise: the randomness of training is the noise). The compute cost
/// charged in virtual time is cost_per_sample x train samples x epochs (svm: x train samples),
/// so an agent with more data is slower, as on real devices. No optimum is known: runs report
/// the best observed score, not regret.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/data/dataset.hpp"
#include "engine/data/federated_split.hpp"
#include "engine/objectives/federated_objective.hpp"

namespace fedsim {

struct TuningSettings {
  enum class Task { logistic, mlp, svm };
  Task task = Task::logistic;
  data::SplitConfig split;   ///< split.agents is the run's N
  int positive_class = 0;    ///< svm: this class against the rest
  int epochs = 20;           ///< logistic, mlp
  double cost_per_sample = 0.0;  ///< virtual seconds per training sample (and epoch); 0: none
  std::uint64_t seed = 1;    ///< the split's and the training's
  /// The hyperparameters' count for the task: 3, 3, 2.
  int dimension() const;
};

std::string to_string(TuningSettings::Task task);  ///< "logistic", "mlp", "svm"

/// The hyperparameters a point of the unit box stands for, by name, in the task's units.
struct Hyperparameters {
  std::vector<std::string> names;
  std::vector<double> values;
};
Hyperparameters tuning_hyperparameters(TuningSettings::Task task,
                                       const Eigen::Ref<const Eigen::VectorXd>& x);

class TuningObjective final : public FederatedObjective {
 public:
  /// Splits `dataset` over settings.split.agents agents. Throws std::invalid_argument on a
  /// bad setting (an svm positive_class outside the data's classes) and std::runtime_error
  /// when the data cannot give every agent enough samples.
  TuningObjective(std::shared_ptr<const data::Dataset> dataset, TuningSettings settings);

  const SearchDomain& domain() const override { return domain_; }
  int agents() const override { return static_cast<int>(shards_.size()); }
  Answer evaluate(const Query& query, RandomStream& noise) const override;
  std::optional<double> optimum(int) const override { return std::nullopt; }

  /// Agent n's train and validation sizes.
  std::pair<int, int> shard_sizes(int agent) const;

 private:
  struct Shard {
    Eigen::MatrixXd xt, xv;
    std::vector<int> yt, yv;
  };
  TuningSettings settings_;
  int classes_ = 0;
  SearchDomain domain_;
  std::vector<Shard> shards_;
};

}  // namespace fedsim
