#include "engine/kernel.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim {

double SeKernel::operator()(const Eigen::Ref<const Eigen::VectorXd>& a,
                            const Eigen::Ref<const Eigen::VectorXd>& b) const {
  return variance * std::exp(-(a - b).squaredNorm() / (2.0 * lengthscale * lengthscale));
}

Eigen::MatrixXd SeKernel::matrix(const Eigen::Ref<const Eigen::MatrixXd>& A,
                                 const Eigen::Ref<const Eigen::MatrixXd>& B) const {
  // |a - b|^2 = |a|^2 + |b|^2 - 2 a.b, clamped at 0 against rounding.
  const Eigen::VectorXd a2 = A.rowwise().squaredNorm();
  const Eigen::VectorXd b2 = B.rowwise().squaredNorm();
  Eigen::MatrixXd d2 = (-2.0 * A * B.transpose()).colwise() + a2;
  d2.rowwise() += b2.transpose();
  const double scale = -1.0 / (2.0 * lengthscale * lengthscale);
  return variance * (d2.cwiseMax(0.0) * scale).array().exp().matrix();
}

void SeKernel::validate() const {
  if (!(lengthscale > 0.0) || !std::isfinite(lengthscale))
    throw std::invalid_argument("kernel lengthscale must be a finite number > 0");
  if (!(variance > 0.0) || !std::isfinite(variance))
    throw std::invalid_argument("kernel variance must be a finite number > 0");
}

}  // namespace fedsim
