#include "engine/objectives/grid_objective.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim {

GridObjective::GridObjective(std::shared_ptr<const Grid> grid,
                             std::shared_ptr<const Eigen::VectorXd> base, double perturbation,
                             std::uint64_t perturbation_key)
    : grid_(std::move(grid)), base_(std::move(base)), perturbation_(perturbation),
      key_(perturbation_key) {
  if (!grid_ || !base_ || base_->size() != grid_->size() || grid_->size() == 0)
    throw std::invalid_argument("grid objective: values must match a non-empty grid");
  optimum_value_ = value_at(0);
  for (int i = 1; i < grid_->size(); ++i) {
    const double v = value_at(i);
    if (v > optimum_value_) {
      optimum_value_ = v;
      optimum_index_ = i;
    }
  }
}

double GridObjective::value_at(int index) const {
  const double base = (*base_)(index);
  if (perturbation_ == 0.0) return base;
  const bool plus = mix64(key_ ^ static_cast<std::uint64_t>(index)) & 1u;
  return base + (plus ? perturbation_ : -perturbation_);
}

double GridObjective::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return value_at(grid_->nearest(x));
}

Eigen::VectorXd GridObjective::optimum_location() const {
  return grid_->points.row(optimum_index_).transpose();
}

GridGpSampler::GridGpSampler(const Grid& grid, const SeKernel& kernel) {
  const Eigen::MatrixXd K = kernel.matrix(grid.points, grid.points);
  // A smooth kernel on a fine grid is numerically singular: add the smallest jitter that
  // lets the Cholesky factorisation succeed.
  Eigen::LLT<Eigen::MatrixXd> llt;
  for (double jitter = 1e-10 * kernel.variance;; jitter *= 10) {
    llt.compute(K + jitter * Eigen::MatrixXd::Identity(K.rows(), K.cols()));
    if (llt.info() == Eigen::Success) break;
    if (jitter > 1e-2 * kernel.variance) throw std::runtime_error("GP sample: kernel not PSD");
  }
  factor_ = llt.matrixL();
}

Eigen::VectorXd GridGpSampler::sample(RandomStream& rng) const {
  Eigen::VectorXd z(factor_.rows());
  for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = rng.normal();
  const Eigen::VectorXd f = factor_.triangularView<Eigen::Lower>() * z;
  const double lo = f.minCoeff(), hi = f.maxCoeff();
  return (f.array() - lo) / (hi - lo);
}

bool SyntheticConfig::is_box() const {
  return kind == Kind::branin || kind == Kind::hartmann3 || kind == Kind::hartmann6 ||
         kind == Kind::ackley;
}

int SyntheticConfig::effective_dimension() const {
  switch (kind) {
    case Kind::perturbed:
    case Kind::mixture:
      return 1;
    case Kind::branin:
      return 2;
    case Kind::hartmann3:
      return 3;
    case Kind::hartmann6:
      return 6;
    case Kind::ackley:
      return dimension == 0 ? 2 : dimension;
    case Kind::command:
    case Kind::tcp:
      return dimension;
    case Kind::tuning: {
      TuningSettings t;
      t.task = task;
      return t.dimension();
    }
  }
  throw std::logic_error("internal error: an objective kind without a dimension");
}

Box SyntheticConfig::bounds() const {
  const int d = effective_dimension();
  Box b{Eigen::VectorXd::Zero(d), Eigen::VectorXd::Ones(d)};
  if (!lower.empty()) b.lower = Eigen::Map<const Eigen::VectorXd>(lower.data(), lower.size());
  if (!upper.empty()) b.upper = Eigen::Map<const Eigen::VectorXd>(upper.data(), upper.size());
  return b;
}

namespace {

void check_bound(const std::vector<double>& v, const std::string& name, int d) {
  if (v.empty()) return;
  if (static_cast<int>(v.size()) != d)
    throw std::invalid_argument("objective " + name + ": must have one number per dimension (" +
                                std::to_string(d) + "), got " + std::to_string(v.size()));
  for (double x : v)
    if (!std::isfinite(x))
      throw std::invalid_argument("objective " + name + ": every bound must be finite");
}

}  // namespace

