#include "engine/rff.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/rng.hpp"

namespace fedsim {

RandomFourierFeatures::RandomFourierFeatures(int dim, int num_features, SeKernel kernel,
                                             std::uint64_t feature_seed)
    : kernel_(kernel) {
  if (dim <= 0) throw std::invalid_argument("RFF dimension must be > 0");
  if (num_features <= 0) throw std::invalid_argument("number of random features M must be > 0");
  kernel_.validate();
  RandomStream rng(feature_seed, "rff");
  spectral_.resize(num_features, dim);
  phases_.resize(num_features);
  for (int i = 0; i < num_features; ++i) {
    for (int j = 0; j < dim; ++j) spectral_(i, j) = rng.normal() / kernel_.lengthscale;
    phases_(i) = rng.uniform(0.0, 2.0 * M_PI);
  }
}

Eigen::VectorXd RandomFourierFeatures::features(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  Eigen::VectorXd phi = ((spectral_ * x) + phases_).array().cos().matrix();
  // sqrt(2/M) cancels in the normalisation |phi|^2 = sigma_0^2, but is kept for fidelity.
  phi *= std::sqrt(2.0 / num_features());
  return phi * (std::sqrt(kernel_.variance) / phi.norm());
}

Eigen::MatrixXd RandomFourierFeatures::feature_matrix(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  Eigen::MatrixXd phi = ((X * spectral_.transpose()).rowwise() + phases_.transpose()).array().cos();
  phi *= std::sqrt(2.0 / num_features());
  const Eigen::VectorXd scale = std::sqrt(kernel_.variance) * phi.rowwise().norm().cwiseInverse();
  return scale.asDiagonal() * phi;
}

double RandomFourierFeatures::value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                                                 const Eigen::Ref<const Eigen::VectorXd>& omega,
                                                 Eigen::Ref<Eigen::VectorXd> gradient) const {
  // u = sqrt(2/M) cos(Sx + b), f = sigma_0 u'w / |u|;
  // df/dx = sigma_0 (J'w / |u| - (u'w) J'u / |u|^3), with J = -sqrt(2/M) diag(sin(Sx + b)) S.
  const double c = std::sqrt(2.0 / num_features());
  const Eigen::ArrayXd arg = (spectral_ * x + phases_).array();
  const Eigen::VectorXd u = c * arg.cos().matrix();
  const Eigen::VectorXd du = -c * arg.sin().matrix();  // J = diag(du) S
  const double norm = u.norm();
  const double uw = u.dot(omega);
  const double sigma0 = std::sqrt(kernel_.variance);
  const Eigen::VectorXd jw = spectral_.transpose() * du.cwiseProduct(omega);
  const Eigen::VectorXd ju = spectral_.transpose() * du.cwiseProduct(u);
  gradient = sigma0 * (jw / norm - (uw / (norm * norm * norm)) * ju);
  return sigma0 * uw / norm;
}

}  // namespace fedsim
