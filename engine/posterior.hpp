#pragma once
/// Bayesian linear regression in random-feature space (FTS eq. 2-3, DP-FTS-DE eq. 2):
/// Sigma = Phi'Phi + lambda I, nu = Sigma^-1 Phi'y, omega ~ N(nu, lambda Sigma^-1).
/// Sigma is held as a Cholesky factor updated by one rank-1 update per observation, O(M^2),
/// never refactorised from scratch.
#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "engine/rng.hpp"

namespace fedsim {

class FeaturePosterior {
 public:
  /// num_features M > 0; lambda > 0 is the noise variance / regulariser.
  FeaturePosterior(int num_features, double lambda);

  /// Adds one observation y at features phi (M): Sigma += phi phi', Phi'y += phi y.
  void observe(const Eigen::Ref<const Eigen::VectorXd>& phi, double y);

  int num_features() const { return static_cast<int>(phi_y_.size()); }
  int num_observations() const { return count_; }
  double lambda() const { return lambda_; }

  /// nu = Sigma^-1 Phi'y (M).
  Eigen::VectorXd mean() const;
  /// lambda Sigma^-1 (M x M); for tests and diagnostics, O(M^3).
  Eigen::MatrixXd covariance() const;
  /// A draw of omega ~ N(nu, scale^2 lambda Sigma^-1) (scale = beta of the papers' TS).
  Eigen::VectorXd sample(RandomStream& rng, double scale = 1.0) const;
  /// Predictive mean phi'nu and variance lambda phi'Sigma^-1 phi (FTS appendix B).
  double predictive_mean(const Eigen::Ref<const Eigen::VectorXd>& phi) const;
  double predictive_variance(const Eigen::Ref<const Eigen::VectorXd>& phi) const;

  /// The Cholesky factor of Sigma (M x M), kept current by rank-1 updates.
  const Eigen::LLT<Eigen::MatrixXd>& factor() const { return llt_; }

 private:
  double lambda_;
  int count_ = 0;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd phi_y_;
};

}  // namespace fedsim
