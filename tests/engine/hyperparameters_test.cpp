#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "engine/hyperparameters.hpp"
#include "engine/kernel.hpp"
#include "engine/rng.hpp"

using fedsim::GpHyperparameters;
using fedsim::HyperparameterFitOptions;
using fedsim::RandomStream;

namespace {

GpHyperparameters make(Eigen::VectorXd lengthscales, double signal, double noise) {
  GpHyperparameters h;
  h.lengthscales = std::move(lengthscales);
  h.signal_variance = signal;
  h.noise_variance = noise;
  return h;
}

/// X: n x d uniform on [0,1]^d; y: a draw from GP(0, k_h) plus N(0, noise) at X.
void sample_gp_data(const GpHyperparameters& h, int n, int d, RandomStream& rng, Eigen::MatrixXd& X,
                    Eigen::VectorXd& y) {
  X.resize(n, d);
  for (Eigen::Index i = 0; i < X.size(); ++i) X(i) = rng.uniform();
  Eigen::MatrixXd xs = X;
  for (int j = 0; j < d; ++j) xs.col(j) /= h.lengthscales(h.lengthscales.size() == 1 ? 0 : j);
  Eigen::MatrixXd k = fedsim::SeKernel{1.0, h.signal_variance}.matrix(xs, xs);
  k.diagonal().array() += 1e-9;  // the noise-free draw only needs a factor
  const Eigen::MatrixXd l = Eigen::LLT<Eigen::MatrixXd>(k).matrixL();
  Eigen::VectorXd z(n), e(n);
  for (int i = 0; i < n; ++i) {
    z(i) = rng.normal();
    e(i) = rng.normal();
  }
  y = l * z + std::sqrt(h.noise_variance) * e;
}

/// The direct formula with a generic solver, as a reference.
double lml_direct(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const GpHyperparameters& h) {
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = 0; b < n; ++b) {
      double s = 0.0;
      for (Eigen::Index j = 0; j < X.cols(); ++j) {
        const double l = h.lengthscales(h.lengthscales.size() == 1 ? 0 : j);
        s += std::pow((X(a, j) - X(b, j)) / l, 2);
      }
      k(a, b) = h.signal_variance * std::exp(-0.5 * s) + (a == b ? h.noise_variance : 0.0);
    }
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(k);
  return -0.5 * y.dot(lu.solve(y)) - 0.5 * std::log(lu.determinant()) -
         0.5 * n * std::log(2.0 * M_PI);
}

}  // namespace

TEST_CASE("log marginal likelihood equals the direct formula", "[hyper]") {
  RandomStream rng(1, "hyper.direct");
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  const GpHyperparameters h = make(Eigen::Vector2d(0.3, 0.7), 1.2, 0.05);
  sample_gp_data(h, 25, 2, rng, X, y);
  CHECK(fedsim::log_marginal_likelihood(X, y, h) == Approx(lml_direct(X, y, h)).epsilon(1e-10));
  const GpHyperparameters iso = make(Eigen::VectorXd::Constant(1, 0.4), 0.8, 0.02);
  CHECK(fedsim::log_marginal_likelihood(X, y, iso) == Approx(lml_direct(X, y, iso)).epsilon(1e-10));
}

TEST_CASE("log marginal likelihood gradient matches central finite differences", "[hyper]") {
  // Step 1e-5 in log space: truncation error ~ h^2 |f'''| and rounding ~ 1e-16 |f| / h, both
  // far below the 1e-5 relative tolerance used here.
  RandomStream rng(2, "hyper.grad");
  for (const int d : {1, 3}) {
    for (const bool ard : {false, true}) {
      Eigen::MatrixXd X;
      Eigen::VectorXd y;
      const GpHyperparameters truth = make(Eigen::VectorXd::Constant(1, 0.3), 1.0, 0.01);
      sample_gp_data(truth, 40, d, rng, X, y);
      GpHyperparameters h = make(Eigen::VectorXd::Constant(ard ? d : 1, 0.25), 0.7, 0.03);
      if (ard)
        for (int j = 0; j < d; ++j) h.lengthscales(j) = 0.15 + 0.2 * j;
      Eigen::VectorXd g;
      fedsim::log_marginal_likelihood(X, y, h, &g);
      const Eigen::VectorXd theta = h.to_log();
      REQUIRE(g.size() == theta.size());
      for (Eigen::Index j = 0; j < theta.size(); ++j) {
        const double step = 1e-5;
        Eigen::VectorXd tp = theta, tm = theta;
        tp(j) += step;
        tm(j) -= step;
        const double fd = (fedsim::log_marginal_likelihood(X, y, GpHyperparameters::from_log(tp)) -
                           fedsim::log_marginal_likelihood(X, y, GpHyperparameters::from_log(tm))) /
                          (2.0 * step);
        CHECK(g(j) == Approx(fd).epsilon(1e-5).margin(1e-5));
      }
    }
  }
}

