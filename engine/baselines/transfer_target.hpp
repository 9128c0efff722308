#pragma once
/// What RGPE and TAF (engine/baselines/rgpe.hpp, taf.hpp) share on the target agent's side:
/// its own model made from its observations exactly as the other agents make the surrogates
/// they send (make_surrogate: the shared features and lambda), a model's prediction with
/// gradients at a point of the box, and the maximisation of an acquisition over the same
/// domain the FTS agent searches (AgentContext: every candidate of a finite set, or the unit
/// box by the context's random candidates and bounded L-BFGS refinement).
#include <Eigen/Dense>

#include "engine/baselines/feature_surrogate.hpp"
#include "engine/fbo/agent.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

/// The target's side of an iteration: its own model, its observations' features and values,
/// its incumbent (largest observed y).
struct TargetData {
  FeatureSurrogate model;
  Eigen::MatrixXd Phi;  ///< t x M
  Eigen::VectorXd y;    ///< t
  double incumbent;
};
/// Throws std::invalid_argument when the agent has no observation yet (EI needs an
/// incumbent: run the initial design first).
TargetData target_data(const fbo::FboAgent& target, const fbo::AgentContext& context);

/// A model's mean and variance at x (d) with their gradients in x (d each).
struct PointPrediction {
  double mean = 0.0;
  double variance = 0.0;
  Eigen::VectorXd d_mean;
  Eigen::VectorXd d_variance;
};
/// O(M^2 + M d). The variance's gradient is 2 lambda J'(Sigma^-1 phi), J = dphi/dx.
PointPrediction predict_at(const FeatureSurrogate& model, const RandomFourierFeatures& features,
                           const Eigen::Ref<const Eigen::VectorXd>& x);

/// An acquisition over the models: values at many points given their features (a finite
/// candidate set), and value and gradient at one point (the box).
class TransferAcquisition {
 public:
  virtual ~TransferAcquisition() = default;
  /// Phi: n x M -> n values.
  virtual Eigen::VectorXd values(const Eigen::Ref<const Eigen::MatrixXd>& Phi) const = 0;
  virtual double value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                                    Eigen::Ref<Eigen::VectorXd> gradient) const = 0;
};

struct AcquisitionMaximum {
  fbo::Point point;
  double value = 0.0;
};
/// On a candidate set: the best candidate (grid_argmax: ties -> lowest index; rng unused). On
/// the box: maximize_on_box over the context's box (the unit box) with context.acquisition (rng: its random
/// candidates).
AcquisitionMaximum maximize_acquisition(const TransferAcquisition& acquisition,
                                        const fbo::AgentContext& context, RandomStream& rng);

}  // namespace fedsim::baselines
