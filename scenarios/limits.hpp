#pragma once
/// Limits that configurations the key rules accept can still break: Fed-PNE's schedule
/// overflowing or its initial partition exhausting memory, DE weights overflowing. Computed
/// from the engine's own formulas, before anything is allocated; each error names a key.
#include <string>

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

/// The Fed-PNE parameter a broken limit is blamed on (the schema maps it to its key).
enum class FedPneParameter { none, budget, k, nu1, rho, c, c1, delta };
struct FedPneLimit {
  FedPneParameter blame = FedPneParameter::none;
  std::string what;  ///< the message, without the key
};

/// What is wrong unless c1 T / delta is finite, the initial partition holds at most
/// max_initial_nodes, and at every depth the budget can reach the pulls per node
/// ceil(tau_h / M) stay <= 2^53 (what FedPneSchedule computes exactly) and the depth within the
/// tree. Blames the parameter moved from its default in the direction that breaks the limit.
/// `config` is the engine's (fed_pne_config()); blames none while a key rule is unmet (the
/// rule reports it).
FedPneLimit fed_pne_limit(const xarmed::FedPneConfig& config);

/// The largest DE weight constant a whose softmax weights stay finite with N agents: the
/// weight ratio is exp(a / T) <= exp(a) for every temperature schedule but uniform, and the
/// normaliser sums up to N of them, so N exp(a) must stay below DBL_MAX: a < ln(DBL_MAX / N).
double max_weight_a(int agents);

}  // namespace fedsim::scenario