void SyntheticConfig::validate() const {
  if (grid_size < 2) throw std::invalid_argument("synthetic grid_size must be >= 2");
  if (!(lengthscale > 0)) throw std::invalid_argument("synthetic lengthscale must be > 0");
  if (!(perturbation >= 0) || !std::isfinite(perturbation))
    throw std::invalid_argument("synthetic perturbation d must be a finite number >= 0");
  if (!(alpha >= 0 && alpha <= 1)) throw std::invalid_argument("synthetic alpha must be in [0, 1]");
  if (dimension < 0 || dimension > max_dimension)
    throw std::invalid_argument("objective dimension must be in 1.." +
                                std::to_string(max_dimension) + " (0: the kind's own)");
  if (!(shift >= 0) || !std::isfinite(shift))
    throw std::invalid_argument("objective shift must be a finite number >= 0");
  if (workers < 1 || workers > 256)
    throw std::invalid_argument("objective workers must be in 1..256");
  if (!(timeout > 0 && timeout <= 1e7))
    throw std::invalid_argument("objective timeout must be a number of seconds in (0, 1e7]");
  if (max_retries < 0 || max_retries > 100)
    throw std::invalid_argument("objective max_retries must be in 0..100");
  if (is_box() && kind != Kind::ackley && dimension != 0 && dimension != effective_dimension())
    throw std::invalid_argument("objective dimension: this test function is " +
                                std::to_string(effective_dimension()) +
                                "-dimensional (leave dimension out or give that)");
  if (is_tuning()) {
    if (dataset.empty()) throw std::invalid_argument("objective dataset: required for kind tuning");
    if (samples < 0) throw std::invalid_argument("objective samples must be >= 0 (0: all)");
    if (!(label_skew > 0)) throw std::invalid_argument("objective label_skew must be > 0 (inf: none)");
    if (!(std::isfinite(quantity_skew) && quantity_skew >= 0))
      throw std::invalid_argument("objective quantity_skew must be a finite number >= 0");
    if (positive_class < 0) throw std::invalid_argument("objective positive_class must be >= 0");
    if (epochs < 1 || epochs > 10000)
      throw std::invalid_argument("objective epochs must be in 1..10000");
    if (!(std::isfinite(cost_per_sample) && cost_per_sample >= 0))
      throw std::invalid_argument("objective cost_per_sample must be a finite number >= 0");
    if (dimension != 0 && dimension != effective_dimension())
      throw std::invalid_argument("objective dimension: the tuning task has " +
                                  std::to_string(effective_dimension()) + " hyperparameters");
  }
  if (!is_external()) return;
  if (dimension < 1)
    throw std::invalid_argument("objective dimension: required (1.." +
                                std::to_string(max_dimension) + ") for an external objective");
  if (kind == Kind::command && (command.empty() || command.front().empty()))
    throw std::invalid_argument(
        "objective command: must be a non-empty list of strings (the program and its arguments)");
  if (kind == Kind::tcp && address.empty())
    throw std::invalid_argument("objective address: required (\"HOST:PORT\") for kind tcp");
  check_bound(lower, "lower", dimension);
  check_bound(upper, "upper", dimension);
  const Box b = bounds();
  for (int j = 0; j < dimension; ++j)
    if (!(b.lower(j) < b.upper(j)))
      throw std::invalid_argument("objective bounds: lower[" + std::to_string(j) +
                                  "] must be < upper[" + std::to_string(j) + "]");
}

GridObjectives make_synthetic_objectives(const SyntheticConfig& config, int num_agents,
                                         std::uint64_t seed, bool first_is_base) {
  config.validate();
  if (!config.is_grid())
    throw std::invalid_argument("synthetic objectives: the kind is not a grid kind (perturbed, "
                                "mixture)");
  if (num_agents < 1) throw std::invalid_argument("number of agents must be >= 1");
  if (config.seed != 0) seed = config.seed;
  auto grid = std::make_shared<const Grid>(Grid::uniform_1d(config.grid_size));
  const GridGpSampler sampler(*grid, SeKernel{config.lengthscale, 1.0});
  RandomStream base_rng(seed, "objective.base");
  auto base = std::make_shared<const Eigen::VectorXd>(sampler.sample(base_rng));
  GridObjectives out;
  out.reserve(num_agents);
  for (int n = 0; n < num_agents; ++n) {
    if (n == 0 && first_is_base) {
      out.push_back(std::make_shared<GridObjective>(grid, base));
    } else if (config.kind == SyntheticConfig::Kind::perturbed) {
      const std::uint64_t key = RandomStream(seed, "objective.perturb", n).key();
      out.push_back(std::make_shared<GridObjective>(grid, base, config.perturbation, key));
    } else {
      RandomStream agent_rng(seed, "objective.agent", n);
      auto own = std::make_shared<Eigen::VectorXd>(sampler.sample(agent_rng));
      *own = config.alpha * *own + (1 - config.alpha) * *base;
      out.push_back(std::make_shared<GridObjective>(grid, std::move(own)));
    }
  }
  return out;
}

}  // namespace fedsim
