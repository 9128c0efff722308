#include "engine/acquisition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <nlopt.hpp>

namespace fedsim {

GridMaximum grid_argmax(const Eigen::Ref<const Eigen::VectorXd>& values) {
  // An explicit scan: the tie rule must not depend on Eigen's reduction order.
  int best = -1;
  for (Eigen::Index j = 0; j < values.size(); ++j)
    if (!std::isnan(values(j)) && (best < 0 || values(j) > values(best)))
      best = static_cast<int>(j);
  if (best < 0) throw std::invalid_argument("grid argmax of an empty or all-NaN vector");
  return {best, values(best)};
}

Eigen::VectorXd region_values(const Eigen::Ref<const Eigen::MatrixXd>& features,
                              const Eigen::Ref<const Eigen::MatrixXd>& omegas,
                              const std::vector<int>& regions) {
  if (features.cols() != omegas.rows())
    throw std::invalid_argument("features and omegas disagree on the number of features M");
  if (static_cast<Eigen::Index>(regions.size()) != features.rows())
    throw std::invalid_argument("need one region index per grid point");
  // One dense product (n x P) is far faster than n strided row dots; P is small.
  const Eigen::MatrixXd all = features * omegas;
  Eigen::VectorXd v(features.rows());
  for (Eigen::Index j = 0; j < features.rows(); ++j) {
    const int i = regions[j];
    if (i < 0 || i >= omegas.cols()) throw std::invalid_argument("region index out of range");
    v(j) = all(j, i);
  }
  return v;
}

GridMaximum grid_argmax_by_region(const Eigen::Ref<const Eigen::MatrixXd>& features,
                                  const Eigen::Ref<const Eigen::MatrixXd>& omegas,
                                  const std::vector<int>& regions) {
  return grid_argmax(region_values(features, omegas, regions));
}

void BoxMaximizerOptions::validate() const {
  if (num_random < 1) throw std::invalid_argument("box maximiser needs num_random >= 1");
  if (num_refine < 0) throw std::invalid_argument("box maximiser needs num_refine >= 0");
  if (max_evaluations < 1) throw std::invalid_argument("box maximiser needs max_evaluations >= 1");
}

Eigen::MatrixXd uniform_in_box(const Box& box, int n, RandomStream& rng) {
  box.validate();
  if (n < 0) throw std::invalid_argument("number of points must be >= 0");
  Eigen::MatrixXd X(n, box.dim());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < box.dim(); ++j) X(i, j) = rng.uniform(box.lower(j), box.upper(j));
  return X;
}

namespace {

struct RefineProblem {
  const ValueAndGradient& f;
  Eigen::VectorXd scratch;  // gradient when NLopt asks for none
  double best_value;
  Eigen::VectorXd best_x;
};

double refine_objective(const std::vector<double>& x, std::vector<double>& grad, void* data) {
  auto* p = static_cast<RefineProblem*>(data);
  const Eigen::Map<const Eigen::VectorXd> xv(x.data(), static_cast<Eigen::Index>(x.size()));
  double value;
  if (grad.empty()) {
    value = p->f(xv, p->scratch);
  } else {
    Eigen::Map<Eigen::VectorXd> g(grad.data(), static_cast<Eigen::Index>(grad.size()));
    value = p->f(xv, g);
  }
  if (!std::isnan(value) && !(value <= p->best_value)) {
    p->best_value = value;
    p->best_x = xv;
  }
  return value;
}

/// Refines the best num_refine of the scored candidates (X: n x d, rows are points) and
/// returns the best point seen, starting from the best candidate.
BoxMaximum refine_best(const ValueAndGradient& f, const Box& box, const Eigen::MatrixXd& X,
                       const Eigen::VectorXd& scores, const BoxMaximizerOptions& options) {
  std::vector<int> order(X.rows());
  std::iota(order.begin(), order.end(), 0);
  // NaN scores sort last; among equal scores the lower index comes first.
  auto key = [&](int i) {
    return std::isnan(scores(i)) ? -std::numeric_limits<double>::infinity() : scores(i);
  };
  const int refine = std::min<int>(options.num_refine, static_cast<int>(order.size()));
  std::partial_sort(order.begin(), order.begin() + std::max(refine, 1), order.end(),
                    [&](int a, int b) { return key(a) > key(b) || (key(a) == key(b) && a < b); });
  BoxMaximum best{X.row(order[0]).transpose(), scores(order[0])};
  for (int r = 0; r < refine; ++r) {
    const BoxMaximum local = refine_on_box(f, box, X.row(order[r]).transpose(), options);
    if (local.value > best.value || std::isnan(best.value)) best = local;
  }
  return best;
}

}  // namespace

