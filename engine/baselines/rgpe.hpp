#pragma once
/// RGPE, the ranking-weighted Gaussian process ensemble (Feurer, Letham and Bakshy 2018, FTS's
/// reference [16]), adapted to federated BO as FTS section 3.2 describes: the base models are
/// the N other agents' random-feature surrogates (engine/baselines/feature_surrogate.hpp),
/// received once as (nu_n, Sigma_n^-1); the target model is the target agent's own GP with the
/// same features. docs/baselines/rgpe.md gives the equations and every reading.
///
/// Readings the FTS paper leaves open, and the ones taken here:
///  - Target model: the target's random-feature GP over its own observations, made exactly as
///    the others make theirs (make_surrogate: shared features, lambda, signal variance 1, no
///    hyperparameter refit), so that a copy of the target is the target's model bit for bit.
///  - Ranking loss (Feurer et al. eq. for L): over ordered pairs j != k of the target's t
///    observations, L(f) = sum 1[(f(x_j) < f(x_k)) xor (y_j < y_k)]. For a base model, f is a
///    joint posterior draw at x_1..x_t: omega ~ N(nu_n, lambda Sigma_n^-1), f = Phi omega. For
///    the target, leave-one-out (their v1 reading): L = sum 1[(f_-j(x_j) < y_k) xor (y_j < y_k)],
///    f_-j(x_j) drawn independently per j from the posterior without observation j, in closed
///    form (Sherman-Morrison: h = phi_j'Sigma^-1 phi_j, mean (phi_j'nu - h y_j) / (1 - h),
///    latent variance lambda h / (1 - h)).
///  - S = RgpeParams::samples draws (default 256, the number of the RGPE authors' BoTorch
///    tutorial), independent between models: model n draws from rng.derive("rgpe.base", n),
///    the target from rng.derive("rgpe.target").
///  - Weights: w_i = share of the S draws in which model i has the lowest loss; a tie shares
///    that draw equally among the tied models (the authors' published code; their v1 gave it
///    to the target).
///  - Weight dilution guard (Feurer et al. v1): base model n is dropped (weight 0) when the
///    median of its S losses is larger than the 95th percentile of the target's (linear
///    interpolation between order statistics, numpy's default). On by default.
///  - Ensemble: mu(x) = sum_i w_i mu_i(x), sigma^2(x) = sum_i w_i^2 sigma_i^2(x) (models
///    independent), evaluated for every one of the N + 1 models at every candidate, whatever
///    its weight: FTS section 3.2 and figure 3d measure this cost, linear in N.
///  - Acquisition: expected improvement on the ensemble over the target's largest observed y,
///    maximised over the FTS agent's domain (maximize_acquisition).
///  - No output normalisation: the agents' surrogates are FTS's, built on raw y.
#include <vector>

#include <Eigen/Dense>

#include "engine/baselines/feature_surrogate.hpp"
#include "engine/baselines/transfer_target.hpp"
#include "engine/fbo/agent.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

struct RgpeParams {
  int samples = 256;              ///< S, in [1, 100000]
  bool dilution_guard = true;     ///< Feurer et al. v1's guard against weight dilution
  double dilution_percentile = 95.0;  ///< of the target's losses, in (0, 100]
  /// Throws std::invalid_argument naming the parameter and its allowed range.
  void validate() const;
};

/// sum over ordered pairs j != k of 1[(f_j < f_k) xor (y_j < y_k)] (a base model's draw).
int ranking_loss(const Eigen::Ref<const Eigen::VectorXd>& f,
                 const Eigen::Ref<const Eigen::VectorXd>& y);
/// sum over ordered pairs j != k of 1[(f_loo_j < y_k) xor (y_j < y_k)] (the target's
/// leave-one-out draws).
int loo_ranking_loss(const Eigen::Ref<const Eigen::VectorXd>& f_loo,
                     const Eigen::Ref<const Eigen::VectorXd>& y);

/// The target model's leave-one-out posterior at each observation: mean_j and the latent
/// variance_j of f(x_j) given every observation but j. Phi: t x M, y: t.
void loo_predictions(const FeatureSurrogate& target, const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                     const Eigen::Ref<const Eigen::VectorXd>& y, Eigen::VectorXd& mean,
                     Eigen::VectorXd& variance);

/// p-th percentile (0..100) by linear interpolation between order statistics.
double percentile(std::vector<double> values, double p);

struct RgpeWeights {
  std::vector<double> weights;  ///< N + 1: the base models in order, the target last; sum 1
  std::vector<bool> dropped;    ///< N: base models the dilution guard dropped
};
/// The ranking weights (the readings above). Phi: the target's observations' features (t x M),
/// y their values. rng: only its derived streams are drawn from (it is not advanced).
RgpeWeights rgpe_weights(const std::vector<FeatureSurrogate>& base, const FeatureSurrogate& target,
                         const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                         const Eigen::Ref<const Eigen::VectorXd>& y, const RgpeParams& params,
                         const RandomStream& rng);

struct EnsemblePrediction {
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
};
/// mu = sum w_i mu_i, sigma^2 = sum w_i^2 sigma_i^2 at n points (Phi: n x M), over the base
/// models then the target (weights: N + 1). Every model is evaluated. O((N + 1) n M^2).
EnsemblePrediction ensemble_predict(const std::vector<FeatureSurrogate>& base,
                                    const FeatureSurrogate& target,
                                    const std::vector<double>& weights,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Phi);

/// EI on the ensemble over the target's incumbent: what rgpe_choose maximises. Holds
/// references: the models, weights and features must outlive it.
class RgpeAcquisition final : public TransferAcquisition {
 public:
  /// weights: N + 1 (std::invalid_argument otherwise).
  RgpeAcquisition(const std::vector<FeatureSurrogate>& base, const FeatureSurrogate& target,
                  const std::vector<double>& weights, double incumbent,
                  const RandomFourierFeatures& features);
  Eigen::VectorXd values(const Eigen::Ref<const Eigen::MatrixXd>& Phi) const override;
  double value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                            Eigen::Ref<Eigen::VectorXd> gradient) const override;

 private:
  const std::vector<FeatureSurrogate>& base_;
  const FeatureSurrogate& target_;
  const std::vector<double>& weights_;
  double incumbent_;
  const RandomFourierFeatures& features_;
};

struct RgpeChoice {
  fbo::Point point;
  double acquisition = 0.0;     ///< the ensemble's EI at the point
  std::vector<double> weights;  ///< N + 1, the target last
  int dropped = 0;              ///< base models the dilution guard dropped
};
/// One RGPE iteration of the target agent: weights, then the argmax of EI on the ensemble over
/// the agent's domain. `base`: the accepted surrogates (SurrogateInbox::surrogates()). rng:
/// the iteration's stream (its derived streams draw the losses, it draws the box's random
/// candidates). Throws std::invalid_argument if the target has no observation or params are
/// invalid.
RgpeChoice rgpe_choose(const fbo::FboAgent& target, const fbo::AgentContext& context,
                       const std::vector<FeatureSurrogate>& base, const RgpeParams& params,
                       RandomStream& rng);

}  // namespace fedsim::baselines
