#pragma once
/// The synchronous reference loop of FN-UCB on a federated X-armed problem: N clients, T
/// rounds of one pull each, a synchronisation after every round in which some client's
/// criterion exceeded D. Streams: the mesh from RandomStream(seed, "baselines.mesh") (the same
/// mesh as Fed1-UCB's for the same seed), theta_0 from RandomStream(seed, "fnucb.init"), client
/// i's reward noise in round t from RandomStream(seed, "fnucb.client", i, t). Same config,
/// same result, bit for bit.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/baselines/bandit_pulls.hpp"
#include "engine/baselines/fn_ucb.hpp"
#include "engine/xarmed/problem.hpp"

namespace fedsim::baselines {

struct FnUcbRunConfig {
  FnUcbParams params;  ///< params.clients is taken from the problem
  std::uint64_t seed = 1;
  bool record_pulls = true;  ///< keep every pull (N T records)
  /// Called at the end of every round t = 1..T (after its synchronisation, if any) with each
  /// client's cumulative regret so far and the synchronisations run so far, when set: a caller
  /// records the regret at a stride of its choosing without keeping every pull (the loop
  /// driver's pull rows).
  std::function<void(std::int64_t t, const std::vector<double>& client_regret,
                     std::int64_t syncs)>
      on_round;
};

struct FnUcbRunResult {
  std::shared_ptr<const FnUcbModel> model;
  std::vector<BanditPull> pulls;                 ///< ordered by (step, client), if recorded
  std::vector<double> client_regret;             ///< sum_t f* - f(x_{i,t}) per client
  double average_regret = 0.0;                   ///< R(T) / N
  std::vector<double> average_regret_curve;      ///< after each round t = 1..T
  std::vector<std::int64_t> sync_rounds;         ///< rounds after which a synchronisation ran
  std::int64_t numbers_sent_per_client = 0;      ///< sum of report payload lengths
  std::int64_t numbers_received_per_client = 0;  ///< sum of broadcast payload lengths
};

/// Client i's pull in round t: choose, reward f_i(x) + U[-noise, noise] from
/// RandomStream(seed, "fnucb.client", i, t), observe. The loop and a client actor call it alike.
BanditPull run_fn_ucb_client_round(FnUcbClient& client, std::int64_t t,
                                   const xarmed::FederatedProblem& problem, const FnUcbModel& model,
                                   std::uint64_t seed);

/// Throws std::invalid_argument for bad parameters (naming them) or a problem whose domain
/// does not match its objectives.
FnUcbRunResult run_fn_ucb(const FnUcbRunConfig& config, const xarmed::FederatedProblem& problem);

}  // namespace fedsim::baselines
