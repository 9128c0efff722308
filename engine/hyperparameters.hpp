#pragma once
/// GP hyperparameter fitting: maximise the log marginal likelihood of an SE-kernel GP with
/// zero prior mean over (lengthscales, signal variance, noise variance), by bounded L-BFGS in
/// log-parameter space with analytic gradients and random restarts.
#include <optional>

#include <Eigen/Dense>

#include "engine/rng.hpp"

namespace fedsim {

/// SE kernel plus Gaussian noise: k(x, x') = signal_variance * exp(-sum_j (x_j - x'_j)^2 /
/// (2 l_j^2)) + noise_variance [x = x'].
struct GpHyperparameters {
  /// 1 (isotropic: every axis shares l_1) or d (one per axis).
  Eigen::VectorXd lengthscales = Eigen::VectorXd::Ones(1);
  double signal_variance = 1.0;
  double noise_variance = 1e-2;

  /// [log l_1 .. log l_k, log signal_variance, log noise_variance]: k + 2.
  Eigen::VectorXd to_log() const;
  /// Inverse of to_log; theta: k + 2, with k >= 1 lengthscales.
  static GpHyperparameters from_log(const Eigen::Ref<const Eigen::VectorXd>& theta);
};

/// log p(y | X) = -y'K^{-1}y / 2 - log|K| / 2 - n log(2 pi) / 2, K = k(X, X) + noise I.
/// X: n x d, rows are points; y: n. If gradient is non-null it receives d/d(to_log()) (k + 2).
/// Returns -infinity if K is not numerically positive definite.
double log_marginal_likelihood(const Eigen::Ref<const Eigen::MatrixXd>& X,
                               const Eigen::Ref<const Eigen::VectorXd>& y,
                               const GpHyperparameters& h, Eigen::VectorXd* gradient = nullptr);

/// Box constraints on every hyperparameter; the defaults suit inputs scaled to [0, 1]^d and
/// outputs standardised to about unit variance.
struct HyperparameterBounds {
  double lengthscale_min = 1e-2;
  double lengthscale_max = 10.0;
  double signal_variance_min = 1e-2;
  double signal_variance_max = 1e2;
  double noise_variance_min = 1e-6;
  double noise_variance_max = 10.0;
  /// Throws std::invalid_argument unless 0 < min < max < infinity for each parameter.
  void validate() const;
};

/// How the random starts of a fit (every run after the first) are drawn, per parameter.
enum class RestartDraw {
  log_uniform,     ///< log-uniform between the bounds
  softplus_normal  ///< log(1 + e^z), z ~ N(0, 1), clamped into the bounds: GPy's randomize()
                   ///< of a positive (Logexp) parameter, as its optimize_restarts draws them
};

struct HyperparameterFitOptions {
  bool per_dimension = false;  ///< one lengthscale per axis instead of one shared
  HyperparameterBounds bounds;
  /// Number of L-BFGS runs: the first starts at `start` if given (clamped into the bounds),
  /// else at a data-driven guess (a quarter of the inputs' mean extent, var(y), var(y) / 10,
  /// clamped into the bounds); the rest at random draws (`restart_draw`).
  int restarts = 5;
  /// The first run's start: the current values, as GPy's optimize_restarts begins (a warm
  /// start from the previous fit). Its lengthscales: 1 (shared) or d (per axis) values.
  std::optional<GpHyperparameters> start;
  RestartDraw restart_draw = RestartDraw::log_uniform;
  int max_evaluations = 300;          ///< per run
  double relative_tolerance = 1e-10;  ///< on the LML, per run
};

struct HyperparameterFit {
  GpHyperparameters hyperparameters;
  double log_marginal_likelihood;
};

/// The best fit over all runs, within the bounds (exactly: clamped after leaving log space).
/// X: n x d, rows are points; y: n (n >= 1). Random starts come from rng. Throws std::invalid_argument on mismatched or empty data, bad bounds or
/// restarts < 1.
HyperparameterFit fit_hyperparameters(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                      const Eigen::Ref<const Eigen::VectorXd>& y, RandomStream& rng,
                                      const HyperparameterFitOptions& options = {});

}  // namespace fedsim