BoxMaximum refine_on_box(const ValueAndGradient& f, const Box& box,
                         const Eigen::Ref<const Eigen::VectorXd>& x0,
                         const BoxMaximizerOptions& options) {
  box.validate();
  options.validate();
  const int d = box.dim();
  if (x0.size() != d) throw std::invalid_argument("start point has the wrong dimension");
  const Eigen::VectorXd start = x0.cwiseMax(box.lower).cwiseMin(box.upper);
  RefineProblem problem{f, Eigen::VectorXd(d), std::numeric_limits<double>::quiet_NaN(), start};
  problem.best_value = f(start, problem.scratch);
  nlopt::opt opt(nlopt::LD_LBFGS, static_cast<unsigned>(d));
  opt.set_lower_bounds(std::vector<double>(box.lower.data(), box.lower.data() + d));
  opt.set_upper_bounds(std::vector<double>(box.upper.data(), box.upper.data() + d));
  opt.set_max_objective(refine_objective, &problem);
  opt.set_xtol_rel(options.relative_tolerance);
  opt.set_maxeval(options.max_evaluations);
  std::vector<double> x(start.data(), start.data() + d);
  double value = 0.0;
  try {
    opt.optimize(x, value);
  } catch (const std::runtime_error&) {
    // Round-off or line-search failure: the best point seen is still recorded.
  }
  return {problem.best_x, problem.best_value};
}

BoxMaximum maximize_on_box(const ValueAndGradient& f, const Box& box, RandomStream& rng,
                           const BoxMaximizerOptions& options) {
  options.validate();
  const Eigen::MatrixXd X = uniform_in_box(box, options.num_random, rng);
  Eigen::VectorXd scores(X.rows());
  Eigen::VectorXd scratch(box.dim());
  for (Eigen::Index i = 0; i < X.rows(); ++i) scores(i) = f(X.row(i).transpose(), scratch);
  return refine_best(f, box, X, scores, options);
}

BoxMaximum maximize_features_on_box(const RandomFourierFeatures& rff,
                                    const Eigen::Ref<const Eigen::VectorXd>& omega, const Box& box,
                                    RandomStream& rng, const BoxMaximizerOptions& options) {
  options.validate();
  if (box.dim() != rff.dim()) throw std::invalid_argument("box and features disagree on d");
  if (omega.size() != rff.num_features())
    throw std::invalid_argument("omega must have one weight per feature");
  const Eigen::MatrixXd X = uniform_in_box(box, options.num_random, rng);
  // Scored in blocks of rows: a block's features stay small (no megabyte temporaries per
  // maximisation, which the allocator would map and unmap every time).
  constexpr Eigen::Index block = 64;
  Eigen::VectorXd scores(X.rows());
  for (Eigen::Index b = 0; b < X.rows(); b += block) {
    const Eigen::Index n = std::min(block, X.rows() - b);
    scores.segment(b, n).noalias() = rff.feature_matrix(X.middleRows(b, n)) * omega;
  }
  const ValueAndGradient f = [&](const Eigen::Ref<const Eigen::VectorXd>& x,
                                 Eigen::Ref<Eigen::VectorXd> gradient) {
    return rff.value_and_gradient(x, omega, gradient);
  };
  return refine_best(f, box, X, scores, options);
}

RegionMaximum maximize_features_by_region(const RandomFourierFeatures& rff,
                                          const Eigen::Ref<const Eigen::MatrixXd>& omegas,
                                          const Partition& partition, RandomStream& rng,
                                          const BoxMaximizerOptions& options) {
  if (omegas.cols() != partition.size())
    throw std::invalid_argument("need one omega column per sub-region");
  RegionMaximum best{Eigen::VectorXd(), -std::numeric_limits<double>::infinity(), -1};
  for (int i = 0; i < partition.size(); ++i) {
    const BoxMaximum m =
        maximize_features_on_box(rff, omegas.col(i), partition.region(i), rng, options);
    if (best.region < 0 || m.value > best.value) best = {m.x, m.value, i};
  }
  return best;
}

}  // namespace fedsim
