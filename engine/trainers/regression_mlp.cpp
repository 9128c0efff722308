#include "engine/trainers/regression_mlp.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim::trainers {

RegressionMlp RegressionMlp::gaussian(int input_dim, int width, RandomStream& rng) {
  if (input_dim < 1 || width < 1)
    throw std::invalid_argument("regression mlp: input_dim and width must be >= 1");
  Eigen::VectorXd theta(parameter_count(input_dim, width));
  for (Eigen::Index i = 0; i < theta.size(); ++i) theta(i) = rng.normal();
  return RegressionMlp(input_dim, width, std::move(theta));
}

RegressionMlp::RegressionMlp(int input_dim, int width, Eigen::VectorXd theta)
    : d_(input_dim), m_(width), theta_(std::move(theta)) {
  if (d_ < 1 || m_ < 1)
    throw std::invalid_argument("regression mlp: input_dim and width must be >= 1");
  if (theta_.size() != parameter_count(d_, m_))
    throw std::invalid_argument("regression mlp: theta has " + std::to_string(theta_.size()) +
                                " numbers, expected " + std::to_string(parameter_count(d_, m_)));
}

void RegressionMlp::set_theta(const Eigen::VectorXd& theta) {
  if (theta.size() != theta_.size())
    throw std::invalid_argument("regression mlp: theta has the wrong size");
  theta_ = theta;
}

namespace {

// Views into theta: W (m x d, row k = w_k), b, v, c.
struct Parts {
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> w;
  Eigen::Map<const Eigen::VectorXd> b, v;
  double c;
  Parts(const Eigen::VectorXd& t, int d, int m)
      : w(t.data(), m, d), b(t.data() + m * d, m), v(t.data() + m * d + m, m), c(t(m * (d + 2))) {}
};

}  // namespace

double RegressionMlp::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Parts p(theta_, d_, m_);
  return p.v.dot((p.w * x + p.b).cwiseMax(0.0)) + p.c;
}

Eigen::VectorXd RegressionMlp::values(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  const Parts p(theta_, d_, m_);
  const Eigen::MatrixXd h = ((X * p.w.transpose()).rowwise() + p.b.transpose()).cwiseMax(0.0);
  return (h * p.v).array() + p.c;
}

Eigen::VectorXd RegressionMlp::gradient(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Eigen::MatrixXd X = x.transpose();
  return gradients(X).row(0).transpose();
}

Eigen::MatrixXd RegressionMlp::gradients(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  const Parts p(theta_, d_, m_);
  const Eigen::Index n = X.rows();
  const Eigen::MatrixXd pre = (X * p.w.transpose()).rowwise() + p.b.transpose();  // n x m
  Eigen::MatrixXd g(n, theta_.size());
  for (Eigen::Index r = 0; r < n; ++r) {
    for (int k = 0; k < m_; ++k) {
      const bool on = pre(r, k) > 0.0;
      const double dv = on ? p.v(k) : 0.0;  // d f / d (w_k . x + b_k)
      for (int j = 0; j < d_; ++j) g(r, k * d_ + j) = dv * X(r, j);
      g(r, m_ * d_ + k) = dv;
      g(r, m_ * d_ + m_ + k) = on ? pre(r, k) : 0.0;
    }
    g(r, m_ * (d_ + 2)) = 1.0;
  }
  return g;
}

void RegressionSettings::validate() const {
  if (steps < 0) throw std::invalid_argument("regression: steps must be >= 0");
  if (!(std::isfinite(learning_rate) && learning_rate > 0))
    throw std::invalid_argument("regression: learning_rate must be a finite number > 0");
  if (!(std::isfinite(l2) && l2 >= 0))
    throw std::invalid_argument("regression: l2 must be a finite number >= 0");
}

void train_regression(RegressionMlp& net, const Eigen::Ref<const Eigen::MatrixXd>& X,
                      const Eigen::Ref<const Eigen::VectorXd>& y,
                      const Eigen::Ref<const Eigen::VectorXd>& anchor,
                      const RegressionSettings& s) {
  s.validate();
  const Eigen::Index n = X.rows();
  if (n < 1 || y.size() != n || X.cols() != net.input_dim() || anchor.size() != net.theta().size())
    throw std::invalid_argument(
        "regression: needs n >= 1 rows of the input dimension, n "
        "targets and an anchor of theta's size");
  const double inv_n = 1.0 / static_cast<double>(n);
  for (int step = 0; step < s.steps; ++step) {
    const Eigen::VectorXd residual = net.values(X) - y;
    const Eigen::VectorXd grad = 2.0 * inv_n * (net.gradients(X).transpose() * residual) +
                                 s.l2 * inv_n * (net.theta() - anchor);
    const Eigen::VectorXd next = net.theta() - s.learning_rate * grad;
    if (!next.allFinite()) break;
    net.set_theta(next);
  }
}

}  // namespace fedsim::trainers
