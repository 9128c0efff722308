#include "engine/trainers/mlp.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engine/trainers/metrics.hpp"

namespace fedsim::trainers {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

Eigen::MatrixXd he_uniform(Eigen::Index rows, Eigen::Index cols, RandomStream& rng) {
  const double limit = std::sqrt(6.0 / static_cast<double>(rows));
  Eigen::MatrixXd w(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) w(i, j) = rng.uniform(-limit, limit);
  return w;
}

}  // namespace

void MlpSettings::validate() const {
  require(hidden >= 1, "mlp: hidden must be >= 1");
  require(batch_size >= 1, "mlp: batch_size must be >= 1");
  require(epochs >= 1, "mlp: epochs must be >= 1");
  require(std::isfinite(learning_rate) && learning_rate > 0,
          "mlp: learning_rate must be a finite number > 0");
  require(std::isfinite(decay) && decay >= 0, "mlp: decay must be a finite number >= 0");
  require(std::isfinite(l2) && l2 >= 0, "mlp: l2 must be a finite number >= 0");
}

std::vector<int> Mlp::predict(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  const Eigen::MatrixXd h = ((X * w1).rowwise() + b1.transpose()).cwiseMax(0.0);
  return argmax_rows((h * w2).rowwise() + b2.transpose());
}

Mlp train_mlp(const Eigen::Ref<const Eigen::MatrixXd>& X, const std::vector<int>& y, int classes,
              const MlpSettings& s, RandomStream& rng) {
  s.validate();
  const Eigen::Index n = X.rows(), d = X.cols(), hdim = s.hidden;
  if (n < 1 || static_cast<Eigen::Index>(y.size()) != n || classes < 2)
    throw std::invalid_argument("mlp: needs n >= 1 rows, n labels, >= 2 classes");
  for (int label : y)
    if (label < 0 || label >= classes)
      throw std::invalid_argument("mlp: label " + std::to_string(label) + " outside 0.." +
                                  std::to_string(classes - 1));
  Mlp m{he_uniform(d, hdim, rng), Eigen::VectorXd::Zero(hdim), he_uniform(hdim, classes, rng),
        Eigen::VectorXd::Zero(classes)};
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const Eigen::Index batch = std::min<Eigen::Index>(s.batch_size, n);
  Eigen::MatrixXd xb(batch, d);
  long step = 0;
  for (int epoch = 0; epoch < s.epochs; ++epoch) {
    shuffle(order, rng);
    for (Eigen::Index start = 0; start < n; start += batch, ++step) {
      const Eigen::Index k = std::min(batch, n - start);
      for (Eigen::Index r = 0; r < k; ++r) xb.row(r) = X.row(order[static_cast<std::size_t>(start + r)]);
      const auto xk = xb.topRows(k);
      const Eigen::MatrixXd pre = (xk * m.w1).rowwise() + m.b1.transpose();
      const Eigen::MatrixXd h = pre.cwiseMax(0.0);
      Eigen::MatrixXd p = (h * m.w2).rowwise() + m.b2.transpose();
      for (Eigen::Index r = 0; r < k; ++r) {
        const double top = p.row(r).maxCoeff();
        p.row(r) = (p.row(r).array() - top).exp();
        p.row(r) /= p.row(r).sum();
        p(r, y[static_cast<std::size_t>(order[static_cast<std::size_t>(start + r)])]) -= 1.0;
      }
      p /= static_cast<double>(k);  // d loss / d scores, mean over the batch
      const Eigen::MatrixXd dh = (p * m.w2.transpose()).cwiseProduct(
          (pre.array() > 0.0).cast<double>().matrix());
      const double lr = s.learning_rate / (1.0 + s.decay * static_cast<double>(step));
      m.w2 -= lr * (h.transpose() * p + s.l2 * m.w2);
      m.b2 -= lr * p.colwise().sum().transpose();
      m.w1 -= lr * (xk.transpose() * dh + s.l2 * m.w1);
      m.b1 -= lr * dh.colwise().sum().transpose();
    }
    if (!m.w1.allFinite() || !m.w2.allFinite()) break;
  }
  return m;
}

}  // namespace fedsim::trainers
