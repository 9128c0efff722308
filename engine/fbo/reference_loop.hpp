#pragma once
/// A plain synchronous reference loop (no actors): N agents x T iterations of TS, FTS, FTS-DE,
/// DP-FTS or DP-FTS-DE on the synthetic objective or a given one (a candidate set or a box), with every random draw taken from a stream
/// keyed by (seed, purpose, agent, iteration). The baseline every actor run is compared to.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/fbo/agent_step.hpp"
#include "engine/fbo/algorithms.hpp"
#include "engine/fbo/de_server.hpp"
#include "engine/objectives/federated_objective.hpp"
#include "engine/objectives/grid_objective.hpp"

namespace fedsim::fbo {

/// The largest default delta. The papers' 1/N^1.1 (DP-FTS-DE: 2.9e-3 at N = 200) comes close to
/// 1/N for small N (0.47 at N = 2), the delta of a mechanism that publishes one agent's data
/// outright, and DP wants delta well below 1/N: the default stops at 0.01, which keeps the
/// papers' value for N >= 66 (66^1.1 > 100).
constexpr double max_default_delta = 0.01;

struct ReferenceConfig {
  Algorithm algorithm = Algorithm::dp_fts_de;
  int agents = 200;           ///< N
  int iterations = 40;        ///< T (after the initial design)
  int n_init = 10;            ///< N_init initial points per agent
  int features = 50;          ///< M
  int subregions = 2;         ///< P (FTS-DE, DP-FTS-DE; the others use 1)
  double q = 0.25;            ///< subsampling (DP variants; non-DP ones use every vector)
  double z = 1.0;             ///< noise multiplier (DP variants)
  double clip = 11.0;         ///< S (DP variants)
  double lambda = 0.01;       ///< regulariser of the posterior = the noise variance
  double noise_variance = 0.01;  ///< sigma^2 of observations
  double kernel_lengthscale = 0.03;  ///< SE kernel of the random features
  double beta = 1.0;          ///< TS scale
  PSchedule p_schedule = PSchedule::inv_sqrt;
  bool p1_equals_p2 = false;  ///< FTS's p_1 = p_2 (DP-FTS-DE uses 1 - p_t = 1/sqrt(t) from t = 1)
  bool fts_one_shot = false;  ///< FTS: messages sent once before the start and used once each
  TemperatureSchedule temperature = TemperatureSchedule::synthetic;
  double weight_a = 15.0;
  bool explore_own_region = true;  ///< DE: initial points from the assigned sub-region
  /// FTS's target-agent setting (FTS section 5.1, appendix D.1) when > 0: agent 0 is the
  /// target, optimising the unperturbed function for T iterations; agents 1..N-1 are peers
  /// holding this many (t_n) noisy observations of their own function at uniformly random
  /// points, each sending one message before the start and nothing after. 0: every agent
  /// optimises (the DP-FTS-DE setting).
  int peer_observations = 0;
  LocalSampler local_sampler = LocalSampler::rff;
  /// Each agent's posterior kept as its factor or rebuilt from its observations: the same
  /// results, memory against time (engine/fbo/agent.hpp).
  PosteriorMemory posterior_memory = PosteriorMemory::factor;
  /// Refits of each agent's local GP hyperparameters (engine/fbo/refit.hpp); off by default.
  RefitConfig refit;
  /// The authors' local sampler's settings (local_sampler refit_rff, refit_rff_bounded;
  /// engine/fbo/refit_rff.hpp). Its `first` is set from n_init by make_agent_context.
  RefitRffConfig refit_rff;
  /// On a box domain: uniform random candidates scored per maximisation (per sub-region for
  /// DE's reconstructed function) and how many of the best are refined with bounded L-BFGS
  /// (NLopt). Unused on a candidate set, where the maximisation is exhaustive.
  int acquisition_candidates = 1000;
  int acquisition_refine = 5;
  std::string accountant = "tight";
  double delta = 0.0;         ///< 0: min(1 / N^1.1, max_default_delta) (effective_delta())
  std::uint64_t seed = 1;
  SyntheticConfig objective;

