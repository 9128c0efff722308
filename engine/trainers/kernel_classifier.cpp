#include "engine/trainers/kernel_classifier.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedsim::trainers {

namespace {

/// exp(-gamma |a_i - b_j|^2): |a|^2 + |b|^2 - 2 a.b, clamped at 0 against round-off.
Eigen::MatrixXd rbf(const Eigen::Ref<const Eigen::MatrixXd>& A,
                    const Eigen::Ref<const Eigen::MatrixXd>& B, double gamma) {
  Eigen::MatrixXd d2 = -2.0 * A * B.transpose();
  d2.colwise() += A.rowwise().squaredNorm();
  d2.rowwise() += B.rowwise().squaredNorm().transpose();
  return (-gamma * d2.cwiseMax(0.0)).array().exp().matrix();
}

}  // namespace

Eigen::VectorXd KernelClassifier::scores(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  if (!alpha.allFinite())
    return Eigen::VectorXd::Constant(X.rows(), std::numeric_limits<double>::quiet_NaN());
  return rbf(X, support, gamma) * alpha;
}

KernelClassifier train_kernel_classifier(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                         const std::vector<int>& y, double gamma, double penalty) {
  if (!(std::isfinite(gamma) && gamma > 0) || !(std::isfinite(penalty) && penalty > 0))
    throw std::invalid_argument("kernel classifier: gamma and the penalty must be finite numbers > 0");
  const Eigen::Index n = X.rows();
  if (n < 1 || static_cast<Eigen::Index>(y.size()) != n)
    throw std::invalid_argument("kernel classifier: needs n >= 1 rows and n labels");
  Eigen::VectorXd t(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int label = y[static_cast<std::size_t>(i)];
    if (label != 0 && label != 1) throw std::invalid_argument("kernel classifier: labels must be 0 or 1");
    t(i) = label == 1 ? 1.0 : -1.0;
  }
  KernelClassifier c;
  c.support = X;
  c.gamma = gamma;
  Eigen::MatrixXd k = rbf(X, X, gamma);
  k.diagonal().array() += 1.0 / penalty;
  const Eigen::LLT<Eigen::MatrixXd> llt(k);
  c.alpha = llt.info() == Eigen::Success
                ? Eigen::VectorXd(llt.solve(t))
                : Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  return c;
}

}  // namespace fedsim::trainers
