#pragma once
/// TAF, the transfer acquisition function (Wistuba, Schilling and Schmidt-Thieme 2018, FTS's
/// reference [55]), adapted to federated BO as FTS section 3.2 describes: the N other agents
/// send their random-feature surrogates (nu_n, Sigma_n^-1) and their incumbent, the largest
/// value they observed (engine/baselines/feature_surrogate.hpp, payload kind taf). The target
/// maximises
///   a(x) = w_T EI_T(x) + sum_n w_n I_n(x),
/// with weights normalised to sum 1, EI_T the target model's expected improvement over its own
/// incumbent, I_n agent n's improvement over its incumbent y_n^* (TafImprovement). docs/baselines/taf.md gives the equations and
/// every reading.
///
/// Readings, and the ones taken here:
///  - Variant: TAF-R, ranking weights (Wistuba et al.'s TST-R weights): TAF-ME needs
///    meta-features of every agent's data, which FTS's message does not carry; TAF-R needs
///    only the surrogates' means at the target's observations.
///  - Weights: w_T = 3/4; w_n = 3/4 (1 - (delta_n / rho)^2) when delta_n < rho, else 0, with
///    delta_n the fraction of the target's unordered observation pairs whose order mu_n
///    reverses, 1[(mu_n(x_j) < mu_n(x_k)) xor (y_j < y_k)], and rho = TafParams::bandwidth
///    (default 0.1, the RGPE authors' reimplementation); with fewer than 2 observations every
///    w_n = 3/4. Then every weight is divided by their sum.
///  - Incumbent y_n^*: the agent's largest observed value, as FTS section 3.2 says ("the
///    incumbent (currently found maximum observation value) of every agent"); Wistuba et al.
///    used the base model's best prediction, which the receiver could compute itself.
///  - Improvement I_n (TafParams::improvement): FTS section 3.2 says TAF needs "the posterior
///    mean and variance of every agent", hence Sigma_n^-1; the default `expected` is agent n's
///    expected improvement E[max(f_n(x) - y_n^*, 0)] under its surrogate (mean and variance).
///    `mean` is Wistuba et al.'s predicted improvement max(mu_n(x) - y_n^*, 0), which uses the
///    mean only.
///  - Target model: the target's own random-feature GP, as RGPE's (engine/baselines/rgpe.hpp).
///  - Every model is evaluated at every candidate whatever its weight (FTS figure 3d's
///    cost, linear in N); no output normalisation.
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/baselines/feature_surrogate.hpp"
#include "engine/baselines/transfer_target.hpp"
#include "engine/fbo/agent.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

/// How an agent's surrogate scores improvement over its incumbent (see the readings above).
enum class TafImprovement { expected, mean };
/// "expected", "mean"; std::invalid_argument naming the allowed values otherwise.
TafImprovement parse_taf_improvement(const std::string& name);
std::string to_string(TafImprovement improvement);

struct TafParams {
  double bandwidth = 0.1;  ///< rho of the TST-R weights, a finite number in (0, 10]
  TafImprovement improvement = TafImprovement::expected;
  /// Throws std::invalid_argument naming the parameter and its allowed range.
  void validate() const;
};

/// The fraction of unordered pairs j < k whose order f reverses against y (0 with t < 2).
double discordant_fraction(const Eigen::Ref<const Eigen::VectorXd>& f,
                           const Eigen::Ref<const Eigen::VectorXd>& y);

/// N + 1 normalised weights: the base models in order, the target last. Phi: the target's
/// observations' features (t x M), y their values.
std::vector<double> taf_weights(const std::vector<FeatureSurrogate>& base,
                                const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                                const Eigen::Ref<const Eigen::VectorXd>& y,
                                const TafParams& params);

/// a(x) at n points (Phi: n x M). Every base surrogate must carry its incumbent
/// (std::invalid_argument otherwise). O((N + 1) n M^2).
Eigen::VectorXd taf_values(const std::vector<FeatureSurrogate>& base,
                           const FeatureSurrogate& target, double target_incumbent,
                           const std::vector<double>& weights, TafImprovement improvement,
                           const Eigen::Ref<const Eigen::MatrixXd>& Phi);

/// a(x): what taf_choose maximises. Holds references: the models, weights and features must
/// outlive it. Throws std::invalid_argument unless there are N + 1 weights and every base
/// surrogate carries its incumbent.
class TafAcquisition final : public TransferAcquisition {
 public:
  TafAcquisition(const std::vector<FeatureSurrogate>& base, const FeatureSurrogate& target,
                 double target_incumbent, const std::vector<double>& weights,
                 TafImprovement improvement, const RandomFourierFeatures& features);
  Eigen::VectorXd values(const Eigen::Ref<const Eigen::MatrixXd>& Phi) const override;
  double value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                            Eigen::Ref<Eigen::VectorXd> gradient) const override;

 private:
  const std::vector<FeatureSurrogate>& base_;
  const FeatureSurrogate& target_;
  double incumbent_;
  const std::vector<double>& weights_;
  TafImprovement improvement_;
  const RandomFourierFeatures& features_;
};

struct TafChoice {
  fbo::Point point;
  double acquisition = 0.0;     ///< a(x) at the point
  std::vector<double> weights;  ///< N + 1, the target last
};
/// One TAF iteration of the target agent: weights, then the argmax of a(x) over the agent's
/// domain. `base`: the accepted surrogates (an inbox of kind taf). rng: the box's random
/// candidates (unused on a candidate set). Throws std::invalid_argument if the target has no
/// observation, a surrogate has no incumbent or params are invalid.
TafChoice taf_choose(const fbo::FboAgent& target, const fbo::AgentContext& context,
                     const std::vector<FeatureSurrogate>& base, const TafParams& params,
                     RandomStream& rng);

}  // namespace fedsim::baselines
