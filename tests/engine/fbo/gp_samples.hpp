#pragma once
// Data for the refit tests: draws of a GP with known hyperparameters at uniform points.
#include <cmath>
#include <cstdint>

#include <Eigen/Dense>

#include "engine/kernel.hpp"
#include "engine/rng.hpp"

namespace fedsim::test {

/// y = f(X) + noise with f ~ GP(0, s2 exp(-|x - x'|^2 / (2 l^2))), noise ~ N(0, n2).
inline Eigen::VectorXd gp_draw(const Eigen::MatrixXd& X, double l, double s2, double n2,
                               std::uint64_t seed) {
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd k = SeKernel{l, s2}.matrix(X, X);
  k.diagonal().array() += 1e-8 * s2;
  const Eigen::MatrixXd chol = k.llt().matrixL();
  RandomStream rng(seed, "test.gp-draw");
  Eigen::VectorXd z(n), e(n);
  for (Eigen::Index i = 0; i < n; ++i) z(i) = rng.normal();
  for (Eigen::Index i = 0; i < n; ++i) e(i) = rng.normal();
  return chol * z + std::sqrt(n2) * e;
}

/// n points uniform in [0, 1]^d.
inline Eigen::MatrixXd uniform_points(int n, int d, std::uint64_t seed) {
  RandomStream rng(seed, "test.points");
  Eigen::MatrixXd X(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) X(i, j) = rng.uniform(0.0, 1.0);
  return X;
}

}  // namespace fedsim::test
