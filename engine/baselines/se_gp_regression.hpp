#pragma once
/// GP regression with an SE kernel (one lengthscale, or one per axis), zero prior mean and
/// Gaussian noise, at arbitrary points, with the gradients a box maximiser of an acquisition
/// needs: of the posterior mean and variance, and the mean's Hessian (for the Lipschitz
/// estimate of local penalisation). engine/gp_exact.hpp's ExactGp lives on a candidate set and
/// has no gradients; this is its off-grid counterpart for GP-BO.
#include <Eigen/Dense>

#include "engine/hyperparameters.hpp"

namespace fedsim::baselines {

class SeGpRegression {
 public:
  /// X: n x d, rows are points (n >= 1); y: n; h: 1 or d lengthscales, positive variances.
  /// Factorises K = k(X, X) + noise I (adding a jitter of 1e-10 signal_variance, raised tenfold
  /// up to 1e-4, if rounding makes it fail). Throws std::invalid_argument on bad shapes.
  SeGpRegression(Eigen::MatrixXd X, Eigen::VectorXd y, GpHyperparameters h);

  int dim() const { return static_cast<int>(X_.cols()); }
  const Eigen::MatrixXd& inputs() const { return X_; }
  const Eigen::VectorXd& targets() const { return y_; }
  const GpHyperparameters& hyperparameters() const { return h_; }

  /// Prior covariance k(x, x') (without noise).
  double kernel(const Eigen::Ref<const Eigen::VectorXd>& a,
                const Eigen::Ref<const Eigen::VectorXd>& b) const;
  /// Posterior mean of f at x; its gradient (d) into `gradient` when non-null.
  double mean(const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::VectorXd* gradient = nullptr) const;
  /// Posterior variance of f (noise-free) at x, >= 0; its gradient into `gradient`.
  double variance(const Eigen::Ref<const Eigen::VectorXd>& x,
                  Eigen::VectorXd* gradient = nullptr) const;
  /// Mean and variance with their gradients in one pass (the acquisitions' hot path).
  void predict(const Eigen::Ref<const Eigen::VectorXd>& x, double& mean, double& variance,
               Eigen::VectorXd* mean_gradient, Eigen::VectorXd* variance_gradient) const;
  /// Hessian of the posterior mean at x: d x d.
  Eigen::MatrixXd mean_hessian(const Eigen::Ref<const Eigen::VectorXd>& x) const;

 private:
  double lengthscale(Eigen::Index j) const {
    return h_.lengthscales(h_.lengthscales.size() == 1 ? 0 : j);
  }
  Eigen::MatrixXd X_;
  Eigen::VectorXd y_;
  GpHyperparameters h_;
  Eigen::VectorXd inv_l2_;  // 1 / l_j^2: d
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;   // K^{-1} y
};

}  // namespace fedsim::baselines
