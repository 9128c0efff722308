#pragma once
/// One FBO agent's state on a discrete domain: its observations, its feature-space posterior
/// (for the omega_{n,t} it sends), and its own GP for local Thompson sampling, whose
/// hyperparameters it may refit during the run (engine/fbo/refit.hpp says which parts use the
/// fitted values). The decisions of each algorithm (which branch, which message) live in
/// algorithms.hpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/fbo/refit.hpp"
#include "engine/gp_exact.hpp"
#include "engine/hyperparameters.hpp"
#include "engine/posterior.hpp"
#include "engine/rff.hpp"
#include "engine/rng.hpp"

namespace fedsim::fbo {

/// How an agent draws a function from its own posterior for local TS.
/// rff: f = phi(x)'omega, omega ~ N(nu, beta^2 lambda Sigma^-1) (FTS section 3.2's cheap way);
/// exact: the exact GP posterior on the grid, drawn by pathwise conditioning.
enum class LocalSampler { rff, exact };
LocalSampler parse_local_sampler(const std::string& name);  ///< "rff" or "exact"
std::string to_string(LocalSampler sampler);

/// Everything agents share, built once per run and never mutated (shared by pointer).
struct AgentContext {
  Grid grid;                            ///< candidate points: n_c x d
  RandomFourierFeatures features;       ///< the shared random features
  Eigen::MatrixXd grid_features;        ///< Phi(grid): n_c x M
  Partition partition;                  ///< DE sub-regions
  std::vector<int> grid_region;         ///< sub-region of each grid point: n_c
  std::vector<std::vector<int>> region_points;  ///< grid indices of each sub-region
  double lambda = 0.01;                 ///< noise variance / regulariser
  double beta = 1.0;                    ///< TS scale (the papers' experiments use 1)
  LocalSampler local_sampler = LocalSampler::rff;
  /// Low-rank prior factor of the grid for exact local TS (null with the rff sampler).
  std::shared_ptr<const CandidatePrior> prior;
  /// Hyperparameter refits of the agents' local models (off by default).
  RefitConfig refit;
  std::uint64_t seed = 1;  ///< the run seed, keying the refits' streams

  /// Throws std::invalid_argument if a sub-region holds no grid point or refit is invalid.
  AgentContext(Grid grid, RandomFourierFeatures features, Partition partition, double lambda,
               double beta, LocalSampler local_sampler, RefitConfig refit = {},
               std::uint64_t seed = 1);
};

class FboAgent {
 public:
  FboAgent(int id, int region, std::shared_ptr<const AgentContext> context);

  int id() const { return id_; }
  int region() const { return region_; }
  int num_observations() const { return posterior_.num_observations(); }

  /// n_init grid indices drawn uniformly from the agent's sub-region (or the whole grid).
  std::vector<int> initial_design(int n_init, bool in_region, RandomStream& rng) const;
  /// Local TS: argmax of one function drawn from the agent's own posterior.
  int argmax_local_ts(RandomStream& rng) const;
  /// argmax over the grid of phi(x)'omega.
  int argmax_omega(const Eigen::Ref<const Eigen::VectorXd>& omega) const;
  /// argmax over the grid of phi(x)'omega^(i[x]) (DP-FTS-DE Algo 2 line 8). joint: M x P.
  int argmax_joint(const Eigen::Ref<const Eigen::MatrixXd>& joint) const;
  /// Records y observed at grid point `index`; when this observation's count is due
  /// (context.refit.due), refits the local model's hyperparameters from the whole history.
  void observe(int index, double y);
  /// omega_{n,t} ~ N(nu, lambda Sigma^-1), the vector sent to the server: always the shared
  /// model (configured lambda, signal variance 1), never the fitted one.
  Eigen::VectorXd sample_message(RandomStream& rng) const;

  /// The local model's hyperparameters: the last refit's, or before any the shared model's
  /// (kernel lengthscale, signal variance 1, noise variance lambda).
  const GpHyperparameters& local_hyperparameters() const { return local_; }
  int refits() const { return refits_; }  ///< refits done so far
  /// The feature posterior local TS samples with the rff sampler (at scale beta sqrt(s2)):
  /// the shared one, or after a refit the one with regulariser n2 / s2.
  const FeaturePosterior& local_posterior() const {
    return local_posterior_ ? *local_posterior_ : posterior_;
  }
  /// The exact GP local TS samples (LocalSampler::exact), else null.
  const ExactGp* exact_gp() const { return exact_ ? &*exact_ : nullptr; }
  /// (grid index, y) of every observation, in order.
  const std::vector<std::pair<int, double>>& history() const { return history_; }

 private:
  void refit();

  int id_;
  int region_;
  std::shared_ptr<const AgentContext> context_;
  FeaturePosterior posterior_;    ///< the shared model: messages, and local TS before a refit
  std::optional<ExactGp> exact_;  ///< present with LocalSampler::exact
  /// rff sampler after a refit: the posterior with regulariser n2 / s2 (refit.hpp).
  std::optional<FeaturePosterior> local_posterior_;
  GpHyperparameters local_;
  int refits_ = 0;
  std::vector<std::pair<int, double>> history_;
};

}  // namespace fedsim::fbo
