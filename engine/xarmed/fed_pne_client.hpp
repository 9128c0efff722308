#pragma once
/// A Fed-PNE client (Algorithm 1; Algorithm 3 with DP noise) as a state machine: start_phase()
/// takes the server's broadcast, then propose() / observe() once per pull, and report() sends
/// the local means when the phase is done. Pulls go round-robin over the phase's nodes
/// (node 0, 1, ..., n-1, 0, 1, ...), so a phase cut short by the budget has spread its pulls
/// evenly. Only the local means leave the client; rewards never do.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rng.hpp"
#include "engine/xarmed/fed_pne_messages.hpp"
#include "engine/xarmed/partition_tree.hpp"

namespace fedsim::xarmed {

class FedPneClient {
 public:
  /// dp_noise_std > 0 makes it a DP-Fed-PNE client (N(0, std^2) added to every reward).
  /// Throws std::invalid_argument for a negative or non-finite noise level.
  FedPneClient(int id, PartitionTree tree, PointRule rule = PointRule::centre,
               double dp_noise_std = 0.0);

  int id() const { return id_; }
  PointRule point_rule() const { return rule_; }
  double dp_noise_std() const { return dp_noise_std_; }
  /// Starts a phase: computes the cells of its nodes (O(|K| h d) once) and clears the sums.
  /// Throws std::invalid_argument for a malformed broadcast (no nodes, pulls < 1, bad node).
  void start_phase(const PhaseBroadcast& broadcast);
  std::int64_t phase() const { return phase_; }
  std::size_t nodes() const { return cells_.size(); }
  /// Pulls made and still due in the current phase.
  std::int64_t pulls_done() const { return done_; }
  std::int64_t pulls_left() const { return total_ - done_; }
  bool phase_done() const { return phase_ > 0 && done_ == total_; }
  /// The node (position in the broadcast) the next pull goes to.
  std::size_t next_slot() const {
    return cells_.empty() ? 0 : static_cast<std::size_t>(done_ % nodes_as_int());
  }

  /// The point of the next pull; the reference stays valid until the next propose().
  /// rng is used by PointRule::uniform only. Throws std::logic_error if the phase is done or a
  /// pull is still waiting for its reward.
  const Eigen::VectorXd& propose(RandomStream& rng);
  /// Records the reward of the pending pull; a DP client first adds N(0, std^2) from rng.
  /// Throws std::logic_error without a pending pull.
  void observe(double reward, RandomStream& rng);
  /// The local means of a finished phase. Throws std::logic_error before phase_done().
  ClientReport report() const;

  /// Everything that changes during a run: a checkpoint saves it, and restore() on a client
  /// built with the same id, tree, rule and noise puts it back exactly (the phase's cells are
  /// recomputed from its broadcast).
  struct Snapshot {
    PhaseBroadcast broadcast;  ///< the current phase's (phase 0: none started)
    std::int64_t done = 0;
    std::vector<double> sums;
    std::vector<std::int64_t> counts;
    std::vector<double> point;
    bool pending = false;
  };
  Snapshot snapshot() const;
  /// Throws std::invalid_argument when the snapshot does not fit this client's tree.
  void restore(const Snapshot& snapshot);

 private:
  std::int64_t nodes_as_int() const { return static_cast<std::int64_t>(cells_.size()); }
  int id_;
  PartitionTree tree_;
  PointRule rule_;
  double dp_noise_std_;
  std::int64_t phase_ = 0;
  std::int64_t pulls_per_node_ = 0;
  std::int64_t total_ = 0;
  std::int64_t done_ = 0;
  PhaseBroadcast broadcast_;  ///< the current phase's, for snapshots
  std::vector<Box> cells_;
  std::vector<double> sums_;
  std::vector<std::int64_t> counts_;
  Eigen::VectorXd point_;
  bool pending_ = false;
};

}  // namespace fedsim::xarmed
