#pragma once
/// The RGPE and TAF baselines of FTS section 3.2 in FTS's target-agent setting (FTS section 5,
/// appendix D.1): agent 0 is the target and optimises its function for T iterations after an
/// initial design; agents 1..N are peers holding t_n noisy observations of their own function
/// at uniformly random points, each sending its surrogate (nu_n, Sigma_n^-1, and for TAF its
/// incumbent) once before the start. The per-iteration step (transfer_choose) and the peers'
/// message (surrogate_message) are what an agent actor calls; run_transfer is the plain loop
/// every actor run is compared to. Peers draw their observations from the same streams as in
/// the FTS loop (engine/fbo/reference_loop.hpp), so FTS and its baselines see the same peers.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/baselines/rgpe.hpp"
#include "engine/baselines/surrogate_inbox.hpp"
#include "engine/baselines/taf.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/objectives/federated_objective.hpp"

namespace fedsim::baselines {

enum class TransferAlgorithm { rgpe, taf };
/// "rgpe", "taf"; std::invalid_argument naming the allowed values otherwise.
TransferAlgorithm parse_transfer_algorithm(const std::string& name);
std::string to_string(TransferAlgorithm algorithm);
/// The payload an algorithm's peers send: rgpe -> M + M*M, taf -> M + M*M + 1.
SurrogatePayload payload_kind(TransferAlgorithm algorithm);

/// The message a peer sends: its surrogate (make_surrogate: shared model over its whole
/// history, incumbent its largest y), encoded for the algorithm.
std::vector<double> surrogate_message(const fbo::FboAgent& peer, const fbo::AgentContext& context,
                                      TransferAlgorithm algorithm);

/// What one iteration of the target chose.
struct TransferStep {
  fbo::Point point;
  double acquisition = 0.0;     ///< the maximised acquisition's value at the point
  std::vector<double> weights;  ///< N + 1 (the inbox's senders in order, the target last)
  int dropped = 0;              ///< RGPE: base models its dilution guard dropped (TAF: 0)
};

/// Iteration t (>= 1) of the target agent `id`, drawn from the stream
/// (seed, agent.choose, id, t), the stream FTS's step draws from: RGPE (rgpe_choose) or TAF
/// (taf_choose) on the inbox's surrogates. The inbox's kind must be the algorithm's
/// (std::invalid_argument otherwise).
TransferStep transfer_choose(TransferAlgorithm algorithm, const fbo::FboAgent& target,
                             const fbo::AgentContext& context, const SurrogateInbox& inbox,
                             const RgpeParams& rgpe, const TafParams& taf, std::uint64_t seed,
                             int id, int t);

struct TransferLoopConfig {
  TransferAlgorithm algorithm = TransferAlgorithm::rgpe;
  int agents = 29;             ///< N + 1: the target and N peers, >= 1
  int iterations = 50;         ///< T, >= 1
  int n_init = 3;              ///< the target's initial points, >= 1 (FTS section 5.2: 3)
  int peer_observations = 50;  ///< t_n of every peer, >= 1 (FTS section 5.2: 50)
  int features = 100;          ///< M, >= 1
  double lambda = 0.01;        ///< regulariser of every surrogate = the noise variance
  double noise_variance = 0.01;  ///< sigma^2 of observations
  double kernel_lengthscale = 0.03;  ///< SE kernel of the random features
  int acquisition_candidates = 1000;  ///< on a box: random candidates per maximisation
  int acquisition_refine = 5;         ///< on a box: of which refined by L-BFGS
  std::uint64_t seed = 1;
  SyntheticConfig objective;   ///< run_transfer(config): the synthetic functions
  RgpeParams rgpe;
  TafParams taf;

  /// Throws std::invalid_argument naming the parameter and the allowed range.
  void validate() const;
  /// The FTS loop's configuration with the same shared settings (algorithm ts, the
  /// target-agent setting): its agent context and synthetic objective are this run's.
  fbo::ReferenceConfig fbo_config() const;
};

struct TransferRecord {
  int iteration;          ///< initial design: -n_init+1 .. 0; then 1 .. T
  int index;              ///< candidate queried, or -1 on a box
  Eigen::VectorXd x;      ///< the point, in the objective's own coordinates
  double y;               ///< noisy observation
  double f;               ///< true value (NaN: not known)
  double simple_regret;   ///< NaN without every f and the optimum
  double best_y;          ///< the largest y observed so far
  double acquisition;     ///< the maximised acquisition (NaN in the initial design)
  std::vector<double> weights;  ///< N + 1, the target last (empty in the initial design)
  int dropped;            ///< RGPE's dilution guard (0 otherwise)
};

struct TransferResult {
  std::vector<TransferRecord> records;  ///< the target's, in order
  std::size_t payload_length = 0;       ///< numbers each peer sent
  int accepted = 0;                     ///< surrogates the target accepted
  int rejected = 0;                     ///< ... and rejected (SurrogateInbox)
  double final_simple_regret = 0.0;
};

/// The loop on a given objective (check_fbo_objective for `agents` functions; agent 0's is the
/// target's).
TransferResult run_transfer(const TransferLoopConfig& config, const FederatedObjective& objective);
/// The loop on the synthetic grid objective (kinds perturbed, mixture) of config.objective and
/// config.seed (the target's function the unperturbed base, as FTS's); a box objective is
/// passed to the overload above (e.g. BoxTestObjective with first_is_base).
TransferResult run_transfer(const TransferLoopConfig& config);

}  // namespace fedsim::baselines
