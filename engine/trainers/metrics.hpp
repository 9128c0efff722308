#pragma once
/// Validation metrics of the tuning objectives (issue 14): error rate and the area under the ROC
/// curve. A prediction or score that is not a number (a diverged model) counts against the
/// model: a wrong class, the lowest score.
#include <vector>

#include <Eigen/Dense>

namespace fedsim::trainers {

/// The column of each row's largest score, or -1 where a score of the row is not finite (a
/// diverged model predicts nothing).
std::vector<int> argmax_rows(const Eigen::Ref<const Eigen::MatrixXd>& scores);

/// Fraction of predictions that differ from the labels (a prediction < 0: no class, wrong).
/// Equal, non-empty sizes, else std::invalid_argument.
double error_rate(const std::vector<int>& predicted, const std::vector<int>& labels);

/// The area under the ROC curve of `scores` for labels 1 (positive) against 0: the probability
/// that a random positive scores above a random negative, ties counting one half (Mann-Whitney
/// U with mid-ranks). NaN scores rank lowest. Throws std::invalid_argument on unequal sizes or
/// labels other than 0 and 1; returns 0.5 when one class is absent (no ranking to judge).
double roc_auc(const Eigen::Ref<const Eigen::VectorXd>& scores, const std::vector<int>& labels);

}  // namespace fedsim::trainers
