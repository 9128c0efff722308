#include "engine/fbo/agent.hpp"

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>


namespace fedsim::fbo {

LocalSampler parse_local_sampler(const std::string& name) {
  for (LocalSampler s : {LocalSampler::rff, LocalSampler::exact, LocalSampler::refit_rff,
                         LocalSampler::refit_rff_bounded})
    if (name == to_string(s)) return s;
  throw std::invalid_argument("unknown local sampler '" + name +
                              "': allowed rff, exact, refit-rff, refit-rff-bounded");
}

std::string to_string(LocalSampler sampler) {
  switch (sampler) {
    case LocalSampler::rff:
      return "rff";
    case LocalSampler::exact:
      return "exact";
    case LocalSampler::refit_rff:
      return "refit-rff";
    case LocalSampler::refit_rff_bounded:
      return "refit-rff-bounded";
  }
  throw std::logic_error("to_string: not a LocalSampler value");
}

std::string to_string(PosteriorMemory memory) {
  switch (memory) {
    case PosteriorMemory::factor:
      return "factor";
    case PosteriorMemory::history:
      return "history";
  }
  throw std::logic_error("to_string: not a PosteriorMemory value");
}

AgentContext::AgentContext(Grid grid_, RandomFourierFeatures features_, Partition partition_,
                           double lambda_, double beta_, LocalSampler local_sampler_,
                           RefitConfig refit_, std::uint64_t seed_,
                           BoxMaximizerOptions acquisition_, RefitRffConfig refit_rff_,
                           PosteriorMemory posterior_memory_)
    : grid(std::move(grid_)), features(std::move(features_)),
      grid_features(features.feature_matrix(grid.points)), partition(std::move(partition_)),
      grid_region(partition.regions_of(grid.points)), region_points(partition.size()),
      lambda(lambda_), beta(beta_), local_sampler(local_sampler_), refit(refit_),
      refit_rff(refit_rff_), seed(seed_), acquisition(acquisition_),
      posterior_memory(posterior_memory_) {
  refit.validate();
  if (authors_sampler()) refit_rff.validate();
  if (authors_sampler() && refit.enabled())
    throw std::invalid_argument("refit_every must be 0 with local_sampler = " +
                                to_string(local_sampler) +
                                ": it refits on its own period, local_refit_every");
  acquisition.validate();
  if (grid.dim() != features.dim() || partition.box().dim() != features.dim())
    throw std::invalid_argument("agent context: the domain, features and partition differ in "
                                "dimension");
  for (int j = 0; j < grid.size(); ++j) region_points[grid_region[j]].push_back(j);
  if (discrete())
    for (int i = 0; i < partition.size(); ++i)
      if (region_points[i].empty())
        throw std::invalid_argument("sub-region " + std::to_string(i) + " of " +
                                    std::to_string(partition.size()) +
                                    " holds no grid point: use fewer sub-regions or a finer grid");
  if (!(beta > 0)) throw std::invalid_argument("TS scale beta must be > 0");
  if (local_sampler == LocalSampler::exact && !discrete())
    throw std::invalid_argument("local_sampler = exact needs a finite candidate set; a box "
                                "domain uses local_sampler = rff");
  if (local_sampler == LocalSampler::exact)
    prior = std::make_shared<const CandidatePrior>(grid.points, features.kernel());
}

FboAgent::Serial::Serial() {
  static std::atomic<std::uint64_t> next{1};
  value = next++;
}

FboAgent::FboAgent(int id, int region, std::shared_ptr<const AgentContext> context)
    : id_(id), region_(region), context_(std::move(context)) {
  if (context_->posterior_memory == PosteriorMemory::factor)
    posterior_.emplace(context_->features.num_features(), context_->lambda);
  if (context_->local_sampler == LocalSampler::exact) exact_.emplace(context_->prior, context_->lambda);
  local_.lengthscales.setConstant(context_->features.kernel().lengthscale);
  local_.signal_variance = context_->features.kernel().variance;
  local_.noise_variance = context_->lambda;
  if (context_->authors_sampler()) local_ = refit_rff_initial();
}

std::vector<Point> FboAgent::initial_design(int n_init, bool in_region, RandomStream& rng) const {
  const AgentContext& c = *context_;
  std::vector<Point> out;
  out.reserve(n_init);
  if (!c.discrete()) {
    const Box& box = in_region ? c.partition.region(region_) : c.partition.box();
    const Eigen::MatrixXd X = uniform_in_box(box, n_init, rng);
    for (int k = 0; k < n_init; ++k) out.push_back({-1, X.row(k).transpose()});
    return out;
  }
  const std::vector<int>& pool = c.region_points[region_];
  for (int k = 0; k < n_init; ++k)
    out.push_back(c.candidate(in_region ? pool[rng.uniform_index(pool.size())]
                                        : static_cast<int>(rng.uniform_index(c.grid.size()))));
  return out;
}

Point FboAgent::argmax_local_ts(RandomStream& rng) const {
  if (exact_)
    return context_->candidate(grid_argmax(exact_->sample_pathwise(rng, context_->beta)).index);
  if (context_->authors_sampler()) {
    const AgentContext& c = *context_;
    const RefitRffDraw draw =
        refit_rff_draw(history_points(), history_values(), local_, c.refit_rff, c.beta, rng);
    if (c.discrete())
      return c.candidate(grid_argmax(draw.features.feature_matrix(c.grid.points) * draw.omega).index);
    return {-1, maximize_features_on_box(draw.features, draw.omega, c.partition.box(), rng,
                                         c.acquisition).x};
  }
  if (!local_posterior_) return argmax_omega(posterior().sample(rng, context_->beta), rng);
  // Fitted: w ~ N(nu, n2 Sigma^-1) = N(nu, s2 (n2 / s2) Sigma^-1), see refit.hpp.
  return argmax_omega(
      local_posterior_->sample(rng, context_->beta * std::sqrt(local_.signal_variance)), rng);
}

Point FboAgent::argmax_omega(const Eigen::Ref<const Eigen::VectorXd>& omega,
                             RandomStream& rng) const {
  const AgentContext& c = *context_;
  if (c.discrete()) return c.candidate(grid_argmax(c.grid_features * omega).index);
  return {-1, maximize_features_on_box(c.features, omega, c.partition.box(), rng, c.acquisition).x};
}

Point FboAgent::argmax_joint(const Eigen::Ref<const Eigen::MatrixXd>& joint,
                             RandomStream& rng) const {
  const AgentContext& c = *context_;
  if (c.discrete())
    return c.candidate(grid_argmax_by_region(c.grid_features, joint, c.grid_region).index);
  return {-1, maximize_features_by_region(c.features, joint, c.partition, rng, c.acquisition).x};
}

Eigen::VectorXd FboAgent::features_of(const Point& p) const {
  if (p.index >= 0) return context_->grid_features.row(p.index).transpose();
  return context_->features.features(p.x);
}

const FeaturePosterior& FboAgent::posterior() const {
  if (posterior_) return *posterior_;
  // The calling thread's rebuilt posterior: whose it is and how many observations it holds.
  // It starts as a copy of the prior's (the factor of lambda I, computed once per thread).
  struct Rebuilt {
    std::uint64_t owner = 0;
    std::size_t count = 0;
    std::optional<FeaturePosterior> prior, posterior;
  };
  thread_local Rebuilt r;
  const int M = context_->features.num_features();
  if (!r.prior || r.prior->num_features() != M || r.prior->lambda() != context_->lambda) {
    r.prior.emplace(M, context_->lambda);
    r.owner = 0;
  }
  if (r.owner != serial_.value || r.count > observed_.size()) {
    r.posterior = *r.prior;
    r.owner = serial_.value;
    r.count = 0;
  }
  for (; r.count < observed_.size(); ++r.count)
    r.posterior->observe(observed_features(r.count), observed_[r.count].second);
  return *r.posterior;
}

Point FboAgent::observed_point(std::size_t s) const {
  const int k = observed_[s].first;
  if (k >= 0) return context_->candidate(k);
  const int d = context_->dim();
  return {-1, Eigen::Map<const Eigen::VectorXd>(box_points_.data() + std::size_t(-1 - k) * d, d)};
}

Eigen::VectorXd FboAgent::observed_features(std::size_t s) const {
  const int k = observed_[s].first;
  if (k >= 0) return context_->grid_features.row(k).transpose();
  return features_of(observed_point(s));
}

std::vector<std::pair<Point, double>> FboAgent::history() const {
  std::vector<std::pair<Point, double>> out;
  out.reserve(observed_.size());
  for (std::size_t s = 0; s < observed_.size(); ++s) out.emplace_back(observed_point(s), observed_[s].second);
  return out;
}

void FboAgent::observe(const Point& p, double y) {
  const int d = context_->dim();
  if (p.x.size() != d)
    throw std::invalid_argument("FboAgent::observe: a point of " + std::to_string(p.x.size()) +
                                " coordinates in a " + std::to_string(d) + "-dimensional domain");
  if (p.index >= 0 && (p.index >= context_->grid.size() ||
                       p.x != context_->grid.points.row(p.index).transpose()))
    throw std::invalid_argument("FboAgent::observe: candidate " + std::to_string(p.index) +
                                " given with a point that is not its grid row");
  if (posterior_ || local_posterior_) {
    const Eigen::VectorXd phi = features_of(p);
    if (posterior_) posterior_->observe(phi, y);
    if (local_posterior_) local_posterior_->observe(phi, y);
  }
  if (exact_) exact_->add_observation(p.index, y);
  if (p.index >= 0) {
    observed_.emplace_back(p.index, y);
  } else {
    observed_.emplace_back(-1 - static_cast<int>(box_points_.size() / d), y);
    box_points_.insert(box_points_.end(), p.x.data(), p.x.data() + d);
  }
  if (context_->refit.due(num_observations())) refit();
  if (context_->authors_sampler() && context_->refit_rff.due(num_observations())) refit_authors();
}

Eigen::MatrixXd FboAgent::history_points() const {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(observed_.size()), context_->dim());
  for (std::size_t s = 0; s < observed_.size(); ++s) X.row(s) = observed_point(s).x.transpose();
  return X;
}

