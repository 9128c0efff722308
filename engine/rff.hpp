#pragma once
/// Random Fourier features for the SE kernel, exactly as FTS appendix A:
/// s_i ~ N(0, I / l^2), b_i ~ U[0, 2 pi], phi_i(x) = sqrt(2/M) cos(s_i.x + b_i), then each
/// phi(x) normalised so that |phi(x)|^2 = sigma_0^2. Built from a shared feature seed, so every
/// agent that uses the same (seed, dim, M, kernel) gets identical features.
#include <cstdint>

#include <Eigen/Dense>

#include "engine/kernel.hpp"

namespace fedsim {

class RandomFourierFeatures {
 public:
  /// Throws std::invalid_argument if dim <= 0, num_features <= 0 or the kernel is invalid.
  RandomFourierFeatures(int dim, int num_features, SeKernel kernel, std::uint64_t feature_seed);

  int dim() const { return static_cast<int>(spectral_.cols()); }
  int num_features() const { return static_cast<int>(spectral_.rows()); }
  const SeKernel& kernel() const { return kernel_; }

  /// phi(x): M.
  Eigen::VectorXd features(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// Phi(X): n x M, row j = phi(X.row(j)). X: n x d.
  Eigen::MatrixXd feature_matrix(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
  /// phi(x)'omega and its gradient with respect to x (d).
  double value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                            const Eigen::Ref<const Eigen::VectorXd>& omega,
                            Eigen::Ref<Eigen::VectorXd> gradient) const;

  /// Spectral samples: M x d (row i is s_i).
  const Eigen::MatrixXd& spectral() const { return spectral_; }
  /// Phases b: M.
  const Eigen::VectorXd& phases() const { return phases_; }

 private:
  SeKernel kernel_;
  Eigen::MatrixXd spectral_;
  Eigen::VectorXd phases_;
};

}  // namespace fedsim
