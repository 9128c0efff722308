#pragma once
/// The federated X-armed tuning problem (issue 14; Fed-PNE section 4, "Landmine Detection"):
/// client m's local objective is the validation score (AUC for svm, accuracy otherwise) of
/// the model trained on its own shard with the hyperparameters x (engine/objectives/
/// tuning_objective.hpp), and the global objective is the mean of the clients' scores, as the
/// paper's "AUC-ROC score on average". Its optimum is not known; regret is measured against 1,
/// as the paper does ("we assume the unknown global optimal to be 1").
///
/// An X-armed bandit needs f_m to be a function of x alone, so client m trains with one
/// stream for every x: (seed, "objective.train", m, 0), the stream the FBO family's initial
/// design uses. A node's value is trained once per client and remembered (the same cell centre
/// is pulled many times, and every client measures regret on the global objective at its
/// nodes): the caches are guarded, so the actors' threads may share them.
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/data/dataset.hpp"
#include "engine/objectives/objective.hpp"
#include "engine/objectives/tuning_objective.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::xarmed {

/// Remembers value(x) of an objective that is expensive and deterministic. Thread-safe: the
/// first caller of an x computes it, callers of the same x meanwhile wait for that value
/// (rather than train the same model twice), and an exception reaches every one of them.
class ScoreCache {
 public:
  template <class F>
  double get(const Eigen::Ref<const Eigen::VectorXd>& x, F&& compute) const {
    std::vector<double> key(x.data(), x.data() + x.size());
    std::promise<double> mine;
    std::shared_future<double> value;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto [it, inserted] = values_.emplace(std::move(key), std::shared_future<double>());
      if (inserted) it->second = mine.get_future().share();
      else value = it->second;
    }
    if (value.valid()) return value.get();
    try {
      const double v = compute();
      mine.set_value(v);
      return v;
    } catch (...) {
      mine.set_exception(std::current_exception());
      throw;
    }
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return values_.size();
  }

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::vector<double>, std::shared_future<double>> values_;
};

/// Client m's score at x: TuningObjective::evaluate for agent m at iteration 0, remembered.
class TuningClientObjective final : public Objective {
 public:
  TuningClientObjective(std::shared_ptr<const TuningObjective> tuning, int client);
  int dim() const override { return tuning_->dimension(); }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override { return 1.0; }  ///< assumed (a score is at most 1)
  /// Not known: every coordinate NaN.
  Eigen::VectorXd optimum_location() const override;
  std::size_t evaluations() const { return cache_.size(); }

 private:
  std::shared_ptr<const TuningObjective> tuning_;
  int client_;
  ScoreCache cache_;
};

/// The mean of the clients' scores at x, remembered.
class MeanScoreObjective final : public Objective {
 public:
  explicit MeanScoreObjective(std::vector<std::shared_ptr<const Objective>> clients);
  int dim() const override { return clients_.front()->dim(); }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override { return 1.0; }  ///< assumed, as the paper does
  Eigen::VectorXd optimum_location() const override;

 private:
  std::vector<std::shared_ptr<const Objective>> clients_;
  ScoreCache cache_;
};

/// Builds the tuning problem for config.clients clients on `dataset` (the caller loads
/// config.dataset's first config.samples samples). Throws std::invalid_argument for another
/// objective kind or a bad setting, std::runtime_error when the data cannot give every client
/// enough samples.
FederatedProblem make_tuning_problem(const ProblemConfig& config,
                                     std::shared_ptr<const data::Dataset> dataset);

}  // namespace fedsim::xarmed
