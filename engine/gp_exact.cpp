#include "engine/gp_exact.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fedsim {

CandidatePrior::CandidatePrior(Eigen::MatrixXd candidates, SeKernel kernel,
                               double relative_tolerance)
    : candidates_(std::move(candidates)), kernel_(kernel) {
  kernel_.validate();
  if (candidates_.rows() == 0 || candidates_.cols() == 0)
    throw std::invalid_argument("candidate set must be non-empty");
  if (!(relative_tolerance > 0.0 && relative_tolerance < 1.0))
    throw std::invalid_argument("prior truncation tolerance must be in (0, 1)");
  const Eigen::Index n = candidates_.rows();
  const double stop = relative_tolerance * kernel_.variance;
  // Greedy pivoted Cholesky: each step takes the candidate with the largest residual variance,
  // so the factor is as short as the kernel's numerical rank allows.
  Eigen::VectorXd residual = Eigen::VectorXd::Constant(n, kernel_.variance);
  Eigen::MatrixXd f(n, std::min<Eigen::Index>(n, 64));
  Eigen::Index m = 0;
  truncation_error_ = 0.0;
  while (true) {
    Eigen::Index pivot;
    const double largest = residual.maxCoeff(&pivot);
    if (m == n || largest <= stop) {
      truncation_error_ = m == n ? 0.0 : std::max(largest, 0.0);
      break;
    }
    if (m == f.cols()) f.conservativeResize(Eigen::NoChange, std::min<Eigen::Index>(n, 2 * m));
    Eigen::VectorXd col = kernel_.matrix(candidates_, candidates_.row(pivot));
    col.noalias() -= f.leftCols(m) * f.row(pivot).transpose();
    col /= std::sqrt(largest);
    f.col(m) = col;
    residual -= col.cwiseAbs2();
    residual(pivot) = 0.0;  // exactly explained; rounding must not pick it again
    ++m;
  }
  factor_ = f.leftCols(m);
}

Eigen::VectorXd CandidatePrior::sample(RandomStream& rng) const {
  Eigen::VectorXd z(rank());
  for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = rng.normal();
  return factor_ * z;
}

ExactGp::ExactGp(std::shared_ptr<const CandidatePrior> prior, double lambda)
    : prior_(std::move(prior)), lambda_(lambda) {
  if (!prior_) throw std::invalid_argument("ExactGp needs a candidate prior");
  if (!(lambda_ > 0.0) || !std::isfinite(lambda_))
    throw std::invalid_argument("GP lambda (noise variance) must be a finite number > 0");
  reserve(16);
}

void ExactGp::reserve(int capacity) {
  // Copy the used blocks into larger storage: amortised O(1) copies per observation.
  const int d = prior_->dim();
  Eigen::MatrixXd points(capacity, d);
  Eigen::VectorXd values(capacity);
  Eigen::MatrixXd chol = Eigen::MatrixXd::Zero(capacity, capacity);
  Eigen::MatrixXd whitened(prior_->size(), capacity);
  Eigen::VectorXd white_y(capacity);
  points.topRows(t_) = points_.topRows(t_);
  values.head(t_) = values_.head(t_);
  chol.topLeftCorner(t_, t_) = chol_.topLeftCorner(t_, t_);
  whitened.leftCols(t_) = whitened_.leftCols(t_);
  white_y.head(t_) = white_y_.head(t_);
  points_.swap(points);
  values_.swap(values);
  chol_.swap(chol);
  whitened_.swap(whitened);
  white_y_.swap(white_y);
}

void ExactGp::add_observation(int candidate, double y) {
  if (candidate < 0 || candidate >= prior_->size())
    throw std::out_of_range("candidate index out of range");
  const auto& c = prior_->candidates();
  append(c.row(candidate).transpose(), prior_->kernel().matrix(c, c.row(candidate)), candidate, y);
}

void ExactGp::add_observation(const Eigen::Ref<const Eigen::VectorXd>& x, double y) {
  if (x.size() != prior_->dim()) throw std::invalid_argument("observation has wrong dimension");
  append(x, prior_->kernel().matrix(prior_->candidates(), x.transpose()), -1, y);
}