// Tolerances from the estimator's own spread: refitting 30 independent data sets (seeds
// 0..29) gave, in 1-D, relative sd 0.16 for the lengthscale, 0.06 for the noise and sd 0.92 for
// log(signal variance) (weakly identified with only 5 lengthscales across [0, 1]); in 2-D,
// relative sds 0.08 / 0.09 for the lengthscales, 0.08 for the noise and 0.34 for log(signal
// variance). Each check allows 3 sd.
TEST_CASE("fit recovers known 1-D hyperparameters", "[hyper][sanitizer-heavy]") {
  RandomStream rng(0, "hyper.fit1");
  const GpHyperparameters truth = make(Eigen::VectorXd::Constant(1, 0.2), 1.5, 0.01);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  sample_gp_data(truth, 300, 1, rng, X, y);
  RandomStream fit_rng(0, "hyper.fit1.starts");
  HyperparameterFitOptions options;
  options.restarts = 3;
  const auto fit = fedsim::fit_hyperparameters(X, y, fit_rng, options);
  const GpHyperparameters& h = fit.hyperparameters;
  REQUIRE(h.lengthscales.size() == 1);
  CHECK(h.lengthscales(0) == Approx(0.2).epsilon(3 * 0.16));
  CHECK(h.noise_variance == Approx(0.01).epsilon(3 * 0.06));
  CHECK(std::abs(std::log(h.signal_variance / 1.5)) <= 3 * 0.92);
  CHECK(fit.log_marginal_likelihood >= fedsim::log_marginal_likelihood(X, y, truth));
  CHECK(fit.log_marginal_likelihood == Approx(fedsim::log_marginal_likelihood(X, y, h)));
}

TEST_CASE("fit recovers known 2-D per-axis hyperparameters", "[hyper][sanitizer-heavy]") {
  RandomStream rng(0, "hyper.fit2");
  const GpHyperparameters truth = make(Eigen::Vector2d(0.15, 0.4), 1.0, 0.01);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  sample_gp_data(truth, 300, 2, rng, X, y);
  RandomStream fit_rng(0, "hyper.fit2.starts");
  HyperparameterFitOptions options;
  options.per_dimension = true;
  options.restarts = 3;
  const auto fit = fedsim::fit_hyperparameters(X, y, fit_rng, options);
  const GpHyperparameters& h = fit.hyperparameters;
  REQUIRE(h.lengthscales.size() == 2);
  CHECK(h.lengthscales(0) == Approx(0.15).epsilon(3 * 0.08));
  CHECK(h.lengthscales(1) == Approx(0.4).epsilon(3 * 0.09));
  CHECK(h.noise_variance == Approx(0.01).epsilon(3 * 0.08));
  CHECK(std::abs(std::log(h.signal_variance)) <= 3 * 0.34);
  CHECK(fit.log_marginal_likelihood >= fedsim::log_marginal_likelihood(X, y, truth));
}

TEST_CASE("fit is at least as good as an exhaustive grid search", "[hyper][sanitizer-heavy]") {
  // Slower reference: a 60 x 60 grid over (log l, log r), r = noise / signal, with the signal
  // variance profiled out in closed form (s2* = y' Kr^{-1} y / n for Kr = C + r I).
  RandomStream rng(4, "hyper.grid");
  const GpHyperparameters truth = make(Eigen::VectorXd::Constant(1, 0.1), 1.0, 0.05);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  sample_gp_data(truth, 60, 1, rng, X, y);
  double grid_best = -INFINITY;
  for (int a = 0; a < 60; ++a) {
    const double l = std::exp(std::log(0.01) + (std::log(10.0) - std::log(0.01)) * a / 59.0);
    for (int b = 0; b < 60; ++b) {
      const double r = std::exp(-11.0 + 9.0 * b / 59.0);  // noise / signal in [1.7e-5, 0.2]
      const Eigen::MatrixXd c = fedsim::SeKernel{l, 1.0}.matrix(X, X);
      Eigen::MatrixXd kr = c;
      kr.diagonal().array() += r;
      const double s2 = y.dot(Eigen::LLT<Eigen::MatrixXd>(kr).solve(y)) / 60.0;
      if (s2 < 1e-2 || s2 > 1e2 || r * s2 < 1e-6 || r * s2 > 10.0) continue;  // default bounds
      grid_best = std::max(grid_best, fedsim::log_marginal_likelihood(
                                          X, y, make(Eigen::VectorXd::Constant(1, l), s2, r * s2)));
    }
  }
  REQUIRE(std::isfinite(grid_best));
  RandomStream fit_rng(4, "hyper.grid.starts");
  const auto fit = fedsim::fit_hyperparameters(X, y, fit_rng);
  CHECK(fit.log_marginal_likelihood >= grid_best - 1e-9);
}

TEST_CASE("fit respects bounds and rejects bad input", "[hyper]") {
  RandomStream rng(5, "hyper.bounds");
  const GpHyperparameters truth = make(Eigen::VectorXd::Constant(1, 0.2), 1.0, 0.01);
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  sample_gp_data(truth, 50, 1, rng, X, y);
  HyperparameterFitOptions options;
  options.bounds.lengthscale_min = 0.5;  // excludes the truth: the fit must sit on the bound
  options.bounds.noise_variance_max = 0.5;
  const auto fit = fedsim::fit_hyperparameters(X, y, rng, options);
  CHECK(fit.hyperparameters.lengthscales(0) >= 0.5);
  CHECK(fit.hyperparameters.lengthscales(0) == Approx(0.5).epsilon(1e-3));
  CHECK(fit.hyperparameters.noise_variance <= 0.5 * (1 + 1e-12));
  options.bounds.lengthscale_max = 0.4;
  CHECK_THROWS_AS(fedsim::fit_hyperparameters(X, y, rng, options), std::invalid_argument);
  CHECK_THROWS_AS(fedsim::fit_hyperparameters(X, y.head(10), rng), std::invalid_argument);
}
