#pragma once
/// Objectives tabulated on a discrete grid: the synthetic functions of both FBO papers.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/domain.hpp"
#include "engine/kernel.hpp"
#include "engine/objectives/objective.hpp"
#include "engine/rng.hpp"

namespace fedsim {

/// f(i) = base(i) + s_i * perturbation on grid point i, with signs s_i = +-1 (probability 1/2
/// each) derived on the fly from a key, so an agent's function costs no memory of its own.
class GridObjective : public Objective {
 public:
  GridObjective(std::shared_ptr<const Grid> grid, std::shared_ptr<const Eigen::VectorXd> base,
                double perturbation = 0.0, std::uint64_t perturbation_key = 0);

  double value_at(int index) const;
  const Grid& grid() const { return *grid_; }

  int dim() const override { return grid_->dim(); }
  /// The value at the grid point nearest to x.
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override { return optimum_value_; }
  Eigen::VectorXd optimum_location() const override;
  int optimum_index() const { return optimum_index_; }

 private:
  std::shared_ptr<const Grid> grid_;
  std::shared_ptr<const Eigen::VectorXd> base_;
  double perturbation_;
  std::uint64_t key_;
  double optimum_value_ = 0;
  int optimum_index_ = 0;
};

using GridObjectives = std::vector<std::shared_ptr<const GridObjective>>;

/// Draws functions from GP(0, kernel) on a grid's points, rescaled to [0, 1]. The kernel
/// matrix is factorised once, so many draws are cheap.
class GridGpSampler {
 public:
  GridGpSampler(const Grid& grid, const SeKernel& kernel);
  Eigen::VectorXd sample(RandomStream& rng) const;

 private:
  Eigen::MatrixXd factor_;  // lower-triangular L with L L' = K + jitter I
};

/// The synthetic objectives of FTS appendix D.1 and DP-FTS-DE appendix B.1.
struct SyntheticConfig {
  int grid_size = 1000;       ///< points of the 1-D grid on [0, 1]
  double lengthscale = 0.03;  ///< SE kernel of the sampled functions
  /// "perturbed": f_n = f + d_n(x) with d_n(x) = +-perturbation per grid point (B.1.1);
  /// "mixture": f_n = alpha g_n + (1 - alpha) f_base with g_n independent samples (B.1.2).
  enum class Kind { perturbed, mixture } kind = Kind::perturbed;
  double perturbation = 0.02;  ///< d (perturbed)
  double alpha = 0.7;          ///< heterogeneity (mixture), in [0, 1]
  /// Seed of the functions; 0 uses the run's seed. A fixed value keeps the objectives while
  /// the run seed varies the initial points and every other draw (the papers average over
  /// random initialisations of one sampled function).
  std::uint64_t seed = 0;
  void validate() const;
};

/// One objective per agent, built from config.seed, or from `seed` when that is 0.
/// first_is_base: agent 0 gets the base function itself (FTS's target agent, so that
/// d_n = max |f - g_n| holds exactly for every other agent).
GridObjectives make_synthetic_objectives(const SyntheticConfig& config, int num_agents,
                                         std::uint64_t seed, bool first_is_base = false);

}  // namespace fedsim
