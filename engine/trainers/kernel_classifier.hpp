#pragma once
/// A kernel classifier for issue 14's analogue of the landmine task (DP-FTS-DE's SVM, tuning the
/// RBF parameter in [0.01, 10] and the penalty in [1e-4, 10], scored by AUC): the least-squares
/// SVM (Suykens and Vandewalle 1999) without bias, labels +-1, kernel k(x, x') =
/// exp(-gamma |x - x'|^2) (scikit-learn's gamma), penalty C: alpha = (K + I / C)^-1 y and the
/// score f(x) = sum_i alpha_i k(x, x_i). A closed form (one Cholesky solve), so an evaluation is
/// deterministic and needs no stream; the least-squares loss stands in for the hinge loss
/// (docs/real-data.md).
#include <vector>

#include <Eigen/Dense>

namespace fedsim::trainers {

struct KernelClassifier {
  Eigen::MatrixXd support;  ///< the training points, n x d
  Eigen::VectorXd alpha;    ///< n
  double gamma = 1.0;
  /// f(x) for each row of X (NaN if the solve failed).
  Eigen::VectorXd scores(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
};

/// Trains on X (n x d) with labels 0 / 1 (mapped to -1 / +1). gamma > 0 and penalty > 0
/// finite, else std::invalid_argument.
KernelClassifier train_kernel_classifier(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                         const std::vector<int>& y, double gamma, double penalty);

}  // namespace fedsim::trainers
