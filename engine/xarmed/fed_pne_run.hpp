#pragma once
/// The synchronous reference loop of Fed-PNE / DP-Fed-PNE: one server, M clients, budget T
/// pulls per client, no actors. Every draw comes from a keyed stream: client m's points and
/// reward noise in phase p from RandomStream(seed, "fedpne.client", m, p), its DP noise from
/// RandomStream(seed, "fedpne.dp", m, p); the partition's axes from the seed. Same config,
/// same result, bit for bit.
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/xarmed/dp_fed_pne.hpp"
#include "engine/xarmed/hct.hpp"
#include "engine/xarmed/fed_pne_schedule.hpp"
#include "engine/xarmed/fed_pne_client.hpp"
#include "engine/xarmed/partition_tree.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::xarmed {

struct FedPneConfig {
  ProblemConfig problem;           ///< objective, M, offsets, reward noise, seed
  std::int64_t budget = 10000;     ///< T: pulls per client (rounds t = 1..T of section 2.1)
  FedPneParams params;             ///< nu1, rho, c, c1, delta (appendix E.1.5 defaults)
  int k = 2;                       ///< arity of the partition
  SplitRule split = SplitRule::random_axis;
  PointRule point = PointRule::centre;
  /// Read by HCT only (the scenario's algorithm.hct_variant; scenario::hct_config): the X-armed
  /// keys of a scenario file live in this one struct. Fed-PNE ignores it.
  HctVariant hct_variant = HctVariant::azar;
  double dp_epsilon = 0.0;         ///< > 0 runs DP-Fed-PNE
  double dp_delta = 0.0;           ///< DP delta; 0: min(1/M, 0.01) (dp_fed_pne_delta)
  bool record_curve = true;        ///< keep the per-step average regret curve (T doubles)

  bool is_private() const { return dp_epsilon > 0.0; }
  /// Throws std::invalid_argument naming the parameter.
  void validate() const;
};

/// One phase as it ran.
struct PhaseRecord {
  std::int64_t phase = 0;
  int depth = 0;
  std::size_t nodes = 0;             ///< |K^p|
  std::int64_t pulls_per_node = 0;   ///< t_{m,h,i}
  std::int64_t start = 0;            ///< steps every client had made before the phase
  std::int64_t steps = 0;            ///< steps it ran (< nodes x pulls if the budget cut it)
  bool completed = false;            ///< reported and closed (false: cut by the budget)
  std::size_t survivors = 0;         ///< nodes kept by the elimination (completed phases)
  double best_mean = 0.0;            ///< mu_hat of the phase's best node
  double confidence_width = 0.0;     ///< b_{h,i}
  std::vector<double> client_regret; ///< each client's cumulative regret after the phase
};

struct FedPneResult {
  /// Cumulative regret of each client on the global objective: sum_t f* - f(x_{m,t}).
  std::vector<double> client_regret;
  /// R(T) / M: the average cumulative regret per client (the paper's plotted quantity).
  double average_regret = 0.0;
  /// After each step t = 1..T: average cumulative regret per client (if recorded).
  std::vector<double> average_regret_curve;
  std::int64_t rounds = 0;             ///< communication rounds: phases broadcast
  std::int64_t completed_phases = 0;   ///< phases reported and closed
  std::int64_t nodes_received_per_client = 0;  ///< sum of |K^p| over broadcasts
  std::int64_t nodes_sent_per_client = 0;      ///< sum of |K^p| over reports
  std::vector<PhaseRecord> phases;
  std::optional<FederatedDpGuarantee> privacy;  ///< DP-Fed-PNE only
};

/// Client `client`'s work in one phase: start_phase(b), then `steps` (<= b.length()) pulls
/// with rewards from its local objective plus uniform noise, random draws keyed by
/// (seed, client, phase). Returns the regret summed on the global objective; adds each pull's
/// regret to step_regret[0 .. steps) when given. The reference loop and the client actor both
/// call it, so their pulls are identical.
double run_client_phase(FedPneClient& client, const PhaseBroadcast& b, std::int64_t steps,
                        const FederatedProblem& problem, std::uint64_t seed,
                        double* step_regret = nullptr);

/// Runs on an already built problem (config.problem is then ignored but for the seed, which
/// keys the partition and the clients' streams; problem.clients() is M).
FedPneResult run_fed_pne(const FedPneConfig& config, const FederatedProblem& problem);
/// Builds the problem from config.problem, then runs.
FedPneResult run_fed_pne(const FedPneConfig& config);

}  // namespace fedsim::xarmed
