#include "engine/fbo/agent.hpp"

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
                           double lambda_, double beta_, LocalSampler local_sampler_)
    : grid(std::move(grid_)), features(std::move(features_)),
      grid_features(features.feature_matrix(grid.points)), partition(std::move(partition_)),
      grid_region(partition.regions_of(grid.points)), region_points(partition.size()),
      lambda(lambda_), beta(beta_), local_sampler(local_sampler_) {
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
  if (!exact_) return argmax_omega(posterior_.sample(rng, context_->beta));
  return grid_argmax(exact_->sample_pathwise(rng, context_->beta)).index;
}

int FboAgent::argmax_omega(const Eigen::Ref<const Eigen::VectorXd>& omega) const {
  return grid_argmax(context_->grid_features * omega).index;
}

int FboAgent::argmax_joint(const Eigen::Ref<const Eigen::MatrixXd>& joint) const {
  return grid_argmax_by_region(context_->grid_features, joint, context_->grid_region).index;
}

void FboAgent::observe(int index, double y) {
  posterior_.observe(context_->grid_features.row(index).transpose(), y);
  if (exact_) exact_->add_observation(index, y);
}

Eigen::VectorXd FboAgent::sample_message(RandomStream& rng) const { return posterior_.sample(rng); }

}  // namespace fedsim::fbo