void ExactGp::append(const Eigen::Ref<const Eigen::VectorXd>& x, const Eigen::VectorXd& k_cx,
                     int candidate, double y) {
  if (!std::isfinite(y)) throw std::invalid_argument("observation value must be finite");
  if (t_ == points_.rows()) reserve(2 * t_);
  const SeKernel& k = prior_->kernel();
  // Bordered Cholesky: [[L, 0], [l', dd]] with L l = k(X, x), dd^2 = k(x, x) + lambda - l'l.
  Eigen::VectorXd l = k.matrix(points_.topRows(t_), x.transpose());
  const auto lower = chol_.topLeftCorner(t_, t_).triangularView<Eigen::Lower>();
  lower.solveInPlace(l);
  const double dd2 = k.variance + lambda_ - l.squaredNorm();
  if (!(dd2 > 0.0)) throw std::runtime_error("K_XX + lambda I is numerically singular");
  const double dd = std::sqrt(dd2);
  chol_.row(t_).head(t_) = l.transpose();
  chol_(t_, t_) = dd;
  // W = K_cX L^{-T} gains one column: W_old l + dd w = k(c, x).
  whitened_.col(t_) = (k_cx - whitened_.leftCols(t_) * l) / dd;
  white_y_(t_) = (y - l.dot(white_y_.head(t_))) / dd;
  points_.row(t_) = x.transpose();
  values_(t_) = y;
  candidate_of_.push_back(candidate);
  all_on_candidates_ = all_on_candidates_ && candidate >= 0;
  ++t_;
}

Eigen::VectorXd ExactGp::alpha() const {
  return chol_.topLeftCorner(t_, t_).triangularView<Eigen::Lower>().transpose().solve(
      white_y_.head(t_));
}

Eigen::VectorXd ExactGp::mean() const { return whitened_.leftCols(t_) * white_y_.head(t_); }

Eigen::VectorXd ExactGp::variance() const {
  const Eigen::VectorXd explained = whitened_.leftCols(t_).rowwise().squaredNorm();
  return (prior_->kernel().variance - explained.array()).cwiseMax(0.0).matrix();
}

Eigen::VectorXd ExactGp::mean(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  return prior_->kernel().matrix(X, points_.topRows(t_)) * alpha();
}

Eigen::VectorXd ExactGp::variance(const Eigen::Ref<const Eigen::MatrixXd>& X) const {
  Eigen::MatrixXd v = prior_->kernel().matrix(points_.topRows(t_), X);  // t x m
  chol_.topLeftCorner(t_, t_).triangularView<Eigen::Lower>().solveInPlace(v);
  const Eigen::VectorXd explained = v.colwise().squaredNorm().transpose();
  return (prior_->kernel().variance - explained.array()).cwiseMax(0.0).matrix();
}

Eigen::MatrixXd ExactGp::covariance() const {
  const auto& c = prior_->candidates();
  Eigen::MatrixXd sigma = prior_->kernel().matrix(c, c);
  const auto w = whitened_.leftCols(t_);
  sigma.noalias() -= w * w.transpose();
  return sigma;
}

Eigen::VectorXd ExactGp::sample_dense(RandomStream& rng, double beta) const {
  Eigen::MatrixXd sigma = covariance();
  const double variance = prior_->kernel().variance;
  // Sigma is PSD but numerically rank-deficient: add the smallest jitter that factorises.
  for (double jitter = 1e-10 * variance;; jitter *= 10.0) {
    if (jitter > 1e-4 * variance)
      throw std::runtime_error("posterior covariance does not factorise even with jitter");
    Eigen::MatrixXd a = sigma;
    a.diagonal().array() += jitter;
    Eigen::LLT<Eigen::MatrixXd> llt(a);
    if (llt.info() != Eigen::Success) continue;
    Eigen::VectorXd z(sigma.rows());
    for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = rng.normal();
    const Eigen::VectorXd lz = llt.matrixL() * z;
    return mean() + beta * lz;
  }
}

Eigen::VectorXd ExactGp::sample_pathwise(RandomStream& rng, double beta) const {
  if (!all_on_candidates_)
    throw std::logic_error("pathwise sampling needs every observation at a candidate point");
  const Eigen::VectorXd g0 = prior_->sample(rng);
  // g - mu = g0 - W L^{-1} (g0(X) + eps) and mu = W L^{-1} y, so
  // f = mu + beta (g - mu) = beta g0 + W (L^{-1} y - beta L^{-1} (g0(X) + eps)).
  Eigen::VectorXd r(t_);
  const double noise_sd = std::sqrt(lambda_);
  for (int s = 0; s < t_; ++s) r(s) = g0(candidate_of_[s]) + noise_sd * rng.normal();
  chol_.topLeftCorner(t_, t_).triangularView<Eigen::Lower>().solveInPlace(r);
  const Eigen::VectorXd coef = white_y_.head(t_) - beta * r;
  Eigen::VectorXd f = beta * g0;
  f.noalias() += whitened_.leftCols(t_) * coef;
  return f;
}

}  // namespace fedsim
