#pragma once
/// The hierarchical k-ary partition of a box used by X-armed bandits (Fed-PNE section 2.2):
/// node (h, i) at depth h has index i in 1..k^h, the root is (0, 1), and
/// P_{h,i} = union over j = 0..k-1 of P_{h+1, k i - j}, i.e. the children of (h, i) are
/// (h+1, k(i-1)+1), ..., (h+1, k i), ordered from the low to the high end of the split axis.
/// Nodes are never stored: a cell is recomputed from (h, i), so server and clients that hold
/// the same (box, k, rule, seed) agree on every cell without exchanging geometry.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rng.hpp"

namespace fedsim::xarmed {

/// A node of the partition: depth h >= 0 and index i in 1..k^h.
struct NodeId {
  int depth = 0;
  std::uint64_t index = 1;
  bool operator==(const NodeId& o) const { return depth == o.depth && index == o.index; }
  bool operator!=(const NodeId& o) const { return !(*this == o); }
};

/// Which axis a node is cut along; every cut makes k equal parts.
/// random_axis: an axis drawn uniformly per node from RandomStream(seed, "xarmed.partition",
///   h, i) (the paper's experiments, k = 2: "a random dimension, equal halves");
/// cyclic: axis h mod d (the plain k-ary equal split). In 1-D both are the usual k-section.
enum class SplitRule { random_axis, cyclic };
SplitRule parse_split_rule(const std::string& name);  ///< "random" or "cyclic"
std::string to_string(SplitRule rule);

/// The point evaluated when a node is pulled: its centre (Azar et al. 2014) or a uniform draw
/// in the cell (Bubeck et al. 2011).
enum class PointRule { centre, uniform };
PointRule parse_point_rule(const std::string& name);  ///< "centre" (or "center") or "uniform"
std::string to_string(PointRule rule);

class PartitionTree {
 public:
  /// Throws std::invalid_argument for an invalid box or k < 2.
  explicit PartitionTree(Box box, int k = 2, SplitRule rule = SplitRule::random_axis,
                         std::uint64_t seed = 0);

  static NodeId root() { return NodeId{0, 1}; }
  int arity() const { return k_; }
  int dim() const { return box_.dim(); }
  const Box& box() const { return box_; }
  SplitRule rule() const { return rule_; }
  /// Deepest depth whose indices fit in 63 bits (k^h <= 2^63).
  int max_depth() const { return max_depth_; }

  /// Child j (0-based, low end first) of node: (h+1, k(i-1)+1+j). Throws std::out_of_range past
  /// max_depth().
  NodeId child(NodeId node, int j) const;
  std::vector<NodeId> children(NodeId node) const;
  /// (h-1, ceil(i/k)); the root has none (std::out_of_range).
  NodeId parent(NodeId node) const;
  /// The axis node is cut along.
  int split_axis(NodeId node) const;
  /// The cell of child j, given the cell of its parent `node`. O(d).
  Box child_cell(const Box& cell, NodeId node, int j) const;
  /// The cell of a node, by descending from the root: O(h d). Throws std::out_of_range for an
  /// index outside 1..k^h.
  Box cell(NodeId node) const;

  /// Writes into out (resized to d) the point a pull of `cell` evaluates; rng is used only by
  /// PointRule::uniform (d uniforms).
  static void point(const Box& cell, PointRule rule, RandomStream& rng, Eigen::VectorXd& out);

 private:
  void check(NodeId node) const;
  Box box_;
  int k_;
  SplitRule rule_;
  std::uint64_t seed_;
  int max_depth_;
};

}  // namespace fedsim::xarmed
