#include "engine/hyperparameters.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlopt.hpp>

#include "engine/kernel.hpp"

namespace fedsim {

Eigen::VectorXd GpHyperparameters::to_log() const {
  const Eigen::Index k = lengthscales.size();
  Eigen::VectorXd theta(k + 2);
  theta.head(k) = lengthscales.array().log().matrix();
  theta(k) = std::log(signal_variance);
  theta(k + 1) = std::log(noise_variance);
  return theta;
}

GpHyperparameters GpHyperparameters::from_log(const Eigen::Ref<const Eigen::VectorXd>& theta) {
  if (theta.size() < 3) throw std::invalid_argument("log-hyperparameter vector needs k + 2 >= 3");
  const Eigen::Index k = theta.size() - 2;
  GpHyperparameters h;
  h.lengthscales = theta.head(k).array().exp().matrix();
  h.signal_variance = std::exp(theta(k));
  h.noise_variance = std::exp(theta(k + 1));
  return h;
}

double log_marginal_likelihood(const Eigen::Ref<const Eigen::MatrixXd>& X,
                               const Eigen::Ref<const Eigen::VectorXd>& y,
                               const GpHyperparameters& h, Eigen::VectorXd* gradient) {
  const Eigen::Index n = X.rows(), d = X.cols(), k = h.lengthscales.size();
  if (y.size() != n) throw std::invalid_argument("X and y disagree on the number of points");
  if (k != 1 && k != d) throw std::invalid_argument("need 1 or d lengthscales");
  // Scaled inputs: x_j / l_j, so the kernel is an SE kernel with unit lengthscale.
  Eigen::MatrixXd xs = X;
  for (Eigen::Index j = 0; j < d; ++j) xs.col(j) /= h.lengthscales(k == 1 ? 0 : j);
  const Eigen::MatrixXd e = SeKernel{1.0, h.signal_variance}.matrix(xs, xs);  // noise-free part
  Eigen::MatrixXd kk = e;
  kk.diagonal().array() += h.noise_variance;
  const Eigen::LLT<Eigen::MatrixXd> llt(kk);
  if (llt.info() != Eigen::Success) {
    if (gradient) *gradient = Eigen::VectorXd::Zero(k + 2);
    return -std::numeric_limits<double>::infinity();
  }
  const Eigen::VectorXd alpha = llt.solve(y);
  const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  const double lml =
      -0.5 * y.dot(alpha) - 0.5 * log_det - 0.5 * static_cast<double>(n) * std::log(2.0 * M_PI);
  if (!gradient) return lml;

  // dLML/dtheta = tr(Q dK/dtheta) / 2 with Q = alpha alpha' - K^{-1} (symmetric).
  Eigen::MatrixXd q = llt.solve(Eigen::MatrixXd::Identity(n, n));
  q = alpha * alpha.transpose() - q;
  const Eigen::MatrixXd qe = q.cwiseProduct(e);
  const Eigen::VectorXd row_sums = qe.rowwise().sum();
  gradient->setZero(k + 2);
  // dK/dlog l_j = E o D_j with D_j,ab = (xs_aj - xs_bj)^2, and for symmetric QE:
  // sum_ab QE_ab (u_a - u_b)^2 = 2 (u o u)' QE 1 - 2 u' QE u.
  for (Eigen::Index j = 0; j < d; ++j) {
    const auto u = xs.col(j);
    const double g = u.cwiseAbs2().dot(row_sums) - u.dot(qe * u);  // (2 ... - 2 ...) / 2
    (*gradient)(k == 1 ? 0 : j) += g;
  }
  (*gradient)(k) = 0.5 * row_sums.sum();                    // dK/dlog s2 = E
  (*gradient)(k + 1) = 0.5 * h.noise_variance * q.trace();  // dK/dlog n2 = n2 I
  return lml;
}

void HyperparameterBounds::validate() const {
  auto check = [](double lo, double hi, const char* what) {
    if (!(lo > 0.0) || !(hi > lo) || !std::isfinite(hi))
      throw std::invalid_argument(std::string("bad hyperparameter bounds for ") + what);
  };
  check(lengthscale_min, lengthscale_max, "lengthscale");
  check(signal_variance_min, signal_variance_max, "signal variance");
  check(noise_variance_min, noise_variance_max, "noise variance");
}

namespace {

struct LmlProblem {
  const Eigen::Ref<const Eigen::MatrixXd>& X;
  const Eigen::Ref<const Eigen::VectorXd>& y;
  // Best point seen by any evaluation: NLopt may stop with an error after finding it.
  double best_value = -std::numeric_limits<double>::infinity();
  Eigen::VectorXd best_theta;
};

double lml_objective(const std::vector<double>& theta, std::vector<double>& grad, void* data) {
  auto* p = static_cast<LmlProblem*>(data);
  const Eigen::Map<const Eigen::VectorXd> t(theta.data(), static_cast<Eigen::Index>(theta.size()));
  Eigen::VectorXd g;
  const double value = log_marginal_likelihood(p->X, p->y, GpHyperparameters::from_log(t),
                                               grad.empty() ? nullptr : &g);
  if (!grad.empty()) Eigen::Map<Eigen::VectorXd>(grad.data(), g.size()) = g;
  if (value > p->best_value) {
    p->best_value = value;
    p->best_theta = t;
  }
  // L-BFGS cannot digest infinities; a huge finite penalty makes its line search back off.
  return std::isfinite(value) ? value : -1e300;
}

}  // namespace

HyperparameterFit fit_hyperparameters(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                      const Eigen::Ref<const Eigen::VectorXd>& y, RandomStream& rng,
                                      const HyperparameterFitOptions& options) {
  const Eigen::Index n = X.rows(), d = X.cols();
  if (n < 1 || d < 1) throw std::invalid_argument("hyperparameter fit needs data");
  if (y.size() != n) throw std::invalid_argument("X and y disagree on the number of points");
  if (options.restarts < 1) throw std::invalid_argument("need at least one restart");
  const HyperparameterBounds& b = options.bounds;
  b.validate();
  const Eigen::Index k = options.per_dimension ? d : 1;
  const Eigen::Index p = k + 2;
  std::vector<double> lower(p), upper(p);
  for (Eigen::Index j = 0; j < k; ++j) {
    lower[j] = std::log(b.lengthscale_min);
    upper[j] = std::log(b.lengthscale_max);
  }
  lower[k] = std::log(b.signal_variance_min);
  upper[k] = std::log(b.signal_variance_max);
  lower[k + 1] = std::log(b.noise_variance_min);
  upper[k + 1] = std::log(b.noise_variance_max);

  std::vector<double> guess(p);
  if (options.start) {
    const Eigen::VectorXd& l = options.start->lengthscales;
    if (l.size() != 1 && l.size() != k)
      throw std::invalid_argument("a fit's start needs 1 or " + std::to_string(k) +
                                  " lengthscales");
    const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    if (!l.unaryExpr(positive).all() || !positive(options.start->signal_variance) ||
        !positive(options.start->noise_variance))
      throw std::invalid_argument("a fit's start needs finite positive hyperparameters");
    for (Eigen::Index j = 0; j < k; ++j) guess[j] = std::log(l(l.size() == 1 ? 0 : j));
    guess[k] = std::log(options.start->signal_variance);
    guess[k + 1] = std::log(options.start->noise_variance);
  } else {
    // Data-driven first start; zero prior mean, so the signal scale is mean(y^2).
    const double extent = (X.colwise().maxCoeff() - X.colwise().minCoeff()).mean();
    const double power = y.squaredNorm() / static_cast<double>(n);
    for (Eigen::Index j = 0; j < k; ++j) guess[j] = std::log(extent > 0.0 ? 0.25 * extent : 1.0);
    guess[k] = std::log(power > 0.0 ? power : 1.0);
    guess[k + 1] = std::log(power > 0.0 ? 0.1 * power : 0.1);
  }
  const auto draw = [&](Eigen::Index j) {
    switch (options.restart_draw) {
      case RestartDraw::log_uniform:
        return rng.uniform(lower[j], upper[j]);
      case RestartDraw::softplus_normal:
        return std::clamp(std::log(std::log1p(std::exp(rng.normal()))), lower[j], upper[j]);
    }
    throw std::logic_error("fit_hyperparameters: not a RestartDraw value");
  };

  LmlProblem problem{X, y, -std::numeric_limits<double>::infinity(), Eigen::VectorXd()};
  for (int r = 0; r < options.restarts; ++r) {
    std::vector<double> theta(p);
    for (Eigen::Index j = 0; j < p; ++j)
      theta[j] = r == 0 ? std::clamp(guess[j], lower[j], upper[j]) : draw(j);
    nlopt::opt opt(nlopt::LD_LBFGS, static_cast<unsigned>(p));
    opt.set_lower_bounds(lower);
    opt.set_upper_bounds(upper);
    opt.set_max_objective(lml_objective, &problem);
    opt.set_ftol_rel(options.relative_tolerance);
    opt.set_maxeval(options.max_evaluations);
    double value = 0.0;
    try {
      opt.optimize(theta, value);
    } catch (const std::runtime_error&) {
      // Round-off or line-search failure: the best point seen is still recorded.
    }
  }
  if (!std::isfinite(problem.best_value))
    throw std::runtime_error("log marginal likelihood is not finite anywhere it was evaluated");
  // exp(log(bound)) may land an ulp outside the bound: clamp, so that the bounds hold exactly.
  GpHyperparameters h = GpHyperparameters::from_log(problem.best_theta);
  for (Eigen::Index j = 0; j < k; ++j)
    h.lengthscales(j) = std::clamp(h.lengthscales(j), b.lengthscale_min, b.lengthscale_max);
  h.signal_variance = std::clamp(h.signal_variance, b.signal_variance_min, b.signal_variance_max);
  h.noise_variance = std::clamp(h.noise_variance, b.noise_variance_min, b.noise_variance_max);
  return {h, log_marginal_likelihood(X, y, h)};
}

}  // namespace fedsim
