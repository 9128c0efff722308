#pragma once
/// HCT as PyXAB implements it (PyXAB/algos/HCT.py, the library the Fed-PNE authors name as
/// their baseline's; docs in engine/xarmed/DECISIONS.md, "HCT: two variants"), for the loop
/// driver's algorithm.hct_variant = "pyxab". The same state machine as Hct (propose, observe)
/// with PyXAB's rules where they differ from Azar et al.:
///  - a step descends while the node has children and T >= tau_h, with tau_h from
///    delta~ = min(1/2, c1 delta / t+) (U uses min(1, ...)); among children of equal B the
///    last is taken;
///  - it then expands the pulled node when T >= tau_h **whether or not it has children**: after
///    t+ doubles, tau_h grows, an inner node whose T is below the new tau_h stops the descent
///    and is pulled, and when its T reaches tau_h it is expanded again: fresh children (U = B =
///    +inf) replace its subtree, whose statistics are lost from the search; the old nodes stay
///    in the node list as unreachable orphans, and their U and B are still recomputed with
///    everyone's (re_expansions() counts these expansions);
///  - at a step t that is a power of two, before the reward is recorded, every node's U and
///    then every B is recomputed; after each reward the pulled node's U is recomputed and then
///    every node's B (layer by layer, deepest first, the root's left alone), so a node expanded
///    at this step keeps the B of its old children until the next step's recomputation.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rng.hpp"
#include "engine/xarmed/hct.hpp"
#include "engine/xarmed/partition_tree.hpp"

namespace fedsim::xarmed {

class PyxabHct {
 public:
  /// The tree starts as the root and its k children (the root is never pulled).
  PyxabHct(PartitionTree tree, const HctParams& params, PointRule rule = PointRule::centre);

  const Eigen::VectorXd& propose(RandomStream& rng);
  void observe(double reward);

  std::int64_t step() const { return t_; }
  /// Every node stored, orphans included; the deepest layer (orphans' included).
  std::size_t tree_size() const { return nodes_.size(); }
  int depth() const { return static_cast<int>(layers_.size()) - 1; }
  std::size_t last_slot() const { return path_.empty() ? 0 : path_.back(); }
  /// Expansions of a node that already had children (each orphans a subtree).
  std::int64_t re_expansions() const { return re_expansions_; }

  struct NodeView {
    NodeId id;
    std::int64_t pulls = 0;
    double mean = 0.0;
    double u = 0.0;
    double b = 0.0;
    bool leaf = true;
    bool reachable = true;  ///< false: in an orphaned subtree
  };
  NodeView node(std::size_t slot) const;
  std::size_t most_pulled() const;
  const Box& cell(std::size_t slot) const { return cells_[slot]; }

 private:
  struct Node {
    NodeId id;
    std::int64_t parent = -1;
    std::vector<std::size_t> children;  ///< empty: none (PyXAB's None)
    std::int64_t pulls = 0;
    double sum = 0.0;
    double u;
    double b;
  };
  double delta_tilde(double cap) const;
  void compute_u(Node& n, double delta_tilde) const;
  void update_b_all();
  void expand(std::size_t slot);
  bool reachable(std::size_t slot) const;

  PartitionTree tree_;
  HctParams params_;
  PointRule rule_;
  std::vector<Node> nodes_;
  std::vector<Box> cells_;
  std::vector<std::vector<std::size_t>> layers_;  ///< node slots by depth, in creation order
  std::vector<double> tau_;                       ///< tau_h of the last descent, by depth
  std::vector<std::size_t> path_;
  std::int64_t t_ = 1;  ///< PyXAB's iteration
  std::int64_t re_expansions_ = 0;
  Eigen::VectorXd point_;
  bool pending_ = false;
};

}  // namespace fedsim::xarmed
