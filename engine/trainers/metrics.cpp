#include "engine/trainers/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace fedsim::trainers {

std::vector<int> argmax_rows(const Eigen::Ref<const Eigen::MatrixXd>& scores) {
  std::vector<int> out(static_cast<std::size_t>(scores.rows()), -1);
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    if (!scores.row(i).allFinite()) continue;
    Eigen::Index best = 0;
    scores.row(i).maxCoeff(&best);
    out[static_cast<std::size_t>(i)] = static_cast<int>(best);
  }
  return out;
}

double error_rate(const std::vector<int>& predicted, const std::vector<int>& labels) {
  if (predicted.size() != labels.size() || labels.empty())
    throw std::invalid_argument("error rate: predictions and labels must be non-empty and of "
                                "one size");
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) wrong += predicted[i] != labels[i];
  return static_cast<double>(wrong) / static_cast<double>(labels.size());
}

double roc_auc(const Eigen::Ref<const Eigen::VectorXd>& scores, const std::vector<int>& labels) {
  const std::size_t n = labels.size();
  if (static_cast<std::size_t>(scores.size()) != n)
    throw std::invalid_argument("AUC: scores and labels must be of one size");
  std::size_t positives = 0;
  for (int y : labels) {
    if (y != 0 && y != 1) throw std::invalid_argument("AUC: labels must be 0 or 1");
    positives += y == 1;
  }
  const std::size_t negatives = n - positives;
  if (positives == 0 || negatives == 0) return 0.5;
  std::vector<double> s(n);
  for (std::size_t i = 0; i < n; ++i)
    s[i] = std::isnan(scores(static_cast<Eigen::Index>(i))) ? -std::numeric_limits<double>::infinity()
                                                             : scores(static_cast<Eigen::Index>(i));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s[a] < s[b]; });
  // Sum of the positives' mid-ranks (1-based).
  double rank_sum = 0.0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && s[order[j]] == s[order[i]]) ++j;
    const double mid = 0.5 * static_cast<double>(i + 1 + j);  // mean of ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k)
      if (labels[order[k]] == 1) rank_sum += mid;
    i = j;
  }
  const double p = static_cast<double>(positives), q = static_cast<double>(negatives);
  return (rank_sum - p * (p + 1) / 2) / (p * q);
}

}  // namespace fedsim::trainers
