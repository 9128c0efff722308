#pragma once
/// One FBO agent's state on a discrete domain: its observations, its feature-space posterior
/// (for the omega_{n,t} it sends), and its own GP for local Thompson sampling. The decisions
/// of each algorithm (which branch, which message) live in algorithms.hpp.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/gp_exact.hpp"
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

  /// Throws std::invalid_argument if a sub-region holds no grid point.
  AgentContext(Grid grid, RandomFourierFeatures features, Partition partition, double lambda,
               double beta, LocalSampler local_sampler);
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
  /// Records y observed at grid point `index`.
  void observe(int index, double y);
  /// omega_{n,t} ~ N(nu, lambda Sigma^-1), the vector sent to the server.
  Eigen::VectorXd sample_message(RandomStream& rng) const;

 private:
  int id_;
  int region_;
  std::shared_ptr<const AgentContext> context_;
  FeaturePosterior posterior_;
  std::optional<ExactGp> exact_;  ///< present with LocalSampler::exact
};

}  // namespace fedsim::fbo