Eigen::VectorXd FboAgent::history_values() const {
  Eigen::VectorXd y(static_cast<Eigen::Index>(observed_.size()));
  for (std::size_t s = 0; s < observed_.size(); ++s) y(s) = observed_[s].second;
  return y;
}

void FboAgent::refit_authors() {
  const AgentContext& c = *context_;
  const HyperparameterBounds bounds = c.refit.bounds();
  local_ = refit_rff_fit(history_points(), history_values(), local_, c.refit_rff,
                         c.local_sampler == LocalSampler::refit_rff_bounded ? &bounds : nullptr,
                         c.seed, id_);
  ++refits_;
}

void FboAgent::refit() {
  const AgentContext& c = *context_;
  // The exact sampler fits all three; the rff sampler's features fix the length scale.
  const bool exact = c.local_sampler == LocalSampler::exact;
  local_ = refit_hyperparameters(history_points(), history_values(), c.refit,
                                 c.features.kernel().lengthscale, exact, c.seed, id_);
  ++refits_;
  if (exact) {
    // The agent's own prior factor of the grid under the fitted kernel, conditioned anew.
    exact_.emplace(std::make_shared<const CandidatePrior>(
                       c.grid.points, SeKernel{local_.lengthscales(0), local_.signal_variance}),
                   local_.noise_variance);
    for (const auto& [index, value] : observed_) exact_->add_observation(index, value);
    return;
  }
  local_posterior_.emplace(c.features.num_features(),
                           local_.noise_variance / local_.signal_variance);
  for (std::size_t s = 0; s < observed_.size(); ++s)
    local_posterior_->observe(observed_features(s), observed_[s].second);
}

Eigen::VectorXd FboAgent::sample_message(RandomStream& rng) const { return posterior().sample(rng); }

}  // namespace fedsim::fbo