  bool uses_server() const;   ///< FTS-DE, DP-FTS, DP-FTS-DE
  bool has_peers() const { return peer_observations > 0; }
  /// The agents that optimise (and whose regret is reported): 1 with peers, else all N.
  int learners() const { return has_peers() ? 1 : agents; }
  bool is_private() const;    ///< DP-FTS, DP-FTS-DE
  int effective_regions() const;
  double effective_delta() const;
  DeServerConfig server_config() const;
  StepSettings step_settings() const;  ///< what fbo::choose_query needs
  BoxMaximizerOptions acquisition() const;  ///< acquisition_candidates and _refine
  /// Throws std::invalid_argument naming the parameter and the allowed values.
  void validate() const;
};

struct ObservationRecord {
  int agent;
  int iteration;  ///< initial design: -n_init+1 .. 0; then 1 .. T
  int index;      ///< candidate queried, or -1 on a box
  Eigen::VectorXd x;  ///< the point, every coordinate, in the objective's own coordinates
  double y;       ///< noisy observation
  double f;       ///< true value (NaN: not known)
  double simple_regret;  ///< NaN without every f and the optimum
  double best_y;  ///< the largest y the agent has observed so far (needs no optimum)
  Branch branch;
  int source;     ///< FTS: the agent whose message chose x, else -1
};

struct RoundRecord {
  int round;
  RoundStats stats;
  double epsilon;  ///< privacy spent after this round (0 for non-private algorithms)
  double epsilon_rdp = 0.0;  ///< the same by the moments accountant (dp::Ledger)
  double epsilon_pld = 0.0;  ///< ... and by the tight accountant
};

struct ReferenceResult {
  std::vector<ObservationRecord> observations;
  std::vector<RoundRecord> rounds;
  double epsilon = 0.0;
  double epsilon_rdp = 0.0;  ///< the same releases by the moments and the tight accountant
  double epsilon_pld = 0.0;
  double delta = 0.0;
  /// Mean over the learners (every agent, or the target alone) of the simple regret after
  /// the last iteration. Peers' observations are their history, not queries: not recorded.
  double final_simple_regret = 0.0;
  /// Mean over the learners of simple regret at each iteration 0..T (index = iteration).
  std::vector<double> mean_simple_regret;
  /// Mean over the learners of the largest y each observed (its best observed value).
  double mean_best_observed = 0.0;
};

/// The agents' shared context for a run: the domain's candidates (or the box), the random
/// features keyed by the seed, DE's partition of the unit box into effective_regions()
/// sub-regions. Actor runs build theirs the same way.
std::shared_ptr<const AgentContext> make_agent_context(const ReferenceConfig& config,
                                                       const SearchDomain& domain);
/// The same for a candidate set in the unit box.
std::shared_ptr<const AgentContext> make_agent_context(const ReferenceConfig& config,
                                                       const Grid& candidates);
/// The sub-region each agent explores: agent n explores n mod P (about N / P per sub-region).
std::vector<int> assign_regions(int agents, int regions);

/// Runs the loop on the synthetic objective built from config.objective and config.seed
/// (with peers, the target's function is the unperturbed base).
ReferenceResult run_reference(const ReferenceConfig& config);
/// The synthetic objective the scenario's config.objective and config.seed describe (with
/// peers, the target's function is the unperturbed base), observed with config's noise.
std::shared_ptr<const FederatedObjective> make_synthetic_objective(const ReferenceConfig& config);

/// Runs the loop on a given objective (check_fbo_objective: a candidate set in the unit box or
/// the box itself, a function for every agent). Where the objective gives no noise-free value or optimum, the
/// records' f and simple_regret are NaN.
ReferenceResult run_reference(const ReferenceConfig& config, const FederatedObjective& objective);

}  // namespace fedsim::fbo
