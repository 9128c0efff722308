#pragma once
/// A one-hidden-layer perceptron (ReLU, softmax output) trained by mini-batch SGD with a
/// decaying learning rate and an L2 penalty: issue 14's analogue of DP-FTS-DE's EMNIST CNN,
/// which tunes exactly these three (learning rate, learning-rate decay, L2, each in
/// [1e-7, 0.02]). A one-hidden-layer network stands in for the CNN (docs/real-data.md says why).
/// The initial weights (He-uniform) and each epoch's order come from the given stream.
#include <vector>

#include <Eigen/Dense>

#include "engine/rng.hpp"

namespace fedsim::trainers {

struct MlpSettings {
  int hidden = 32;
  int batch_size = 32;
  int epochs = 20;
  double learning_rate = 0.01;
  /// Step k (from 0) uses learning_rate / (1 + decay k), Keras's classic time-based decay.
  double decay = 1e-4;
  double l2 = 1e-4;  ///< penalty l2 |W|^2 / 2 on both weight matrices
  void validate() const;  ///< std::invalid_argument naming the field
};

struct Mlp {
  Eigen::MatrixXd w1;  ///< d x h
  Eigen::VectorXd b1;  ///< h
  Eigen::MatrixXd w2;  ///< h x C
  Eigen::VectorXd b2;  ///< C
  /// Classes of the rows of X, -1 where a score is not finite.
  std::vector<int> predict(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
};

Mlp train_mlp(const Eigen::Ref<const Eigen::MatrixXd>& X, const std::vector<int>& y, int classes,
              const MlpSettings& settings, RandomStream& rng);

}  // namespace fedsim::trainers
