#pragma once
/// Multinomial logistic regression trained by mini-batch SGD (issue 14's analogue of DP-FTS-DE's
/// human-activity task, which tunes the batch size, the L2 penalty and the learning rate). The
/// order of the samples in each epoch comes from the given stream, so a training run is a pure
/// function of (data, settings, stream).
#include <vector>

#include <Eigen/Dense>

#include "engine/rng.hpp"

namespace fedsim::trainers {

struct SoftmaxSettings {
  int batch_size = 128;
  double l2 = 1e-4;            ///< penalty l2 |W|^2 / 2 on the weights (not the biases)
  double learning_rate = 0.1;
  int epochs = 20;
  /// Throws std::invalid_argument naming the field (batch_size >= 1, l2 >= 0, learning_rate
  /// > 0, epochs >= 1, all finite).
  void validate() const;
};

struct LinearModel {
  Eigen::MatrixXd w;  ///< d x C
  Eigen::VectorXd b;  ///< C
  /// Classes of the rows of X (n x d): the argmax of x'W + b, or -1 where a score is not finite
  /// (a diverged model predicts nothing).
  std::vector<int> predict(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
};

/// Trains from Glorot-uniform weights (drawn from rng first) and zero biases on X (n x d, n >= 1) with labels in 0 .. classes - 1. Divergence
/// (a learning rate too large) is not an error: the model then holds non-finite weights.
LinearModel train_softmax(const Eigen::Ref<const Eigen::MatrixXd>& X, const std::vector<int>& y,
                          int classes, const SoftmaxSettings& settings, RandomStream& rng);

}  // namespace fedsim::trainers
