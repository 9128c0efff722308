#pragma once
/// The DP-FTS-DE authors' local Thompson sampler (issue 12 item 1; their repository
/// daizhongxiang/Differentially-Private-Federated-Bayesian-Optimization, the agent class in
/// bayesian_optimization_dp_fts_de.py): local_sampler = "refit-rff" and "refit-rff-bounded".
///
/// - Each agent holds an isotropic SE GP whose hyperparameters start at GPy's values of the
///   authors' code: length scale 1, signal variance 0.1, noise variance 1e-6.
/// - At the start of an iteration whose observation count n is a multiple of `every` (n >= the
///   initial design: they refit in maximize(), never during init), the agent refits all three by
///   maximising the log marginal likelihood of its raw history (zero prior mean), as GPy's
///   optimize_restarts(10): one L-BFGS run from the current values (a warm start from the
///   previous fit), then restarts - 1 runs from random values log(1 + e^z), z ~ N(0, 1) per
///   parameter, keeping the best. Here the refit is done when the n-th observation arrives,
///   which is the same fit (nothing changes between the observation and the next iteration).
///   "refit-rff" fits as GPy does, without bounds, except for numerical caps: [1e-4, 1e4] for
///   the length scale, [1e-6, 1e6] for the signal and [1e-10, 1e4] for the noise variance. On a
///   few scattered points of a wiggly function the length scale runs to the cap (GPy's runs on
///   until its optimiser stops); beyond about 100 every feature is nearly constant on the unit
///   box, so where it stops changes no draw materially. "refit-rff-bounded" fits within
///   algorithm.refit_lengthscale_min/max and refit_noise_min/max (engine/fbo/refit.hpp).
/// - Every local-TS draw takes *fresh* random features: M = `features` (their M_target = 100),
///   s_i ~ N(0, I / l^2), b_i ~ U[0, 2 pi], phi(x) normalised to |phi(x)|^2 = s2 (the fitted
///   length scale l and signal variance s2), seeded from the iteration's choose stream;
///   Sigma = Phi'Phi + lam I with lam = max(lambda_floor, n2), nu = Sigma^-1 Phi'y (raw y),
///   omega ~ N(nu, beta^2 lam Sigma^-1) (their beta is 1), and the query is the argmax of
///   phi(x)'omega over the candidates (exhaustive) or the box (random candidates and L-BFGS,
///   as their 1000 uniform points plus 20 L-BFGS-B restarts).
/// - The messages omega_{n,t} an agent sends are unchanged: drawn from the shared model (the
///   shared features, algorithm.lambda), as their sample_w().
///
/// Readings (DECISIONS.md, "The authors' local sampler"): the L-BFGS runs in log space, not
/// GPy's softplus space (the same maximisers, other paths); their rule that replaces a repeated
/// query by a uniform random point is left out (on a finite candidate set repeats are the
/// norm, and on a box an exact repeat of a refined maximiser does not happen).
#include <cstdint>

#include <Eigen/Dense>

#include "engine/hyperparameters.hpp"
#include "engine/rff.hpp"
#include "engine/rng.hpp"

namespace fedsim::fbo {

/// The sampler's settings, with the authors' values as defaults.
struct RefitRffConfig {
  int every = 5;               ///< refit period (their gp_opt_schedule)
  int restarts = 10;           ///< L-BFGS runs per refit (their optimize_restarts(10))
  int features = 100;          ///< fresh random features per draw (their M_target)
  double lambda_floor = 1e-5;  ///< lam = max(lambda_floor, fitted noise variance)
  /// No refit before this many observations (the initial design's size; filled by the run).
  int first = 0;

  /// Whether the agent's count-th observation triggers a refit.
  bool due(int count) const { return count >= first && count >= every && count % every == 0; }
  /// Throws std::invalid_argument naming the key (algorithm.local_refit_every,
  /// local_refit_restarts, local_features, local_lambda_floor) and the allowed values.
  void validate() const;
};

/// The hyperparameters before any refit: GPy's start in the authors' code.
GpHyperparameters refit_rff_initial();

/// One refit after the count-th observation (count = X.rows()), from `current` (warm start).
/// bounds: the bounded variant's (RefitConfig::bounds()), or null for GPy's unbounded fits.
/// Restarts come from the stream (seed, agent.refit, agent, count).
GpHyperparameters refit_rff_fit(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                const Eigen::Ref<const Eigen::VectorXd>& y,
                                const GpHyperparameters& current, const RefitRffConfig& config,
                                const HyperparameterBounds* bounds, std::uint64_t seed,
                                int agent);

/// One draw: fresh features (seeded from rng) and omega ~ N(nu, beta^2 lam Sigma^-1) on the
/// history (X: n x d, y: n).
struct RefitRffDraw {
  RandomFourierFeatures features;
  Eigen::VectorXd omega;
};
RefitRffDraw refit_rff_draw(const Eigen::Ref<const Eigen::MatrixXd>& X,
                            const Eigen::Ref<const Eigen::VectorXd>& y,
                            const GpHyperparameters& h, const RefitRffConfig& config, double beta,
                            RandomStream& rng);

}  // namespace fedsim::fbo
