#pragma once
/// The arms of the multi-armed baselines on an X-armed problem (Fed1-UCB, FN-UCB), as Fed-PNE
/// appendix E.1.3 builds them: on each axis of the domain, K values, the first drawn uniformly
/// in [lo, lo + w/K) ("a starting point around the boundaries") and the other K - 1 a uniform
/// mesh from lo + w/K to hi ("for X = [0, 1] and K = 100 ... the starting point uniformly
/// randomly from [0, 0.01], ... the other arms a uniform mesh from [0.01, 1]"), spaced as
/// numpy's linspace(lo + w/K, hi, K - 1); the arms are the tensor product of the axes (K^d
/// arms, "the K arms from each dimension ... a meshgrid"). docs/baselines/fed1-ucb.md states
/// this reading and the other one (a shifted grid).
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

/// At most this many arms (K^d) in a mesh.
inline constexpr std::int64_t max_mesh_arms = 1000000;

struct ArmMesh {
  /// Per axis its K values, ascending (axis j's first value is its random start).
  std::vector<std::vector<double>> axes;
  /// K^d x d, one arm per row; arm a = sum_j i_j K^j takes axes[j][i_j] (axis 0 fastest).
  Eigen::MatrixXd points;

  std::int64_t arms() const { return static_cast<std::int64_t>(points.rows()); }
};

/// Draws one uniform per axis (axis 0 first) from rng. per_dim is K >= 1 (K = 1: the start
/// only; K = 2: the start and lo + w/2, numpy's one-point linspace). Throws
/// std::invalid_argument naming arms_per_dim when K < 1 or K^d > max_mesh_arms, or for an
/// invalid box.
ArmMesh make_arm_mesh(const Box& domain, int per_dim, RandomStream& rng);

}  // namespace fedsim::baselines
