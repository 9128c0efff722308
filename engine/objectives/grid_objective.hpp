#pragma once
/// Objectives tabulated on a discrete grid: the synthetic functions of both FBO papers.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/domain.hpp"
#include "engine/kernel.hpp"
#include "engine/objectives/objective.hpp"
#include "engine/objectives/tuning_objective.hpp"
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

/// What a scenario's [world.objective] says for the FBO family: every kind of world objective,
/// not only the papers' synthetic grids (the name is historical). The kinds:
///  - grid kinds (is_grid()): "perturbed" and "mixture", the synthetic objectives of FTS
///    appendix D.1 and DP-FTS-DE appendix B.1 on a 1-D grid (grid_size, lengthscale,
///    perturbation, alpha, seed);
///  - box kinds (is_box()): the test functions of engine/objectives/test_functions.hpp on the
///    unit box, one shifted variant per agent (dimension for ackley, shift, seed);
///  - external kinds (is_external()): a black box evaluated by workers of
///    docs/external-objectives.md, started from `command` or reached at `address` (dimension,
///    lower/upper, workers, timeout, on_failure, max_retries).
/// A field a kind does not read keeps its default and has no effect. make_synthetic_objectives
/// builds the grid kinds; actors/world_objective.hpp builds every kind.
struct SyntheticConfig {
  int grid_size = 1000;       ///< points of the 1-D grid on [0, 1]
  double lengthscale = 0.03;  ///< SE kernel of the sampled functions
  /// "perturbed": f_n = f + d_n(x) with d_n(x) = +-perturbation per grid point (B.1.1);
  /// "mixture": f_n = alpha g_n + (1 - alpha) f_base with g_n independent samples (B.1.2);
  /// "branin", "hartmann3", "hartmann6", "ackley": box test functions; "command", "tcp":
  /// external workers.
  /// "tuning": hyperparameter tuning on a real data set (engine/objectives/tuning_objective.hpp).
  enum class Kind { perturbed, mixture, branin, hartmann3, hartmann6, ackley, command, tcp, tuning };
  Kind kind = Kind::perturbed;
  double perturbation = 0.02;  ///< d (perturbed)
  double alpha = 0.7;          ///< heterogeneity (mixture), in [0, 1]
  /// Seed of the functions (grid and box kinds); 0 uses the run's seed. A fixed value keeps
  /// the objectives while the run seed varies the initial points and every other draw (the
  /// papers average over random initialisations of one sampled function).
  std::uint64_t seed = 0;

  /// Dimension d of the domain: 0 takes the kind's own (ackley: 2). Branin is 2-D and
  /// Hartmann-3 / -6 are 3- / 6-D (0 or that value); ackley takes 1 .. max_dimension;
  /// command and tcp must give it.
  int dimension = 0;
  static constexpr int max_dimension = 1000;
  double shift = 0.1;  ///< box kinds: per-agent shift, uniform in [-shift, shift] per axis
  std::vector<std::string> command;  ///< command: argv (argv[0] looked up in PATH)
  std::string address;               ///< tcp: "HOST:PORT", HOST an IP literal
  /// External kinds: the box of the worker's coordinates, a value per axis (empty: 0 per axis
  /// for lower, 1 for upper); agents search [0, 1]^d, mapped linearly onto it.
  std::vector<double> lower, upper;
  int workers = 1;      ///< external: processes (connections) kept alive, 1 .. 256
  double timeout = 60;  ///< external: wall seconds per attempt, in (0, 1e7]
  /// External: what a failed evaluation does (external::OnFailure, named alike).
  enum class OnFailure { skip, retry, abort } on_failure = OnFailure::retry;
  int max_retries = 2;  ///< external, on_failure = retry: attempts beyond the first, 0 .. 100
  /// External: the largest noise-free value of the function, where the user knows it (every
  /// agent's), so that runs report regret from the workers' "f"; NaN: not known.
  double optimum = std::numeric_limits<double>::quiet_NaN();

  /// Tuning: the task, the data set (data/datasets.hpp), how many of its first samples
  /// (0: all), the split's label skew (Dirichlet alpha; inf: proportional) and quantity skew
  /// (lognormal sigma), the svm task's positive class, the SGD tasks' epochs, and the virtual
  /// seconds charged per training sample (and epoch; 0: the network's compute model).
  TuningSettings::Task task = TuningSettings::Task::logistic;
  std::string dataset = "digits";
  int samples = 0;
  double label_skew = 0.5;
  double quantity_skew = 0.0;
  int positive_class = 0;
  int epochs = 20;
  double cost_per_sample = 0.0;

  bool is_grid() const { return kind == Kind::perturbed || kind == Kind::mixture; }
  bool is_tuning() const { return kind == Kind::tuning; }
  bool is_box() const;
  bool is_external() const { return kind == Kind::command || kind == Kind::tcp; }
  /// d: 1 for grid kinds, the function's for box kinds, `dimension` for external ones (0
  /// while it is missing).
  int effective_dimension() const;
  /// External kinds: lower/upper with the defaults filled in (effective_dimension() axes).
  Box bounds() const;
  /// Throws std::invalid_argument, one line naming the field and what it allows. (An address
  /// is checked for presence here; its syntax by the scenario schema and the external
  /// evaluator, which know external::parse_address: the engine does not depend on external/.)
  void validate() const;
};

/// One objective per agent, built from config.seed, or from `seed` when that is 0. Grid kinds
/// only: throws std::invalid_argument for another kind.
/// first_is_base: agent 0 gets the base function itself (FTS's target agent, so that
/// d_n = max |f - g_n| holds exactly for every other agent).
GridObjectives make_synthetic_objectives(const SyntheticConfig& config, int num_agents,
                                         std::uint64_t seed, bool first_is_base = false);

}  // namespace fedsim
