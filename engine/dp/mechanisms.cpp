#include "engine/dp/mechanisms.hpp"

#include <cmath>
#include <stdexcept>

#include "engine/dp/checks.hpp"
#include "engine/dp/clipping.hpp"

namespace fedsim::dp {

Eigen::VectorXd gaussian_mechanism(const Eigen::Ref<const Eigen::VectorXd>& value, double noise_sd,
                                   RandomStream& rng) {
  if (!(noise_sd >= 0.0) || !std::isfinite(noise_sd))
    throw std::invalid_argument("noise standard deviation must be a finite number >= 0");
  Eigen::VectorXd out = value;
  for (Eigen::Index i = 0; i < out.size(); ++i) out[i] += noise_sd * rng.normal();
  return out;
}

std::vector<int> poisson_subsample(int n, double q, RandomStream& rng) {
  check_sampling_probability(q);
  if (n < 0) throw std::invalid_argument("number of members must be >= 0");
  std::vector<int> chosen;
  for (int i = 0; i < n; ++i)
    if (rng.bernoulli(q)) chosen.push_back(i);
  return chosen;
}

SubsampledGaussianRelease subsampled_gaussian(const Eigen::Ref<const Eigen::MatrixXd>& members,
                                              double q, double clip, double z, RandomStream& rng,
                                              const Eigen::VectorXd& weights) {
  check_noise_multiplier(z);
  const int n = static_cast<int>(members.cols());
  if (weights.size() != 0 && weights.size() != n)
    throw std::invalid_argument("weights must be empty or have one entry per member");
  const double max_weight = weights.size() == 0 ? 1.0 : weights.cwiseAbs().maxCoeff();

  SubsampledGaussianRelease out;
  out.chosen = poisson_subsample(n, q, rng);
  out.value = Eigen::VectorXd::Zero(members.rows());
  Eigen::VectorXd v(members.rows());
  for (int i : out.chosen) {
    v = members.col(i);
    if (clip_to_norm(v, clip)) ++out.clipped;
    out.value += (weights.size() == 0 ? 1.0 : weights[i]) * v;
  }
  out.value = gaussian_mechanism(out.value, z * clip * max_weight, rng);
  return out;
}

}  // namespace fedsim::dp
