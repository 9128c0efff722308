#pragma once
/// Limits that configurations the key rules accept can still break: Fed-PNE's schedule
/// overflowing or its initial partition exhausting memory, DE weights overflowing. Computed
/// from the engine's own formulas, before anything is allocated; each error names a key.
#include "engine/fbo/reference_loop.hpp"
#include "engine/xarmed/fed_pne_run.hpp"

namespace fedsim::scenario {

/// The most nodes Fed-PNE's initial partition may hold. Every client reports a mean and a pull
/// count per node each phase and the server keeps M mean vectors: at M = 10, 10^6 nodes are
/// ~100 MB; the shipped scenarios start from at most a few hundred.
constexpr double max_initial_nodes = 1e6;

/// Fed-PNE's initial partition as FedPneServer builds it: from the root, every node is split
/// while |K| tau_h < M or tau_h <= 1. Counted from the schedule, without building it.
struct PartitionEstimate {
  int depth = 0;
  double nodes = 1;  ///< k^depth; +inf if the tree's depth limit (k^h <= 2^63) is passed
  bool complete = true;  ///< false: counting stopped past max_initial_nodes, still splitting
};
PartitionEstimate initial_partition(const xarmed::FedPneConfig& config);

/// Throws std::invalid_argument naming a key unless, at every depth the budget can reach,
/// tau_h is finite and the pulls per node ceil(tau_h / M) stay <= 2^53 (what FedPneSchedule
/// computes exactly), the depth stays within the tree, and the initial partition holds at most
/// max_initial_nodes. `config` is the engine's (fed_pne_config()), its key rules already met.
void check_fed_pne_limits(const xarmed::FedPneConfig& config);

/// The largest DE weight constant a whose softmax weights stay finite with N agents: the
/// weight ratio is exp(a / T) <= exp(a) for every temperature schedule but uniform, and the
/// normaliser sums up to N of them, so N exp(a) must stay below DBL_MAX: a < ln(DBL_MAX / N).
double max_weight_a(int agents);

}  // namespace fedsim::scenario
