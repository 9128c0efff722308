#pragma once
/// The squared-exponential kernel k(x, x') = variance * exp(-|x - x'|^2 / (2 lengthscale^2)).
#include <Eigen/Dense>

namespace fedsim {

struct SeKernel {
  double lengthscale = 1.0;
  double variance = 1.0;  ///< signal variance sigma_0^2

  double operator()(const Eigen::Ref<const Eigen::VectorXd>& a,
                    const Eigen::Ref<const Eigen::VectorXd>& b) const;
  /// Gram matrix. A: n x d, B: m x d (rows are points) -> n x m.
  Eigen::MatrixXd matrix(const Eigen::Ref<const Eigen::MatrixXd>& A,
                         const Eigen::Ref<const Eigen::MatrixXd>& B) const;
  /// Throws std::invalid_argument unless lengthscale > 0 and variance > 0.
  void validate() const;
};

}  // namespace fedsim
