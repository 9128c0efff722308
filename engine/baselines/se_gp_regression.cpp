#include "engine/baselines/se_gp_regression.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace fedsim::baselines {

SeGpRegression::SeGpRegression(Eigen::MatrixXd X, Eigen::VectorXd y, GpHyperparameters h)
    : X_(std::move(X)), y_(std::move(y)), h_(std::move(h)) {
  const Eigen::Index n = X_.rows(), d = X_.cols();
  if (n < 1 || d < 1) throw std::invalid_argument("GP regression needs at least one point");
  if (y_.size() != n) throw std::invalid_argument("GP regression: X and y disagree on n");
  if (h_.lengthscales.size() != 1 && h_.lengthscales.size() != d)
    throw std::invalid_argument("GP regression needs 1 or d lengthscales");
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!h_.lengthscales.unaryExpr(positive).all() || !positive(h_.signal_variance) ||
      !positive(h_.noise_variance))
    throw std::invalid_argument("GP regression needs finite positive hyperparameters");
  inv_l2_.resize(d);
  for (Eigen::Index j = 0; j < d; ++j) inv_l2_(j) = 1.0 / (lengthscale(j) * lengthscale(j));
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = 0; b <= a; ++b) k(a, b) = k(b, a) = kernel(X_.row(a), X_.row(b));
  k.diagonal().array() += h_.noise_variance;
  for (double jitter = 0.0;; jitter = jitter == 0.0 ? 1e-10 * h_.signal_variance : 10.0 * jitter) {
    if (jitter > 1e-4 * h_.signal_variance)
      throw std::runtime_error("GP regression: K + noise I does not factorise");
    Eigen::MatrixXd a = k;
    a.diagonal().array() += jitter;
    llt_.compute(a);
    if (llt_.info() == Eigen::Success) break;
  }
  alpha_ = llt_.solve(y_);
}

double SeGpRegression::kernel(const Eigen::Ref<const Eigen::VectorXd>& a,
                              const Eigen::Ref<const Eigen::VectorXd>& b) const {
  return h_.signal_variance *
         std::exp(-0.5 * ((a - b).array().square() * inv_l2_.array()).sum());
}

void SeGpRegression::predict(const Eigen::Ref<const Eigen::VectorXd>& x, double& mean,
                             double& variance, Eigen::VectorXd* mean_gradient,
                             Eigen::VectorXd* variance_gradient) const {
  const Eigen::Index n = X_.rows(), d = X_.cols();
  if (x.size() != d) throw std::invalid_argument("GP regression: point has the wrong dimension");
  Eigen::VectorXd k(n);
  for (Eigen::Index i = 0; i < n; ++i) k(i) = kernel(x, X_.row(i));
  mean = k.dot(alpha_);
  const Eigen::VectorXd kinv_k = llt_.solve(k);
  variance = std::max(0.0, h_.signal_variance - k.dot(kinv_k));
  if (!mean_gradient && !variance_gradient) return;
  // dk_i/dx = -k_i (x - x_i) o inv_l2: row i of D (n x d).
  Eigen::MatrixXd dk = (X_.rowwise() - x.transpose()).array().rowwise() * inv_l2_.transpose().array();
  dk.array().colwise() *= k.array();  // = k_i (x_i - x) / l^2 = dk_i/dx
  if (mean_gradient) *mean_gradient = dk.transpose() * alpha_;
  if (variance_gradient) *variance_gradient = -2.0 * (dk.transpose() * kinv_k);
}

double SeGpRegression::mean(const Eigen::Ref<const Eigen::VectorXd>& x,
                            Eigen::VectorXd* gradient) const {
  double m = 0.0, v = 0.0;
  predict(x, m, v, gradient, nullptr);
  return m;
}

double SeGpRegression::variance(const Eigen::Ref<const Eigen::VectorXd>& x,
                                Eigen::VectorXd* gradient) const {
  double m = 0.0, v = 0.0;
  predict(x, m, v, nullptr, gradient);
  return v;
}

Eigen::MatrixXd SeGpRegression::mean_hessian(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Eigen::Index n = X_.rows(), d = X_.cols();
  if (x.size() != d) throw std::invalid_argument("GP regression: point has the wrong dimension");
  // d2 k_i / dx dx' = k_i (u_i u_i' - diag(inv_l2)), u_i = (x - x_i) o inv_l2.
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(d, d);
  double weight_sum = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = alpha_(i) * kernel(x, X_.row(i));
    const Eigen::VectorXd u = (x - X_.row(i).transpose()).cwiseProduct(inv_l2_);
    h.noalias() += w * u * u.transpose();
    weight_sum += w;
  }
  h.diagonal() -= weight_sum * inv_l2_;
  return h;
}

}  // namespace fedsim::baselines
