#pragma once
/// Search domains: boxes, discrete grids, and the partition of a box into P equal-volume
/// sub-regions used by distributed exploration (DP-FTS-DE appendix B.1.1 and B.2.1).
#include <vector>

#include <Eigen/Dense>

namespace fedsim {

/// An axis-aligned box [lower, upper] in R^d.
struct Box {
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;

  static Box unit(int dim);
  int dim() const { return static_cast<int>(lower.size()); }
  bool contains(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  double volume() const;
  /// Throws std::invalid_argument for an empty box, mismatched bounds or non-finite bounds.
  void validate() const;
};

/// A finite set of candidate points. points: n x d, rows are points.
struct Grid {
  Eigen::MatrixXd points;

  /// n equally spaced points on [lo, hi] including both ends (the papers' 1-D grid: n = 1000).
  static Grid uniform_1d(int n, double lo = 0.0, double hi = 1.0);
  /// The full tensor grid with per_dim points per axis of the box.
  static Grid tensor(const Box& box, int per_dim);
  int size() const { return static_cast<int>(points.rows()); }
  int dim() const { return static_cast<int>(points.cols()); }
  /// Index of the grid point nearest to x (ties: lowest index).
  int nearest(const Eigen::Ref<const Eigen::VectorXd>& x) const;
};

/// A partition of a box into P equal-volume hyper-rectangles (DP-FTS-DE appendix B):
/// in 1-D, P equal intervals [0,1/P), ..., [(P-1)/P, 1]; for P = 2^k in D >= 2 (as the paper's
/// P = 4 for D = 2 and D = 3), the first k' axes are halved in turn, so D = 2, P = 4 gives the
/// four quadrants and D = 3, P = 4 leaves the third axis whole. In general P is factored over
/// the axes in order: axis j is cut into c_j equal parts with prod c_j = P, the cuts taken
/// greedily as the smallest prime factors, one axis after another.
/// Sub-regions are half-open on their upper side except at the box's upper boundary.
class Partition {
 public:
  /// Throws std::invalid_argument if P < 1 or the box is invalid.
  Partition(Box box, int num_regions);

  int size() const { return static_cast<int>(regions_.size()); }
  const Box& region(int i) const { return regions_.at(i); }
  const Box& box() const { return box_; }
  /// Cuts per axis (prod = P).
  const std::vector<int>& cuts() const { return cuts_; }
  /// The sub-region holding x (x inside the box; points outside are clamped to it).
  int region_of(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// region_of for every row of X: n.
  std::vector<int> regions_of(const Eigen::Ref<const Eigen::MatrixXd>& X) const;

 private:
  Box box_;
  std::vector<int> cuts_;
  std::vector<Box> regions_;
};

}  // namespace fedsim
