#pragma once
/// KernelTS: GP Thompson sampling (GP-TS, Chowdhury & Gopalan 2017, "On kernelized multi-armed
/// bandits", algorithm 2), the centralised baseline of Fed-PNE figure 2 (appendix E.1.2): one
/// evaluation of the global objective per round. Each round draws a function from the GP
/// posterior with its covariance scaled by v_t^2, f_t ~ N(mu_{t-1}, v_t^2 k_{t-1}), on a fixed
/// candidate set (a tensor grid of the domain) and queries its argmax. The posterior uses the
/// regulariser lambda: mu_t(x) = k_t(x)'(K_t + lambda I)^{-1} y_t, k_t(x, x') = k(x, x') -
/// k_t(x)'(K_t + lambda I)^{-1} k_t(x'). docs/baselines/kernel-ts.md states every reading.
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/gp_exact.hpp"
#include "engine/kernel.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

/// How the posterior is held and sampled.
enum class KernelTsPosterior {
  /// Function space (engine/gp_exact.hpp's ExactGp): the dense posterior covariance on the
  /// candidates, factorised every round. O(n_c^3) per round: the reference, affordable for a
  /// few hundred candidates or short runs.
  exact,
  /// Weight space on the candidate prior's pivoted-Cholesky factor K_cc ~= F F' (F: n_c x r,
  /// every residual entry <= factor_tolerance * signal_variance): f = F w, w ~ N(0, I_r), so
  /// the posterior is Bayesian linear regression on r weights, updated by a rank-one Cholesky
  /// update. Exact up to the factor's truncation; O(n_c r + r^2) per round (T = 10^4 runs).
  factor
};

/// How v_t, the scale of the posterior's standard deviation, is set.
enum class KernelTsScaling {
  fixed,  ///< v_t = v (NeuralTS's KernelTS, which Fed-PNE ran: nu = 1, lambda = 1)
  /// v_t = B + R sqrt(2 (gamma_{t-1} + 1 + ln(2 / delta))) (Chowdhury & Gopalan, GP-TS), with
  /// gamma_{t-1} the information gain of the points observed so far, 1/2 ln det(I + K/lambda).
  theory
};

struct KernelTsParams {
  /// SE kernel k(x, x') = signal_variance exp(-|x - x'|^2 / (2 lengthscale^2)). The default is
  /// NeuralTS's rbf_kernel with gamma = 1: exp(-|x - x'|^2), lengthscale 1 / sqrt(2).
  double lengthscale = 0.70710678118654752;
  double signal_variance = 1.0;
  double lambda = 1.0;  ///< regulariser (the GP's noise variance); GP-TS's theory: 1 + 2 / T
  KernelTsScaling scaling = KernelTsScaling::fixed;
  double v = 1.0;       ///< fixed scaling: v_t = v
  double B = 1.0;       ///< theory scaling: bound on the RKHS norm of f
  double R = 0.1;       ///< theory scaling: sub-Gaussian constant of the noise
  double delta = 0.05;  ///< theory scaling: failure probability, in (0, 1)
  /// Candidate set: the tensor grid with this many points per axis of the domain (both ends
  /// included). 0: 1000 in one dimension (the papers' 1-D grid), else floor(1000^(1/d)).
  int candidates_per_dim = 0;
  KernelTsPosterior posterior = KernelTsPosterior::factor;
  double factor_tolerance = 1e-10;  ///< relative truncation of the prior factor, in (0, 1)

  /// Throws std::invalid_argument naming the parameter and its allowed range.
  void validate() const;
  /// The points per axis for a d-dimensional domain (resolves 0).
  int points_per_dim(int d) const;
};

/// Everything that decides KernelTs's future, given its params and domain: the observations in
/// order (the posterior is rebuilt from them by the same updates, so bit for bit) and the
/// candidate proposed but not yet observed (-1: none).
struct KernelTsState {
  std::vector<int> candidates;  ///< candidate index of each observation
  std::vector<double> values;   ///< observed value of each
  int pending = -1;
};

class KernelTs {
 public:
  /// Validates params, builds the candidate grid on the domain and its prior factor. Throws
  /// std::invalid_argument on bad params, an invalid domain or more than 100000 candidates.
  KernelTs(KernelTsParams params, Box domain);

  const KernelTsParams& params() const { return params_; }
  const Box& domain() const { return domain_; }
  /// n_c x d, rows are points.
  const Eigen::MatrixXd& candidates() const { return prior_->candidates(); }
  int num_candidates() const { return prior_->size(); }
  /// r, the prior factor's rank (used by the factor posterior).
  int factor_rank() const { return prior_->rank(); }
  int num_observations() const { return static_cast<int>(state_.values.size()); }

  /// Draws f_t (sample) and returns its argmax over the candidates (ties: lowest index),
  /// remembered as pending for observe(double).
  Eigen::VectorXd propose(RandomStream& rng);
  /// The pending candidate's index (-1: none).
  int pending() const { return state_.pending; }
  /// Observes y at the pending candidate. Throws std::logic_error if none is pending and
  /// std::invalid_argument if y is not finite.
  void observe(double y);
  /// Observes y at candidate `candidate` (clears any pending proposal).
  void observe(int candidate, double y);

  /// v_t for the next draw.
  double scale() const;
  /// gamma_t = 1/2 sum_s ln(1 + sigma_{s-1}^2(x_s) / lambda) = 1/2 ln det(I + K_t / lambda).
  double information_gain() const { return gamma_; }
  /// Posterior mean / variance (unscaled, lambda-regularised) on the candidates: n_c.
  Eigen::VectorXd posterior_mean() const;
  Eigen::VectorXd posterior_variance() const;
  /// A draw of f_t on the candidates: N(mean, scale()^2 covariance), n_c. Exact posterior:
  /// ExactGp::sample_dense (n_c normals); factor: F (A^{-1} b + v L_A^{-T} z) (r normals).
  Eigen::VectorXd sample(RandomStream& rng) const;

  KernelTsState state() const { return state_; }
  /// Rebuilds the posterior from the state's observations. Throws std::invalid_argument
  /// (leaving this object unchanged) if an index is out of range, a value is not finite or the
  /// two lists differ in length.
  void restore(const KernelTsState& state);

 private:
  void reset();
  void add(int candidate, double y);

  KernelTsParams params_;
  Box domain_;
  std::shared_ptr<const CandidatePrior> prior_;
  KernelTsState state_;
  double gamma_ = 0.0;
  // exact posterior
  std::unique_ptr<ExactGp> gp_;
  // factor posterior: A = I + sum_s phi_s phi_s' / lambda = L L', b = sum_s phi_s y_s / lambda
  Eigen::MatrixXd chol_;
  Eigen::VectorXd b_;
};

}  // namespace fedsim::baselines
