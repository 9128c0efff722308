#include "engine/baselines/rgpe.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/baselines/expected_improvement.hpp"

namespace fedsim::baselines {

void RgpeParams::validate() const {
  if (samples < 1 || samples > 100000)
    throw std::invalid_argument("rgpe samples S must be in [1, 100000], got " +
                                std::to_string(samples));
  if (!(dilution_percentile > 0 && dilution_percentile <= 100))
    throw std::invalid_argument("rgpe dilution_percentile must be in (0, 100], got " +
                                std::to_string(dilution_percentile));
}

int ranking_loss(const Eigen::Ref<const Eigen::VectorXd>& f,
                 const Eigen::Ref<const Eigen::VectorXd>& y) {
  int loss = 0;
  const Eigen::Index t = y.size();
  for (Eigen::Index j = 0; j < t; ++j)
    for (Eigen::Index k = 0; k < t; ++k)
      if (j != k && ((f(j) < f(k)) != (y(j) < y(k)))) ++loss;
  return loss;
}

int loo_ranking_loss(const Eigen::Ref<const Eigen::VectorXd>& f_loo,
                     const Eigen::Ref<const Eigen::VectorXd>& y) {
  int loss = 0;
  const Eigen::Index t = y.size();
  for (Eigen::Index j = 0; j < t; ++j)
    for (Eigen::Index k = 0; k < t; ++k)
      if (j != k && ((f_loo(j) < y(k)) != (y(j) < y(k)))) ++loss;
  return loss;
}

void loo_predictions(const FeatureSurrogate& target, const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                     const Eigen::Ref<const Eigen::VectorXd>& y, Eigen::VectorXd& mean,
                     Eigen::VectorXd& variance) {
  // Sigma_-j = Sigma - phi_j phi_j'; by Sherman-Morrison, with h = phi_j'Sigma^-1 phi_j < 1:
  // phi_j'nu_-j = (phi_j'nu - h y_j) / (1 - h), lambda phi_j'Sigma_-j^-1 phi_j = lambda h / (1 - h).
  const Eigen::VectorXd fitted = Phi * target.nu();
  const Eigen::VectorXd h = (Phi * target.sigma_inv()).cwiseProduct(Phi).rowwise().sum();
  mean.resize(y.size());
  variance.resize(y.size());
  for (Eigen::Index j = 0; j < y.size(); ++j) {
    const double rest = 1.0 - h(j);
    mean(j) = (fitted(j) - h(j) * y(j)) / rest;
    variance(j) = std::max(0.0, target.lambda() * h(j) / rest);
  }
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) throw std::invalid_argument("percentile of no values");
  std::sort(values.begin(), values.end());
  const double pos = p / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

RgpeWeights rgpe_weights(const std::vector<FeatureSurrogate>& base, const FeatureSurrogate& target,
                         const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                         const Eigen::Ref<const Eigen::VectorXd>& y, const RgpeParams& params,
                         const RandomStream& rng) {
  params.validate();
  require_weighable(base, Phi, y);
  const int N = static_cast<int>(base.size());
  const int S = params.samples;
  // losses[i][s]: model i (base 0..N-1, target N) in draw s; infinity once dropped.
  std::vector<std::vector<double>> losses(N + 1, std::vector<double>(S));
  for (int n = 0; n < N; ++n) {
    RandomStream draws = rng.derive("rgpe.base", static_cast<std::uint64_t>(n));
    const Eigen::MatrixXd f = Phi * base[n].sample_weights(S, draws);  // t x S
    for (int s = 0; s < S; ++s) losses[n][s] = ranking_loss(f.col(s), y);
  }
  {
    Eigen::VectorXd mean, variance;
    loo_predictions(target, Phi, y, mean, variance);
    const Eigen::VectorXd sd = variance.cwiseSqrt();
    RandomStream draws = rng.derive("rgpe.target");
    Eigen::VectorXd f(y.size());
    for (int s = 0; s < S; ++s) {
      for (Eigen::Index j = 0; j < y.size(); ++j) f(j) = mean(j) + sd(j) * draws.normal();
      losses[N][s] = loo_ranking_loss(f, y);
    }
  }

  RgpeWeights out;
  out.dropped.assign(N, false);
  if (params.dilution_guard) {
    const double bar = percentile(losses[N], params.dilution_percentile);
    for (int n = 0; n < N; ++n)
      if (percentile(losses[n], 50.0) > bar) {
        out.dropped[n] = true;
        std::fill(losses[n].begin(), losses[n].end(), std::numeric_limits<double>::infinity());
      }
  }
  std::vector<double> wins(N + 1, 0.0);
  for (int s = 0; s < S; ++s) {
    double best = losses[0][s];
    for (int i = 1; i <= N; ++i) best = std::min(best, losses[i][s]);
    int ties = 0;
    for (int i = 0; i <= N; ++i) ties += losses[i][s] == best;
    for (int i = 0; i <= N; ++i)
      if (losses[i][s] == best) wins[i] += 1.0 / ties;
  }
  out.weights.resize(N + 1);
  for (int i = 0; i <= N; ++i) out.weights[i] = wins[i] / S;
  return out;
}

EnsemblePrediction ensemble_predict(const std::vector<FeatureSurrogate>& base,
                                    const FeatureSurrogate& target,
                                    const std::vector<double>& weights,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Phi) {
  if (weights.size() != base.size() + 1)
    throw std::invalid_argument("RGPE ensemble: " + std::to_string(weights.size()) +
                                " weights for " + std::to_string(base.size() + 1) + " models");
  EnsemblePrediction e{Eigen::VectorXd::Zero(Phi.rows()), Eigen::VectorXd::Zero(Phi.rows())};
  Eigen::VectorXd mean, variance;
  for (std::size_t i = 0; i <= base.size(); ++i) {
    const FeatureSurrogate& model = i < base.size() ? base[i] : target;
    model.predict(Phi, mean, variance);
    e.mean += weights[i] * mean;
    e.variance += (weights[i] * weights[i]) * variance;
  }
  return e;
}

RgpeAcquisition::RgpeAcquisition(const std::vector<FeatureSurrogate>& base,
                                 const FeatureSurrogate& target, const std::vector<double>& weights,
                                 double incumbent, const RandomFourierFeatures& features)
    : base_(base), target_(target), weights_(weights), incumbent_(incumbent), features_(features) {
  if (weights.size() != base.size() + 1)
    throw std::invalid_argument("RGPE acquisition: " + std::to_string(weights.size()) +
                                " weights for " + std::to_string(base.size() + 1) + " models");
}

Eigen::VectorXd RgpeAcquisition::values(const Eigen::Ref<const Eigen::MatrixXd>& Phi) const {
  const EnsemblePrediction e = ensemble_predict(base_, target_, weights_, Phi);
  Eigen::VectorXd out(Phi.rows());
  for (Eigen::Index j = 0; j < Phi.rows(); ++j)
    out(j) = expected_improvement_of_variance(e.mean(j), e.variance(j), incumbent_).value;
  return out;
}

double RgpeAcquisition::value_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& x,
                                           Eigen::Ref<Eigen::VectorXd> gradient) const {
  double mean = 0.0, variance = 0.0;
  Eigen::VectorXd d_mean = Eigen::VectorXd::Zero(x.size());
  Eigen::VectorXd d_variance = Eigen::VectorXd::Zero(x.size());
  for (std::size_t i = 0; i <= base_.size(); ++i) {
    const PointPrediction p = predict_at(i < base_.size() ? base_[i] : target_, features_, x);
    const double w = weights_[i];
    mean += w * p.mean;
    variance += w * w * p.variance;
    d_mean += w * p.d_mean;
    d_variance += (w * w) * p.d_variance;
  }
  const VarianceExpectedImprovement ei = expected_improvement_of_variance(mean, variance, incumbent_);
  gradient = ei.d_mean * d_mean + ei.d_variance * d_variance;
  return ei.value;
}

RgpeChoice rgpe_choose(const fbo::FboAgent& target, const fbo::AgentContext& context,
                       const std::vector<FeatureSurrogate>& base, const RgpeParams& params,
                       RandomStream& rng) {
  params.validate();
  const TargetData data = target_data(target, context);
  RgpeWeights w = rgpe_weights(base, data.model, data.Phi, data.y, params, rng);
  const RgpeAcquisition acquisition(base, data.model, w.weights, data.incumbent, context.features);
  const AcquisitionMaximum best = maximize_acquisition(acquisition, context, rng);
  RgpeChoice choice;
  choice.point = best.point;
  choice.acquisition = best.value;
  choice.weights = std::move(w.weights);
  choice.dropped = static_cast<int>(std::count(w.dropped.begin(), w.dropped.end(), true));
  return choice;
}

}  // namespace fedsim::baselines
