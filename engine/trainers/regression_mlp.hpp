#pragma once
/// A one-hidden-layer ReLU network with a scalar output, for regression, with its gradient with
/// respect to the parameters (FN-UCB's neural tangent features) and full-batch gradient descent
/// on the squared error with an L2 pull towards an anchor (FN-UCB's theta_0):
///   f(x; theta) = sum_k v_k relu(w_k . x + b_k) + c,
/// theta flat = [w_1 (d), ..., w_m (d), b (m), v (m), c], p = m (d + 2) + 1 numbers. The
/// classifier of mlp.hpp (softmax output, mini-batch SGD) does not fit this use.
#include <cstddef>

#include <Eigen/Dense>

#include "engine/rng.hpp"

namespace fedsim::trainers {

class RegressionMlp {
 public:
  /// Every parameter N(0, 1) from rng, in theta's order (as torch.nn.init.normal_ with std 1
  /// in FN-UCB's code). Throws std::invalid_argument for input_dim or width < 1.
  static RegressionMlp gaussian(int input_dim, int width, RandomStream& rng);
  /// Throws std::invalid_argument when theta's size is not parameter_count(d, m).
  RegressionMlp(int input_dim, int width, Eigen::VectorXd theta);

  static Eigen::Index parameter_count(int input_dim, int width) {
    return static_cast<Eigen::Index>(width) * (input_dim + 2) + 1;
  }
  int input_dim() const { return d_; }
  int width() const { return m_; }
  const Eigen::VectorXd& theta() const { return theta_; }
  /// Throws std::invalid_argument for a wrong size.
  void set_theta(const Eigen::VectorXd& theta);

  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// One value per row of X.
  Eigen::VectorXd values(const Eigen::Ref<const Eigen::MatrixXd>& X) const;
  /// d f(x; theta) / d theta (p); a unit whose pre-activation is exactly 0 counts as off.
  Eigen::VectorXd gradient(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// One gradient per row of X: n x p.
  Eigen::MatrixXd gradients(const Eigen::Ref<const Eigen::MatrixXd>& X) const;

 private:
  int d_, m_;
  Eigen::VectorXd theta_;
};

struct RegressionSettings {
  int steps = 30;  ///< gradient steps (full batch)
  double learning_rate = 0.01;
  double l2 = 0.1;        ///< the penalty's coefficient (see train_regression)
  void validate() const;  ///< std::invalid_argument naming the field
};

/// Gradient descent from net's current theta on
///   L(theta) = (1/n) sum_j (f(x_j; theta) - y_j)^2 + (l2 / (2n)) |theta - anchor|^2,
/// `steps` steps of size learning_rate (the loss of FN-UCB's code: torch's mean squared error
/// with SGD weight decay l2 / n, here pulling towards the anchor as the paper's loss does).
/// Stops early, leaving the last finite theta, if a step is not finite. Deterministic.
void train_regression(RegressionMlp& net, const Eigen::Ref<const Eigen::MatrixXd>& X,
                      const Eigen::Ref<const Eigen::VectorXd>& y,
                      const Eigen::Ref<const Eigen::VectorXd>& anchor,
                      const RegressionSettings& settings);

}  // namespace fedsim::trainers
