#pragma once
/// HCT, High Confidence Tree (Azar, Lazaric, Brunskill 2014, the iid variant), the centralised
/// X-armed baseline of Fed-PNE's experiments, as a stepwise state machine: propose(rng) gives
/// the point to evaluate, observe(reward) takes its reward.
///
/// Per node (h, i) of the explored tree: T pulls, mean mu, and
///   U = mu + nu1 rho^h + sqrt(c^2 L / T)  (+inf when T = 0),  L = log(1 / delta~(t+)),
///   delta~(t) = min(1, c1 delta / t),  c1 = (rho / (3 nu1))^(1/8),  t+ = 2^ceil(log2 t),
///   B = U at a leaf, min(U, max over children of B) inside,
///   tau_h = ceil(c^2 L rho^(-2h) / nu1^2).
/// A step descends from the root to the child of largest B (the first on ties) while the node
/// is inside the tree and has T >= tau_h (the root always passes), pulls the node it stops at,
/// updates its U and the B values on the path back to the root, and expands it into its k
/// children when it is a leaf with T >= tau_h. L changes only when t+ does (t = 2^j + 1): then
/// every U, tau and B is recomputed in one pass, so all nodes always use the same t+. Cost per
/// step: O(k depth), plus an O(tree) pass at those O(log t) steps, amortised O(1).
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rng.hpp"
#include "engine/xarmed/partition_tree.hpp"

namespace fedsim::xarmed {

/// Which HCT: Azar, Lazaric and Brunskill's (class Hct, only leaves are expanded) or PyXAB's
/// implementation of it (class PyxabHct, engine/xarmed/hct_pyxab.hpp: inner nodes are expanded
/// again after t+ doubles), the library the Fed-PNE authors name for their baseline.
enum class HctVariant { azar, pyxab };
std::string to_string(HctVariant variant);

/// t+ = 2^ceil(log2 t) for t >= 1, exactly (both variants' doubling schedule).
std::int64_t t_plus(std::int64_t t);

struct HctParams {
  double nu1 = 1.0;     ///< the Fed-PNE paper's setting (after Li et al. 2021)
  double rho = 0.75;    ///< idem
  double c = 0.1;       ///< PyXAB's default
  double delta = 0.01;  ///< PyXAB's default
  double c1() const;    ///< (rho / (3 nu1))^(1/8)
  /// Throws std::invalid_argument naming the parameter.
  void validate() const;
};

class Hct {
 public:
  /// The tree starts as the root and its k children (the root is never pulled).
  Hct(PartitionTree tree, const HctParams& params, PointRule rule = PointRule::centre);

  /// The point of step t = step(); the reference stays valid until the next propose().
  /// rng is used by PointRule::uniform only. Throws std::logic_error while a pull is pending.
  const Eigen::VectorXd& propose(RandomStream& rng);
  /// The reward of the pending pull. Throws std::logic_error without one.
  void observe(double reward);

  /// 1-based index of the next step (1 before the first).
  std::int64_t step() const { return t_; }
  /// Number of nodes in the explored tree, and the deepest depth in it.
  std::size_t tree_size() const { return nodes_.size(); }
  int depth() const { return depth_; }
  /// Storage slot of the pending (or last) pulled node: slots are stable, 0 is the root.
  std::size_t last_slot() const { return path_.empty() ? 0 : path_.back(); }
  /// L = log(1 / delta~(t+)) in use, and tau_h with it.
  double log_term() const { return log_term_; }
  double tau(int depth) const;

  /// Read-only view of one node (slot < tree_size()).
  struct NodeView {
    NodeId id;
    std::int64_t pulls = 0;
    double mean = 0.0;
    double u = 0.0;  ///< U (+inf before the first pull)
    double b = 0.0;  ///< B
    bool leaf = true;
  };
  NodeView node(std::size_t slot) const;
  /// Slot of the node with the most pulls (the last stored among ties): a recommendation.
  std::size_t most_pulled() const;
  const Box& cell(std::size_t slot) const { return cells_[slot]; }

 private:
  struct Node {
    NodeId id;
    std::int64_t first_child = -1;  ///< children sit at first_child .. first_child + k - 1
    std::int64_t pulls = 0;
    double sum = 0.0;
    double u = 0.0;
    double b = 0.0;
  };
  double upper_bound(const Node& n) const;
  double b_value(const Node& n) const;
  void refresh();
  void expand(std::size_t slot);
  double smooth(int depth) const;

  PartitionTree tree_;
  HctParams params_;
  PointRule rule_;
  std::vector<Node> nodes_;
  std::vector<Box> cells_;
  std::vector<std::size_t> path_;
  std::int64_t t_ = 1;
  std::int64_t t_plus_ = 0;  ///< t+ that log_term_ was computed for
  double log_term_ = 0.0;
  int depth_ = 1;
  std::vector<double> tau_;     ///< tau_h by depth at the current L
  std::vector<double> smooth_;  ///< nu1 rho^h by depth
  Eigen::VectorXd point_;
  bool pending_ = false;
};

}  // namespace fedsim::xarmed
