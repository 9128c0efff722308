#pragma once
/// The exact GP posterior on a fixed finite candidate set (the standard-TS baseline), with
/// incremental Cholesky updates and two samplers of a whole posterior function: a dense
/// Cholesky reference and pathwise conditioning (Wilson et al. 2020) on a shared prior factor.
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "engine/kernel.hpp"
#include "engine/rng.hpp"

namespace fedsim {

/// A fixed candidate set with a low-rank factor of its prior covariance, K_cc ~= F F'
/// (F: n_c x r), by pivoted Cholesky. Computed once per candidate set and shared immutably
/// (std::shared_ptr<const CandidatePrior>) by every GP that samples on it.
class CandidatePrior {
 public:
  /// Stops when every residual diagonal entry of K_cc - F F' is <= relative_tolerance *
  /// kernel.variance; the residual is PSD, so every entry of K_cc - F F' is then within that
  /// bound too. candidates: n_c x d, rows are points. Throws std::invalid_argument on an empty
  /// candidate set, an invalid kernel or a tolerance outside (0, 1).
  CandidatePrior(Eigen::MatrixXd candidates, SeKernel kernel, double relative_tolerance = 1e-10);

  /// candidates: n_c x d, rows are points.
  const Eigen::MatrixXd& candidates() const { return candidates_; }
  const SeKernel& kernel() const { return kernel_; }
  int size() const { return static_cast<int>(candidates_.rows()); }
  int dim() const { return static_cast<int>(candidates_.cols()); }
  /// F: n_c x r, K_cc ~= F F'.
  const Eigen::MatrixXd& factor() const { return factor_; }
  int rank() const { return static_cast<int>(factor_.cols()); }
  /// The largest residual diagonal entry of K_cc - F F' at termination (absolute).
  double truncation_error() const { return truncation_error_; }
  /// A prior draw on the candidates: F z, z ~ N(0, I_r). n_c.
  Eigen::VectorXd sample(RandomStream& rng) const;

 private:
  Eigen::MatrixXd candidates_;
  SeKernel kernel_;
  Eigen::MatrixXd factor_;
  double truncation_error_ = 0.0;
};

/// The exact GP posterior given observations y_s = f(x_s) + noise, prior GP(0, k), with
/// regulariser / noise variance lambda: mean k_cX (K_XX + lambda I)^{-1} y and covariance
/// K_cc - K_cX (K_XX + lambda I)^{-1} K_Xc on the candidates.
class ExactGp {
 public:
  /// Throws std::invalid_argument if prior is null or lambda is not a finite number > 0.
  ExactGp(std::shared_ptr<const CandidatePrior> prior, double lambda);

  const CandidatePrior& prior() const { return *prior_; }
  double lambda() const { return lambda_; }
  int num_candidates() const { return prior_->size(); }
  int num_observations() const { return t_; }

  /// Observes y at candidate point `candidate` (0 <= candidate < n_c). O(n_c t + t^2).
  void add_observation(int candidate, double y);
  /// Observes y at an arbitrary point x (d). Mean, variance and sample_dense accept such
  /// observations; sample_pathwise needs every observation to be at a candidate.
  void add_observation(const Eigen::Ref<const Eigen::VectorXd>& x, double y);

  /// Observed points: t x d, rows are points.
  Eigen::MatrixXd observed_points() const { return points_.topRows(t_); }
  /// Observed values: t.
  Eigen::VectorXd observed_values() const { return values_.head(t_); }
  /// Candidate index of each observation (-1 for an observation off the candidate set): t.
  const std::vector<int>& observed_candidates() const { return candidate_of_; }
  /// The lower Cholesky factor of K_XX + lambda I: t x t, built by bordered updates.
  Eigen::MatrixXd cholesky() const { return chol_.topLeftCorner(t_, t_); }

  /// Posterior mean on the candidates: n_c.
  Eigen::VectorXd mean() const;
  /// Posterior variance on the candidates: n_c.
  Eigen::VectorXd variance() const;
  /// Posterior mean at arbitrary points. X: m x d, rows are points -> m.
  Eigen::VectorXd mean(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
  /// Posterior variance at arbitrary points. X: m x d, rows are points -> m.
  Eigen::VectorXd variance(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
  /// The full posterior covariance on the candidates: n_c x n_c. O(n_c^2 (t + d)).
  Eigen::MatrixXd covariance() const;

  /// A posterior function on the candidates, f = mu + beta (g - mu), g ~ GP posterior, i.e.
  /// a draw from N(mu, beta^2 Sigma). Dense Cholesky of Sigma plus a jitter of 1e-10 *
  /// variance (raised tenfold until it factorises): the slow exact reference, O(n_c^3). n_c.
  Eigen::VectorXd sample_dense(RandomStream& rng, double beta = 1.0) const;
  /// The same law by pathwise conditioning: a prior draw g0 = F z on the candidates, then
  /// g = g0 + K_cX (K_XX + lambda I)^{-1} (y - g0(X) - eps), eps ~ N(0, lambda I).
  /// Exact up to the prior factor's truncation. O(n_c r + n_c t + t^2). Throws
  /// std::logic_error if an observation is off the candidate set. n_c.
  Eigen::VectorXd sample_pathwise(RandomStream& rng, double beta = 1.0) const;

 private:
  void append(const Eigen::Ref<const Eigen::VectorXd>& x, const Eigen::VectorXd& k_cx,
              int candidate, double y);
  void reserve(int capacity);
  /// (K_XX + lambda I)^{-1} y: t.
  Eigen::VectorXd alpha() const;

  std::shared_ptr<const CandidatePrior> prior_;
  double lambda_;
  int t_ = 0;
  // Storage grows by doubling; only the leading t_ rows / columns are in use.
  Eigen::MatrixXd points_;    // capacity x d
  Eigen::VectorXd values_;    // capacity
  Eigen::MatrixXd chol_;      // capacity x capacity, lower L with L L' = K_XX + lambda I
  Eigen::MatrixXd whitened_;  // n_c x capacity: W = K_cX L^{-T}, so W W' = K_cX (K+lI)^-1 K_Xc
  Eigen::VectorXd white_y_;   // capacity: L^{-1} y, so the mean is W L^{-1} y
  std::vector<int> candidate_of_;
  bool all_on_candidates_ = true;
};

}  // namespace fedsim
