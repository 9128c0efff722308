#include "engine/fbo/agent.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/acquisition.hpp"

namespace fedsim::fbo {

LocalSampler parse_local_sampler(const std::string& name) {
  if (name == "rff") return LocalSampler::rff;
  if (name == "exact") return LocalSampler::exact;
  throw std::invalid_argument("unknown local sampler '" + name + "': allowed rff, exact");
}

std::string to_string(LocalSampler sampler) {
  return sampler == LocalSampler::exact ? "exact" : "rff";
}

AgentContext::AgentContext(Grid grid_, RandomFourierFeatures features_, Partition partition_,
                           double lambda_, double beta_, LocalSampler local_sampler_,
                           RefitConfig refit_, std::uint64_t seed_)
    : grid(std::move(grid_)), features(std::move(features_)),
      grid_features(features.feature_matrix(grid.points)), partition(std::move(partition_)),
      grid_region(partition.regions_of(grid.points)), region_points(partition.size()),
      lambda(lambda_), beta(beta_), local_sampler(local_sampler_), refit(refit_), seed(seed_) {
  refit.validate();
  for (int j = 0; j < grid.size(); ++j) region_points[grid_region[j]].push_back(j);
  for (int i = 0; i < partition.size(); ++i)
    if (region_points[i].empty())
      throw std::invalid_argument("sub-region " + std::to_string(i) + " of " +
                                  std::to_string(partition.size()) +
                                  " holds no grid point: use fewer sub-regions or a finer grid");
  if (!(beta > 0)) throw std::invalid_argument("TS scale beta must be > 0");
  if (local_sampler == LocalSampler::exact)
    prior = std::make_shared<const CandidatePrior>(grid.points, features.kernel());
}

FboAgent::FboAgent(int id, int region, std::shared_ptr<const AgentContext> context)
    : id_(id), region_(region), context_(std::move(context)),
      posterior_(context_->features.num_features(), context_->lambda) {
  if (context_->local_sampler == LocalSampler::exact) exact_.emplace(context_->prior, context_->lambda);
  local_.lengthscales.setConstant(context_->features.kernel().lengthscale);
  local_.signal_variance = context_->features.kernel().variance;
  local_.noise_variance = context_->lambda;
}

std::vector<int> FboAgent::initial_design(int n_init, bool in_region, RandomStream& rng) const {
  std::vector<int> out(n_init);
  const std::vector<int>& pool = context_->region_points[region_];
  for (int& idx : out)
    idx = in_region ? pool[rng.uniform_index(pool.size())]
                    : static_cast<int>(rng.uniform_index(context_->grid.size()));
  return out;
}

int FboAgent::argmax_local_ts(RandomStream& rng) const {
  if (exact_) return grid_argmax(exact_->sample_pathwise(rng, context_->beta)).index;
  if (!local_posterior_) return argmax_omega(posterior_.sample(rng, context_->beta));
  // Fitted: w ~ N(nu, n2 Sigma^-1) = N(nu, s2 (n2 / s2) Sigma^-1), see refit.hpp.
  return argmax_omega(
      local_posterior_->sample(rng, context_->beta * std::sqrt(local_.signal_variance)));
}

int FboAgent::argmax_omega(const Eigen::Ref<const Eigen::VectorXd>& omega) const {
  return grid_argmax(context_->grid_features * omega).index;
}

int FboAgent::argmax_joint(const Eigen::Ref<const Eigen::MatrixXd>& joint) const {
  return grid_argmax_by_region(context_->grid_features, joint, context_->grid_region).index;
}

void FboAgent::observe(int index, double y) {
  const auto phi = context_->grid_features.row(index).transpose();
  posterior_.observe(phi, y);
  if (local_posterior_) local_posterior_->observe(phi, y);
  if (exact_) exact_->add_observation(index, y);
  history_.emplace_back(index, y);
  if (context_->refit.due(num_observations())) refit();
}

void FboAgent::refit() {
  const AgentContext& c = *context_;
  const int n = static_cast<int>(history_.size());
  Eigen::MatrixXd X(n, c.grid.dim());
  Eigen::VectorXd y(n);
  for (int s = 0; s < n; ++s) {
    X.row(s) = c.grid.points.row(history_[s].first);
    y(s) = history_[s].second;
  }
  // The exact sampler fits all three; the rff sampler's features fix the length scale.
  const bool exact = c.local_sampler == LocalSampler::exact;
  local_ =
      refit_hyperparameters(X, y, c.refit, c.features.kernel().lengthscale, exact, c.seed, id_);
  ++refits_;
  if (exact) {
    // The agent's own prior factor of the grid under the fitted kernel, conditioned anew.
    exact_.emplace(std::make_shared<const CandidatePrior>(
                       c.grid.points, SeKernel{local_.lengthscales(0), local_.signal_variance}),
                   local_.noise_variance);
    for (const auto& [index, value] : history_) exact_->add_observation(index, value);
    return;
  }
  local_posterior_.emplace(c.features.num_features(),
                           local_.noise_variance / local_.signal_variance);
  for (const auto& [index, value] : history_)
    local_posterior_->observe(c.grid_features.row(index).transpose(), value);
}

Eigen::VectorXd FboAgent::sample_message(RandomStream& rng) const { return posterior_.sample(rng); }

}  // namespace fedsim::fbo
