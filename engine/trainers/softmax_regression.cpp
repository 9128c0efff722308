#include "engine/trainers/softmax_regression.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "engine/trainers/metrics.hpp"

namespace fedsim::trainers {

namespace {

void require_softmax(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

void SoftmaxSettings::validate() const {
  require_softmax(batch_size >= 1, "softmax regression: batch_size must be >= 1");
  require_softmax(std::isfinite(l2) && l2 >= 0, "softmax regression: l2 must be a finite number >= 0");
  require_softmax(std::isfinite(learning_rate) && learning_rate > 0,
          "softmax regression: learning_rate must be a finite number > 0");
  require_softmax(epochs >= 1, "softmax regression: epochs must be >= 1");
}

std::vector<int> LinearModel::predict(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  return argmax_rows((X * w).rowwise() + b.transpose());
}

LinearModel train_softmax(const Eigen::Ref<const Eigen::MatrixXd>& X, const std::vector<int>& y,
                          int classes, const SoftmaxSettings& s, RandomStream& rng) {
  s.validate();
  const Eigen::Index n = X.rows(), d = X.cols();
  if (n < 1 || static_cast<Eigen::Index>(y.size()) != n || classes < 2)
    throw std::invalid_argument("softmax regression: needs n >= 1 rows, n labels, >= 2 classes");
  for (int label : y)
    if (label < 0 || label >= classes)
      throw std::invalid_argument("softmax regression: label " + std::to_string(label) +
                                  " outside 0.." + std::to_string(classes - 1));
  // Glorot-uniform weights (Keras's default for a dense layer), zero biases: a learning rate
  // too small to move them leaves a random classifier, as in the papers' trainers.
  const double limit = std::sqrt(6.0 / static_cast<double>(d + classes));
  LinearModel m{Eigen::MatrixXd(d, classes), Eigen::VectorXd::Zero(classes)};
  for (Eigen::Index j = 0; j < classes; ++j)
    for (Eigen::Index i = 0; i < d; ++i) m.w(i, j) = rng.uniform(-limit, limit);
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const Eigen::Index batch = std::min<Eigen::Index>(s.batch_size, n);
  Eigen::MatrixXd xb(batch, d), p(batch, classes);
  for (int epoch = 0; epoch < s.epochs; ++epoch) {
    shuffle(order, rng);
    for (Eigen::Index start = 0; start < n; start += batch) {
      const Eigen::Index k = std::min(batch, n - start);
      for (Eigen::Index r = 0; r < k; ++r) xb.row(r) = X.row(order[static_cast<std::size_t>(start + r)]);
      auto xk = xb.topRows(k);
      auto pk = p.topRows(k);
      pk = (xk * m.w).rowwise() + m.b.transpose();
      for (Eigen::Index r = 0; r < k; ++r) {  // softmax, shifted by the row's max
        const double top = pk.row(r).maxCoeff();
        pk.row(r) = (pk.row(r).array() - top).exp();
        pk.row(r) /= pk.row(r).sum();
        pk(r, y[static_cast<std::size_t>(order[static_cast<std::size_t>(start + r)])]) -= 1.0;
      }
      const double scale = s.learning_rate / static_cast<double>(k);
      m.w -= scale * (xk.transpose() * pk) + s.learning_rate * s.l2 * m.w;
      m.b -= scale * pk.colwise().sum().transpose();
    }
    if (!m.w.allFinite()) break;  // diverged: nothing more to learn
  }
  return m;
}

}  // namespace fedsim::trainers
