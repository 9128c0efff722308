#pragma once
/// The synchronous reference loop of Fed1-UCB on a federated X-armed problem
/// (xarmed::FederatedProblem): one server, M clients, T pulls per client, no actors. Streams:
/// the mesh's starts from RandomStream(seed, "baselines.mesh") (FN-UCB's too), client m's
/// reward noise in phase p from RandomStream(seed, "fed1ucb.client", m, p). Same config, same
/// result, bit for bit.
#include <cstdint>
#include <vector>

#include "engine/baselines/arm_mesh.hpp"
#include "engine/baselines/bandit_pulls.hpp"
#include "engine/baselines/fed1_ucb.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::baselines {

struct Fed1UcbRunConfig {
  Fed1UcbParams params;  ///< params.clients is taken from the problem
  std::uint64_t seed = 1;
  bool record_pulls = true;  ///< keep every pull (M T records)
};

struct Fed1UcbPhaseRecord {
  std::int64_t phase = 0;
  std::size_t active = 0;          ///< |A_p|
  std::int64_t pulls_per_arm = 0;  ///< f(p) (the rest of the budget once committed)
  std::int64_t start = 0;          ///< pulls per client before the phase
  std::int64_t steps = 0;          ///< pulls per client in it (fewer if the budget cut it)
  bool completed = false;          ///< reported and closed
  std::size_t survivors = 0;
  double confidence_width = 0.0;  ///< B (completed phases)
  /// Each client's cumulative regret after the phase (as Fed-PNE's phase record holds it: the
  /// loop driver's pull rows); the last phase's is client_regret.
  std::vector<double> client_regret{};
};

struct Fed1UcbRunResult {
  ArmMesh mesh;
  std::vector<BanditPull> pulls;             ///< ordered by (step, client), if recorded
  std::vector<double> client_regret;         ///< sum_t f* - f(x_{m,t}) per client
  double average_regret = 0.0;               ///< R(T) / M, the paper's plotted quantity
  std::vector<double> average_regret_curve;  ///< after each step t = 1..T
  std::vector<Fed1UcbPhaseRecord> phases;
  std::int64_t rounds = 0;                       ///< broadcasts
  std::int64_t numbers_received_per_client = 0;  ///< sum of broadcast payload lengths
  std::int64_t numbers_sent_per_client = 0;      ///< sum of report payload lengths
};

/// Client `client`'s work in phase b: start_phase(b), then `steps` pulls of its local
/// objective at the mesh's arms plus U[-noise, noise] from RandomStream(seed, "fed1ucb.client",
/// m, p). Returns the regret summed on the global objective; adds each pull's regret to
/// step_regret[0 .. steps) and appends its record to `pulls` when given. The reference loop
/// and a client actor call it alike.
double run_fed1_ucb_client_phase(Fed1UcbClient& client, const Fed1UcbBroadcast& b,
                                 std::int64_t steps, const xarmed::FederatedProblem& problem,
                                 const ArmMesh& mesh, std::uint64_t seed,
                                 double* step_regret = nullptr,
                                 std::vector<BanditPull>* pulls = nullptr);

/// Throws std::invalid_argument for bad parameters (naming them) or a problem whose domain
/// does not match its objectives.
Fed1UcbRunResult run_fed1_ucb(const Fed1UcbRunConfig& config,
                              const xarmed::FederatedProblem& problem);

}  // namespace fedsim::baselines
