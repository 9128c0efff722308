#pragma once
/// Standardisation with a training set's own statistics (DP-FTS-DE B.2.1: "the inputs for every
/// agent are standardized by removing the mean and dividing by the standard deviation of its
/// training set"). A feature constant on the training set (sd 0, e.g. a border pixel) is only
/// centred.
#include <Eigen/Dense>

namespace fedsim::data {

struct Standardizer {
  Eigen::RowVectorXd mean;
  Eigen::RowVectorXd scale;  ///< 1 / sd, or 1 where sd is 0

  /// The statistics of X (n x d, n >= 1; the population standard deviation).
  static Standardizer fit(const Eigen::Ref<const Eigen::MatrixXd>& X);
  Eigen::MatrixXd apply(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
};

}  // namespace fedsim::data
