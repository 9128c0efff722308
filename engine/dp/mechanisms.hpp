#pragma once
/// The Gaussian and the Poisson-subsampled Gaussian mechanisms, drawing from an explicit
/// RandomStream. The accountants in this folder price exactly these releases.
#include <Eigen/Dense>
#include <vector>

#include "engine/rng.hpp"

namespace fedsim::dp {

/// value + N(0, noise_sd^2 I). noise_sd = z * sensitivity; noise_sd >= 0.
Eigen::VectorXd gaussian_mechanism(const Eigen::Ref<const Eigen::VectorXd>& value, double noise_sd,
                                   RandomStream& rng);

/// Poisson subsampling: each of n members is chosen independently with probability q
/// (one uniform draw per member, in order). Returns the chosen indices, ascending.
std::vector<int> poisson_subsample(int n, double q, RandomStream& rng);

/// What one subsampled Gaussian release produced.
struct SubsampledGaussianRelease {
  Eigen::VectorXd value;    ///< noisy weighted sum of the clipped vectors of the chosen members
  std::vector<int> chosen;  ///< members the subsampling chose
  int clipped = 0;          ///< how many chosen vectors had norm > clip
};

/// One release of the subsampled Gaussian mechanism on the columns of `members`: choose each
/// member with probability q, clip its vector to norm `clip`, sum with `weights` (all 1 when
/// empty) and add N(0, (z clip max|w|)^2 I), max|w| clip being the sum's sensitivity to adding
/// or removing one member. Draws n uniforms then dim normals from rng. The caller rescales
/// (e.g. divides by q) afterwards; post-processing does not change the privacy cost.
SubsampledGaussianRelease subsampled_gaussian(const Eigen::Ref<const Eigen::MatrixXd>& members,
                                              double q, double clip, double z, RandomStream& rng,
                                              const Eigen::VectorXd& weights = {});

}  // namespace fedsim::dp
