#pragma once
/// The Fed-PNE server (Algorithm 2) as a state machine: broadcast() is phase p's message;
/// receive() takes the clients' reports; close_phase() averages them, applies the elimination
/// rule and prepares phase p + 1 from the survivors' children. It never sees a reward and keeps
/// no clock: the budget only enters tau_h through log(c1 T / delta).
#include <cstdint>
#include <vector>

#include "engine/xarmed/elimination.hpp"
#include "engine/xarmed/fed_pne_messages.hpp"
#include "engine/xarmed/fed_pne_schedule.hpp"
#include "engine/xarmed/partition_tree.hpp"

namespace fedsim::xarmed {

/// What closing a phase decided.
struct PhaseOutcome {
  std::int64_t phase = 0;
  int depth = 0;
  std::vector<double> global_means;  ///< mu_hat_{h,i} = mean over clients, broadcast order
  double confidence_width = 0.0;     ///< b_{h,i} (one per phase: same depth and pull count)
  double smoothness = 0.0;           ///< nu_1 rho^h
  Elimination elimination;           ///< best node, eliminated flags, survivor count
  int reporters = 0;                 ///< clients whose means were averaged
};

class FedPneServer {
 public:
  /// Prepares phase 1 from the root. Throws std::invalid_argument for bad parameters.
  FedPneServer(PartitionTree tree, const FedPneParams& params, int clients, std::int64_t budget);

  const FedPneSchedule& schedule() const { return schedule_; }
  const PartitionTree& tree() const { return tree_; }
  int clients() const { return schedule_.clients(); }
  /// The current phase's message (valid until close_phase()).
  const PhaseBroadcast& broadcast() const { return broadcast_; }
  /// Takes one client's report for the current phase, or says why not (the state is unchanged
  /// then). A full report has one finite mean per node, each behind pulls_per_node pulls.
  ReportStatus receive(const ClientReport& report);
  int reports_received() const { return received_count_; }
  bool ready() const { return received_count_ == clients(); }
  /// Averages the reports (in client order, so arrival order never matters), eliminates, and
  /// moves to the next phase. Throws std::logic_error unless ready().
  PhaseOutcome close_phase();
  /// The same with the clients that reported so far (at least one): a deadline's phase.
  /// The global mean is then the mean of their local means, and b_{h,i} uses their pulls.
  /// Throws std::logic_error with no report.
  PhaseOutcome close_phase_with_reports();

  /// Everything that changes during a run (the tree and the schedule do not): a checkpoint
  /// saves it, and restore() on a server built with the same tree, parameters, clients and
  /// budget puts it back exactly.
  struct Snapshot {
    PhaseBroadcast broadcast;
    std::vector<std::vector<double>> means;
    std::vector<bool> received;
  };
  Snapshot snapshot() const;
  /// Throws std::invalid_argument when the snapshot's client count differs.
  void restore(const Snapshot& snapshot);

 private:
  /// Algorithm 2 lines 5-8: expand `indices` (at `depth`) while |K| tau_h < M or tau_h <= 1,
  /// then fix the pull count.
  void prepare(std::int64_t phase, int depth, std::vector<std::uint64_t> indices);

  PartitionTree tree_;
  FedPneSchedule schedule_;
  PhaseBroadcast broadcast_;
  std::vector<std::vector<double>> means_;  ///< per client, the current phase's report
  std::vector<bool> received_;
  int received_count_ = 0;
};

}  // namespace fedsim::xarmed
