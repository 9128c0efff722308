#pragma once
/// What Fed-PNE's server and clients exchange once per phase, as plain structs an actor can
/// carry over a network (Algorithm 2 line 9, Algorithm 1 line 10).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/xarmed/partition_tree.hpp"

namespace fedsim::xarmed {

/// Server -> every client at the start of phase p: the active nodes K^p and the pull count.
struct PhaseBroadcast {
  std::int64_t phase = 0;               ///< p, from 1
  int depth = 0;                        ///< h: every node of K^p lies at this depth
  std::vector<std::uint64_t> indices;   ///< i of each node of K^p, ascending
  std::int64_t pulls_per_node = 0;      ///< t_{m,h,i} = ceil(tau_h / M): same for all m, i

  std::size_t size() const { return indices.size(); }
  NodeId node(std::size_t j) const { return NodeId{depth, indices[j]}; }
  /// |T^p| = |K^p| t: pulls per client in the phase.
  std::int64_t length() const {
    return static_cast<std::int64_t>(indices.size()) * pulls_per_node;
  }
};

/// Client -> server at the end of phase p: its local mean per node (noisy under DP-Fed-PNE).
struct ClientReport {
  int client = 0;                       ///< m, 0-based
  std::int64_t phase = 0;               ///< the phase the means belong to
  std::vector<double> means;            ///< mu_hat_{m,h,i}, in the broadcast's node order
  std::vector<std::int64_t> pulls;      ///< pulls behind each mean
};

/// Why the server refused a report (accepted when it took it).
enum class ReportStatus { accepted, unknown_client, wrong_phase, wrong_size, wrong_pulls,
                          non_finite, duplicate };

}  // namespace fedsim::xarmed
