#pragma once
/// GP hyperparameters fitted during a run (issue 11 item 3): after every k-th observation an
/// agent refits the signal variance s2, the length scale l and the noise variance n2 of its
/// *local* model by maximising the log marginal likelihood of its own history (zero prior
/// mean, SE kernel; engine/hyperparameters) with restarts, within bounds.
///
/// Which parts use the fitted values (the reading of FTS section 6, "the hyperparameters of
/// the target agent's GP are learned by maximising the marginal likelihood", and of DP-FTS-DE
/// appendix B.2, where the random features are generated with one fixed length scale):
/// - Never the shared random features nor the omega_{n,t} an agent sends: the features come
///   from the shared feature seed and algorithm.kernel_lengthscale, and a message is drawn from
///   the shared model (those features, signal variance 1, regulariser algorithm.lambda), so
///   every omega refers to the same features and the same prior, whatever an agent has fitted;
///   DP clipping and the server's weighted sums assume that.
/// - Local Thompson sampling with the rff sampler: the features are fixed, so the fit holds the
///   length scale at kernel_lengthscale and fits s2 and n2 only (the marginal likelihood of the
///   model that is sampled). With f = phi(x)'w, w ~ N(0, s2 I) and noise variance n2, the
///   posterior is w ~ N(Sigma^-1 Phi'y, n2 Sigma^-1) with Sigma = Phi'Phi + (n2 / s2) I: a
///   feature posterior with regulariser n2 / s2, sampled at scale beta sqrt(s2).
/// - Local Thompson sampling with the exact sampler: all three, the exact GP with kernel
///   s2 exp(-|x - x'|^2 / (2 l^2)) and noise variance n2 on the grid.
/// Before an agent's first refit its local model is the shared one: (kernel_lengthscale, 1,
/// lambda).
///
/// Determinism: a fit depends only on the agent's first `count` observations and on the
/// restarts drawn from the stream (seed, agent.refit, agent, count); a refit happens inside
/// FboAgent::observe, so replaying an agent's history (a checkpoint's resume) refits the same.
#include <Eigen/Dense>
#include <cstdint>
#include <string>

#include "engine/hyperparameters.hpp"

namespace fedsim::fbo {

/// When and how an agent refits; the defaults suit inputs in [0, 1]^d (every built-in
/// domain) and outputs of order one (the synthetic objectives are normalised to [0, 1]).
struct RefitConfig {
  /// k: refit after every k-th observation of an agent (the papers' authors' code used 5);
  /// 0: never (every output is that of a run without refits).
  int every = 0;
  /// L-BFGS runs per fit: one from a data-driven guess, the rest from log-uniform draws.
  int restarts = 5;
  /// Length-scale bounds. Unbounded fits on a few scattered points drift to length scales of
  /// hundreds (the data look like noise around a constant); 1 is the side of the unit box,
  /// beyond which the GP is nearly constant over the domain. 0.01 is the smallest length scale
  /// the papers use (the real-world experiments' random features), about ten grid spacings of
  /// the synthetic 1000-point grid.
  double lengthscale_min = 0.01;
  double lengthscale_max = 1.0;
  /// Noise-variance bounds. 1e-6 is the papers' smallest noise variance (real-world
  /// experiments) and keeps K + n2 I well conditioned; 1 exceeds the variance of any output in
  /// [0, 1], so a fit may call the whole signal noise but not more.
  double noise_min = 1e-6;
  double noise_max = 1.0;

  bool enabled() const { return every > 0; }
  /// Whether an agent's count-th observation (count >= 1) triggers a refit.
  bool due(int count) const { return every > 0 && count > 0 && count % every == 0; }
  /// Throws std::invalid_argument naming the parameter (refit_every, refit_restarts,
  /// refit_lengthscale_min/max, refit_noise_min/max) and the allowed values.
  void validate() const;
  /// The fit's bounds: these length-scale and noise bounds, the engine's default signal
  /// variance bounds [1e-2, 1e2].
  HyperparameterBounds bounds() const;
};

/// One refit of agent `agent` after its count-th observation, count = X.rows(). X: count x d,
/// rows are the observed points; y: count. fit_lengthscale false holds the length scale at
/// `lengthscale` (the rff sampler) and fits s2 and n2 only. Restarts are drawn from the stream
/// (seed, agent.refit, agent, count).
GpHyperparameters refit_hyperparameters(const Eigen::Ref<const Eigen::MatrixXd>& X,
                                        const Eigen::Ref<const Eigen::VectorXd>& y,
                                        const RefitConfig& config, double lengthscale,
                                        bool fit_lengthscale, std::uint64_t seed, int agent);

}  // namespace fedsim::fbo
