#include "engine/baselines/transfer_target.hpp"

#include <stdexcept>

#include "engine/acquisition.hpp"

namespace fedsim::baselines {

TargetData target_data(const fbo::FboAgent& target, const fbo::AgentContext& context) {
  if (target.num_observations() < 1)
    throw std::invalid_argument("RGPE / TAF: the target agent has no observation yet (EI needs "
                                "an incumbent): run the initial design first");
  Eigen::MatrixXd Phi = observed_features(target, context);
  Eigen::VectorXd y = observed_values(target);
  const double incumbent = y.maxCoeff();
  return {make_surrogate(target, context), std::move(Phi), std::move(y), incumbent};
}

PointPrediction predict_at(const FeatureSurrogate& model, const RandomFourierFeatures& features,
                           const Eigen::Ref<const Eigen::VectorXd>& x) {
  PointPrediction p;
  p.d_mean.resize(x.size());
  p.d_variance.resize(x.size());
  p.mean = features.value_and_gradient(x, model.nu(), p.d_mean);
  const Eigen::VectorXd phi = features.features(x);
  const Eigen::VectorXd a = model.sigma_inv() * phi;
  // d(phi'A phi)/dx = 2 J'(A phi), and J'v is the gradient of phi(x)'v.
  features.value_and_gradient(x, a, p.d_variance);
  p.variance = model.lambda() * phi.dot(a);
  p.d_variance *= 2.0 * model.lambda();
  if (p.variance < 0) {
    p.variance = 0;
    p.d_variance.setZero();
  }
  return p;
}

AcquisitionMaximum maximize_acquisition(const TransferAcquisition& acquisition,
                                        const fbo::AgentContext& context, RandomStream& rng) {
  if (context.discrete()) {
    const GridMaximum best = grid_argmax(acquisition.values(context.grid_features));
    return {context.candidate(best.index), best.value};
  }
  const ValueAndGradient f = [&acquisition](const Eigen::Ref<const Eigen::VectorXd>& x,
                                            Eigen::Ref<Eigen::VectorXd> gradient) {
    return acquisition.value_and_gradient(x, gradient);
  };
  const BoxMaximum best =
      maximize_on_box(f, context.partition.box(), rng, context.acquisition);
  return {fbo::Point{-1, best.x}, best.value};
}

}  // namespace fedsim::baselines
