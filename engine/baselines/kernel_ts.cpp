#include "engine/baselines/kernel_ts.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/acquisition.hpp"

namespace fedsim::baselines {

namespace {

void require_kernel_ts(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("kernel_ts: " + what);
}
bool finite_positive(double v) { return std::isfinite(v) && v > 0.0; }
constexpr long max_candidates = 100000;

/// L L' = A  ->  L L' = A + x x' (lower L, O(r^2); x is overwritten).
void cholesky_rank_one_update(Eigen::MatrixXd& l, Eigen::VectorXd x) {
  const Eigen::Index n = l.rows();
  for (Eigen::Index k = 0; k < n; ++k) {
    const double lkk = l(k, k);
    const double r = std::hypot(lkk, x(k));
    const double c = r / lkk;
    const double s = x(k) / lkk;
    l(k, k) = r;
    for (Eigen::Index i = k + 1; i < n; ++i) {
      l(i, k) = (l(i, k) + s * x(i)) / c;
      x(i) = c * x(i) - s * l(i, k);
    }
  }
}

}  // namespace

void KernelTsParams::validate() const {
  require_kernel_ts(finite_positive(lengthscale), "lengthscale must be a finite number > 0");
  require_kernel_ts(finite_positive(signal_variance), "signal_variance must be a finite number > 0");
  require_kernel_ts(finite_positive(lambda), "lambda must be a finite number > 0");
  require_kernel_ts(std::isfinite(v) && v >= 0.0, "v must be a finite number >= 0");
  require_kernel_ts(std::isfinite(B) && B >= 0.0, "B must be a finite number >= 0");
  require_kernel_ts(std::isfinite(R) && R >= 0.0, "R must be a finite number >= 0");
  require_kernel_ts(delta > 0.0 && delta < 1.0, "delta must be in (0, 1)");
  require_kernel_ts(candidates_per_dim == 0 || (candidates_per_dim >= 2 && candidates_per_dim <= max_candidates),
          "candidates_per_dim must be 0 (auto) or an integer in [2, 100000]");
  require_kernel_ts(factor_tolerance > 0.0 && factor_tolerance < 1.0, "factor_tolerance must be in (0, 1)");
}

int KernelTsParams::points_per_dim(int d) const {
  if (candidates_per_dim > 0) return candidates_per_dim;
  if (d == 1) return 1000;
  return std::max(2, static_cast<int>(std::floor(std::pow(1000.0, 1.0 / d) + 1e-9)));
}

KernelTs::KernelTs(KernelTsParams params, Box domain)
    : params_(params), domain_(std::move(domain)) {
  params_.validate();
  domain_.validate();
  const int per_dim = params_.points_per_dim(domain_.dim());
  double total = 1.0;
  for (int j = 0; j < domain_.dim(); ++j) total *= per_dim;
  require_kernel_ts(total <= static_cast<double>(max_candidates),
          "candidates_per_dim^d must be <= 100000 (got " + std::to_string(per_dim) + "^" +
              std::to_string(domain_.dim()) + ")");
  prior_ = std::make_shared<const CandidatePrior>(
      Grid::tensor(domain_, per_dim).points,
      SeKernel{params_.lengthscale, params_.signal_variance}, params_.factor_tolerance);
  reset();
}

void KernelTs::reset() {
  state_ = KernelTsState{};
  gamma_ = 0.0;
  gp_.reset();
  chol_.resize(0, 0);
  b_.resize(0);
  switch (params_.posterior) {
    case KernelTsPosterior::exact:
      gp_ = std::make_unique<ExactGp>(prior_, params_.lambda);
      return;
    case KernelTsPosterior::factor:
      chol_ = Eigen::MatrixXd::Identity(prior_->rank(), prior_->rank());
      b_ = Eigen::VectorXd::Zero(prior_->rank());
      return;
  }
  throw std::logic_error("kernel_ts: not a KernelTsPosterior value");
}

double KernelTs::scale() const {
  switch (params_.scaling) {
    case KernelTsScaling::fixed: return params_.v;
    case KernelTsScaling::theory:
      return params_.B + params_.R * std::sqrt(2.0 * (gamma_ + 1.0 + std::log(2.0 / params_.delta)));
  }
  throw std::logic_error("kernel_ts: not a KernelTsScaling value");
}

Eigen::VectorXd KernelTs::posterior_mean() const {
  if (gp_) return gp_->mean();
  const auto l = chol_.triangularView<Eigen::Lower>();
  const Eigen::VectorXd w = l.transpose().solve(l.solve(b_));
  return prior_->factor() * w;
}

Eigen::VectorXd KernelTs::posterior_variance() const {
  if (gp_) return gp_->variance();
  Eigen::MatrixXd v = prior_->factor().transpose();  // r x n_c
  chol_.triangularView<Eigen::Lower>().solveInPlace(v);
  return v.colwise().squaredNorm().transpose();
}

Eigen::VectorXd KernelTs::sample(RandomStream& rng) const {
  const double v = scale();
  if (gp_) return gp_->sample_dense(rng, v);
  const Eigen::Index r = chol_.rows();
  Eigen::VectorXd z(r);
  for (Eigen::Index i = 0; i < r; ++i) z(i) = rng.normal();
  const auto l = chol_.triangularView<Eigen::Lower>();
  // w = A^{-1} b + v L^{-T} z = L^{-T} (L^{-1} b + v z): Cov(L^{-T} z) = (L L')^{-1} = A^{-1}.
  Eigen::VectorXd u = l.solve(b_);
  u += v * z;
  const Eigen::VectorXd w = l.transpose().solve(u);
  return prior_->factor() * w;
}

Eigen::VectorXd KernelTs::propose(RandomStream& rng) {
  const int best = grid_argmax(sample(rng)).index;
  state_.pending = best;
  return prior_->candidates().row(best).transpose();
}

void KernelTs::observe(double y) {
  if (state_.pending < 0) throw std::logic_error("kernel_ts: observe without a pending proposal");
  observe(state_.pending, y);
}

void KernelTs::observe(int candidate, double y) {
  if (candidate < 0 || candidate >= prior_->size())
    throw std::invalid_argument("kernel_ts: candidate index out of range");
  if (!std::isfinite(y)) throw std::invalid_argument("kernel_ts: observed value must be finite");
  add(candidate, y);
  state_.candidates.push_back(candidate);
  state_.values.push_back(y);
  state_.pending = -1;
}

void KernelTs::add(int candidate, double y) {
  const double lambda = params_.lambda;
  if (gp_) {
    const double var = gp_->variance(prior_->candidates().row(candidate))(0);
    gamma_ += 0.5 * std::log1p(var / lambda);
    gp_->add_observation(candidate, y);
    return;
  }
  const Eigen::VectorXd phi = prior_->factor().row(candidate).transpose();
  const double var = chol_.triangularView<Eigen::Lower>().solve(phi).squaredNorm();
  gamma_ += 0.5 * std::log1p(var / lambda);
  cholesky_rank_one_update(chol_, phi / std::sqrt(lambda));
  b_ += (y / lambda) * phi;
}

void KernelTs::restore(const KernelTsState& state) {
  if (state.candidates.size() != state.values.size())
    throw std::invalid_argument("kernel_ts state: candidates and values differ in length");
  for (int c : state.candidates)
    if (c < 0 || c >= prior_->size())
      throw std::invalid_argument("kernel_ts state: candidate index out of range");
  for (double y : state.values)
    if (!std::isfinite(y)) throw std::invalid_argument("kernel_ts state: a value is not finite");
  if (state.pending < -1 || state.pending >= prior_->size())
    throw std::invalid_argument("kernel_ts state: pending candidate out of range");
  reset();
  for (std::size_t s = 0; s < state.values.size(); ++s) {
    add(state.candidates[s], state.values[s]);
    state_.candidates.push_back(state.candidates[s]);
    state_.values.push_back(state.values[s]);
  }
  state_.pending = state.pending;
}

}  // namespace fedsim::baselines
