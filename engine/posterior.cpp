#include "engine/posterior.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim {

FeaturePosterior::FeaturePosterior(int num_features, double lambda)
    : lambda_(lambda), phi_y_(Eigen::VectorXd::Zero(num_features > 0 ? num_features : 0)) {
  if (num_features <= 0) throw std::invalid_argument("number of random features M must be > 0");
  if (!(lambda > 0.0) || !std::isfinite(lambda))
    throw std::invalid_argument("posterior lambda (noise variance) must be a finite number > 0");
  llt_.compute(lambda * Eigen::MatrixXd::Identity(num_features, num_features));
}

void FeaturePosterior::observe(const Eigen::Ref<const Eigen::VectorXd>& phi, double y) {
  llt_.rankUpdate(phi, 1.0);
  phi_y_ += phi * y;
  ++count_;
}

Eigen::VectorXd FeaturePosterior::mean() const { return llt_.solve(phi_y_); }

Eigen::MatrixXd FeaturePosterior::covariance() const {
  return lambda_ * llt_.solve(Eigen::MatrixXd::Identity(num_features(), num_features()));
}

Eigen::VectorXd FeaturePosterior::sample(RandomStream& rng, double scale) const {
  // Sigma = L L' => L'^-1 z has covariance Sigma^-1.
  Eigen::VectorXd z(num_features());
  for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = rng.normal();
  llt_.matrixU().solveInPlace(z);
  return mean() + (scale * std::sqrt(lambda_)) * z;
}

double FeaturePosterior::predictive_mean(const Eigen::Ref<const Eigen::VectorXd>& phi) const {
  return phi.dot(mean());
}

double FeaturePosterior::predictive_variance(const Eigen::Ref<const Eigen::VectorXd>& phi) const {
  const Eigen::VectorXd half = llt_.matrixL().solve(phi);
  return lambda_ * half.squaredNorm();
}

}  // namespace fedsim
