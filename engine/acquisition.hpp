#pragma once
/// Maximising a sampled function: exhaustively over a grid, or over a box by scoring many
/// uniform random candidates and refining the best few with bounded L-BFGS. Includes the
/// DP-FTS-DE reconstruction value(x) = phi(x)' omega^{(i[x])}, whose weights depend on the
/// sub-region i[x] that holds x.
#include <functional>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rff.hpp"
#include "engine/rng.hpp"

namespace fedsim {

/// The best grid point.
struct GridMaximum {
  int index;
  double value;
};

/// argmax_j values(j), exhaustive; ties -> lowest index; NaNs are never chosen.
/// Throws std::invalid_argument if values is empty or all NaN.
GridMaximum grid_argmax(const Eigen::Ref<const Eigen::VectorXd>& values);

/// value_j = features.row(j) . omegas.col(regions[j]). features: n x M (row j = phi(x_j));
/// omegas: M x P (column i = sub-region i's weights); regions: n indices in [0, P) -> n.
/// Throws std::invalid_argument on mismatched sizes or a region index out of range.
Eigen::VectorXd region_values(const Eigen::Ref<const Eigen::MatrixXd>& features,
                              const Eigen::Ref<const Eigen::MatrixXd>& omegas,
                              const std::vector<int>& regions);

/// grid_argmax(region_values(features, omegas, regions)).
GridMaximum grid_argmax_by_region(const Eigen::Ref<const Eigen::MatrixXd>& features,
                                  const Eigen::Ref<const Eigen::MatrixXd>& omegas,
                                  const std::vector<int>& regions);

/// f(x), writing its gradient (d) into `gradient`.
using ValueAndGradient = std::function<double(const Eigen::Ref<const Eigen::VectorXd>& x,
                                              Eigen::Ref<Eigen::VectorXd> gradient)>;

struct BoxMaximizerOptions {
  int num_random = 1000;              ///< uniform random candidates (per box)
  int num_refine = 5;                 ///< best candidates refined locally
  int max_evaluations = 200;          ///< per local refinement
  double relative_tolerance = 1e-10;  ///< on x, per local refinement
  /// Throws std::invalid_argument unless num_random >= 1, num_refine >= 0, max_evaluations >= 1.
  void validate() const;
};

struct BoxMaximum {
  Eigen::VectorXd x;
  double value;
};

/// n points drawn uniformly in the box: n x d, rows are points.
Eigen::MatrixXd uniform_in_box(const Box& box, int n, RandomStream& rng);

/// Bounded L-BFGS from x0 (clamped into the box). Returns the best point evaluated, so never
/// worse than the start.
BoxMaximum refine_on_box(const ValueAndGradient& f, const Box& box,
                         const Eigen::Ref<const Eigen::VectorXd>& x0,
                         const BoxMaximizerOptions& options = {});

/// max_{x in box} f(x): candidates uniform_in_box(box, num_random, rng) are scored, the best
/// num_refine (ties -> earlier) refined, and the best point seen returned (ties -> the best
/// candidate), so the result is never worse than the best random candidate.
BoxMaximum maximize_on_box(const ValueAndGradient& f, const Box& box, RandomStream& rng,
                           const BoxMaximizerOptions& options = {});

/// maximize_on_box for f(x) = phi(x)' omega (omega: M), scoring the candidates in one batch.
BoxMaximum maximize_features_on_box(const RandomFourierFeatures& rff,
                                    const Eigen::Ref<const Eigen::VectorXd>& omega, const Box& box,
                                    RandomStream& rng, const BoxMaximizerOptions& options = {});

struct RegionMaximum {
  Eigen::VectorXd x;
  double value;
  int region;
};

/// max over the partition's box of phi(x)' omega^{(i[x])}: sub-region i is searched with
/// maximize_features_on_box(rff, omegas.col(i), partition.region(i), rng, options) (each with
/// its own num_random candidates, in region order); the best overall, ties -> lowest region.
/// Sub-region i is searched over its closed box, so x may lie on a face it shares with a
/// neighbour (which Partition::region_of would name); `region` is the sub-region whose weights
/// were maximised. omegas: M x P.
RegionMaximum maximize_features_by_region(const RandomFourierFeatures& rff,
                                          const Eigen::Ref<const Eigen::MatrixXd>& omegas,
                                          const Partition& partition, RandomStream& rng,
                                          const BoxMaximizerOptions& options = {});

}  // namespace fedsim
