#include "engine/baselines/taf.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/baselines/expected_improvement.hpp"

namespace fedsim::baselines {

TafImprovement parse_taf_improvement(const std::string& name) {
  for (TafImprovement i : {TafImprovement::expected, TafImprovement::mean})
    if (name == to_string(i)) return i;
  throw std::invalid_argument("unknown taf improvement '" + name + "': allowed expected, mean");
}

std::string to_string(TafImprovement improvement) {
  switch (improvement) {
    case TafImprovement::expected:
      return "expected";
    case TafImprovement::mean:
      return "mean";
  }
  throw std::logic_error("to_string: not a TafImprovement value");
}

namespace {

/// Agent n's improvement over its incumbent at a prediction, with d/dmean and d/dvariance.
VarianceExpectedImprovement improvement_of(TafImprovement kind, double mean, double variance,
                                   double incumbent) {
  switch (kind) {
    case TafImprovement::expected:
      return expected_improvement_of_variance(mean, variance, incumbent);
    case TafImprovement::mean:
      return expected_improvement_of_variance(mean, 0.0, incumbent);  // max(mean - y*, 0)
  }
  throw std::logic_error("improvement_of: not a TafImprovement value");
}

}  // namespace

void TafParams::validate() const {
  if (!(bandwidth > 0 && bandwidth <= 10))
    throw std::invalid_argument("taf bandwidth rho must be in (0, 10], got " +
                                std::to_string(bandwidth));
}

double discordant_fraction(const Eigen::Ref<const Eigen::VectorXd>& f,
                           const Eigen::Ref<const Eigen::VectorXd>& y) {
  const Eigen::Index t = y.size();
  if (t < 2) return 0.0;
  long discordant = 0;
  for (Eigen::Index j = 0; j < t; ++j)
    for (Eigen::Index k = j + 1; k < t; ++k)
      if ((f(j) < f(k)) != (y(j) < y(k))) ++discordant;
  return static_cast<double>(discordant) / (static_cast<double>(t) * (t - 1) / 2.0);
}

std::vector<double> taf_weights(const std::vector<FeatureSurrogate>& base,
                                const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                                const Eigen::Ref<const Eigen::VectorXd>& y,
                                const TafParams& params) {
  params.validate();
  require_weighable(base, Phi, y);
  const std::size_t N = base.size();
  std::vector<double> w(N + 1, 0.75);
  if (y.size() >= 2)
    for (std::size_t n = 0; n < N; ++n) {
      const double r = discordant_fraction(Phi * base[n].nu(), y) / params.bandwidth;
      w[n] = r < 1 ? 0.75 * (1 - r * r) : 0.0;
    }
  double total = 0.0;
  for (double v : w) total += v;  // >= 3/4, the target's
  for (double& v : w) v /= total;
  return w;
}

namespace {

void require_incumbents(const std::vector<FeatureSurrogate>& base) {
  for (std::size_t n = 0; n < base.size(); ++n)
    if (!std::isfinite(base[n].incumbent()))
      throw std::invalid_argument("TAF: surrogate " + std::to_string(n) +
                                  " carries no incumbent (an RGPE payload?)");
}

void require_weights(const std::vector<FeatureSurrogate>& base, const std::vector<double>& w) {
  if (w.size() != base.size() + 1)
    throw std::invalid_argument("TAF: " + std::to_string(w.size()) + " weights for " +
                                std::to_string(base.size() + 1) + " models");
}

}  // namespace

Eigen::VectorXd taf_values(const std::vector<FeatureSurrogate>& base,
                           const FeatureSurrogate& target, double target_incumbent,
                           const std::vector<double>& weights, TafImprovement improvement,
                           const Eigen::Ref<const Eigen::MatrixXd>& Phi) {
  require_incumbents(base);
  require_weights(base, weights);
  Eigen::VectorXd mean, variance;
  target.predict(Phi, mean, variance);
  Eigen::VectorXd out(Phi.rows());
  for (Eigen::Index j = 0; j < Phi.rows(); ++j)
    out(j) = weights.back() * expected_improvement_of_variance(mean(j), variance(j), target_incumbent).value;
  for (std::size_t n = 0; n < base.size(); ++n) {
    base[n].predict(Phi, mean, variance);
    for (Eigen::Index j = 0; j < Phi.rows(); ++j)
      out(j) += weights[n] *
                improvement_of(improvement, mean(j), variance(j), base[n].incumbent()).value;
  }
  return out;
}

TafAcquisition::TafAcquisition(const std::vector<FeatureSurrogate>& base,
                               const FeatureSurrogate& target, double target_incumbent,
                               const std::vector<double>& weights, TafImprovement improvement,
                               const RandomFourierFeatures& features)
    : base_(base), target_(target), incumbent_(target_incumbent), weights_(weights),
      improvement_(improvement), features_(features) {
  require_incumbents(base);
  require_weights(base, weights);
}

Eigen::VectorXd TafAcquisition::values(const Eigen::Ref<const Eigen::MatrixXd>& Phi) const {
  return taf_values(base_, target_, incumbent_, weights_, improvement_, Phi);
}

double TafAcquisition::value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                                          Eigen::Ref<Eigen::VectorXd> gradient) const {
  const PointPrediction t = predict_at(target_, features_, x);
  const VarianceExpectedImprovement ei = expected_improvement_of_variance(t.mean, t.variance, incumbent_);
  const double wt = weights_.back();
  double value = wt * ei.value;
  gradient = wt * (ei.d_mean * t.d_mean + ei.d_variance * t.d_variance);
  for (std::size_t n = 0; n < base_.size(); ++n) {
    const PointPrediction p = predict_at(base_[n], features_, x);
    const VarianceExpectedImprovement i =
        improvement_of(improvement_, p.mean, p.variance, base_[n].incumbent());
    value += weights_[n] * i.value;
    gradient += weights_[n] * (i.d_mean * p.d_mean + i.d_variance * p.d_variance);
  }
  return value;
}

TafChoice taf_choose(const fbo::FboAgent& target, const fbo::AgentContext& context,
                     const std::vector<FeatureSurrogate>& base, const TafParams& params,
                     RandomStream& rng) {
  params.validate();
  require_incumbents(base);
  const TargetData data = target_data(target, context);
  TafChoice choice;
  choice.weights = taf_weights(base, data.Phi, data.y, params);
  const TafAcquisition acquisition(base, data.model, data.incumbent, choice.weights, params.improvement,
                        context.features);
  const AcquisitionMaximum best = maximize_acquisition(acquisition, context, rng);
  choice.point = best.point;
  choice.acquisition = best.value;
  return choice;
}

}  // namespace fedsim::baselines
