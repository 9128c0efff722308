#pragma once
/// FN-UCB (Dai, Shu, Verma, Low, Jaillet, "Federated Neural Bandits", ICLR 2023) on an
/// X-armed problem as Fed-PNE appendix E.1.4 runs it: the K^d arms are the mesh of
/// arm_mesh.hpp (the same as Fed1-UCB's), every client pulls one arm per round t = 1..T.
/// Client i scores arm x with
///   U(x) = alpha_t U_a(x) + (1 - alpha_t) U_b(x),
///   U_b(x) = g(x)' theta_bar + nu_gp sqrt(lambda) |g(x)|_{V_bar^-1}           (GP-UCB part)
///            V_bar = lambda I + W_sync + W_new_i, theta_bar = V_bar^-1 (B_sync + B_new_i)
///   U_a(x) = f(x; theta_sync) + nu_nn sqrt(lambda) |g(x)|_{V_ring^-1}        (NN-UCB part)
///            V_ring^-1 = mean over clients of V_local_i^-1
/// with g(x) = grad_theta f(x; theta_0) / sqrt(m) (m the width; trainers/regression_mlp.hpp),
/// alpha_t = clamp((t - 1 - alpha_delay) / alpha_ramp, 0, 1) (the authors' code). After its
/// pull it adds g g' to W_new_i and V_local_i and y g to B_new_i, and asks for a
/// synchronisation when (t - t_last) (log det V_{t,i} - log det V_last) > D, V_{t,i} =
/// lambda I + W_sync + W_new_i, V_last = lambda I + W_sync at the last synchronisation. A
/// synchronisation after round t (any client asked): every client trains its network on its own
/// pulls (when trains_network(t)) and sends W_new_i, B_new_i, V_local_i^-1 (when
/// sends_variance(t)) and theta_i (when trains_network(t)); the server adds the W and B, averages
/// the inverses and the thetas, and broadcasts W_sync, B_sync, V_ring^-1, theta_sync; every
/// client then empties W_new_i, B_new_i. docs/baselines/fn-ucb.md: equations, readings,
/// parameters, costs.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/baselines/arm_mesh.hpp"
#include "engine/domain.hpp"
#include "engine/rng.hpp"
#include "engine/trainers/regression_mlp.hpp"

namespace fedsim::baselines {

/// Defaults: the authors' code (run_fn_ucb.py, its synthetic setting) but for three scaled
/// down (width 10 not 20, 10 training steps not 30, training stops after round 1000 not 2000:
/// docs/baselines/fn-ucb.md measures both); authors() gives the code's values.
struct FnUcbParams {
  int arms_per_dim = 100;         ///< K per axis: K^d arms (the mesh of Fed1-UCB)
  int width = 10;                 ///< m: hidden units of the one-hidden-layer network, >= 1
  double lambda = 0.1;            ///< regularisation lambda, > 0
  double nu_gp = 0.1;             ///< nu of U_b (the code's nu), >= 0
  double nu_nn = 0.1;             ///< nu of U_a (the code's nu_2), >= 0
  double sync_threshold = 0.0;    ///< D, >= 0 (0: synchronise whenever the det grew)
  std::int64_t alpha_delay = 3;   ///< rounds of alpha = 0 before the ramp, >= 0
  std::int64_t alpha_ramp = 700;  ///< rounds of alpha's linear ramp from 0 to 1, >= 1
  int train_steps = 10;           ///< gradient steps per training (warm-started), >= 1
  double learning_rate = 0.01;    ///< of those steps, > 0
  std::int64_t stop_training_after = 1000;  ///< no training at syncs after this round, >= 0
  std::int64_t budget = 10000;              ///< T: rounds (pulls per client), >= 1
  int clients = 10;                         ///< N, >= 1

  /// The authors' code's values: width 20, 30 training steps, training until round 2000.
  static FnUcbParams authors();
  /// Throws std::invalid_argument naming the parameter and its allowed range.
  void validate() const;
  /// alpha_t, t = 1..T.
  double alpha(std::int64_t t) const;
  /// A synchronisation after round t carries the variance part (V_local^-1, V_ring^-1) iff
  /// alpha_{t+1} > 0, and trains and carries the networks iff also t <= stop_training_after.
  bool sends_variance(std::int64_t t) const { return alpha(t + 1) > 0.0; }
  bool trains_network(std::int64_t t) const {
    return sends_variance(t) && t <= stop_training_after;
  }
};

/// What every member knows from the start: the arms, the network's inputs (the arms mapped to
/// the unit box), theta_0 and the features g(x_k; theta_0) / sqrt(m).
struct FnUcbModel {
  ArmMesh mesh;
  Eigen::MatrixXd inputs;           ///< K x d
  trainers::RegressionMlp initial;  ///< theta_0
  Eigen::MatrixXd features;         ///< K x p
  int parameters() const { return static_cast<int>(features.cols()); }
  std::int64_t arms() const { return mesh.arms(); }
};

/// The mesh from mesh_rng (one uniform per axis), theta_0 ~ N(0, 1) from init_rng. Throws
/// std::invalid_argument for bad parameters.
FnUcbModel make_fn_ucb_model(const Box& domain, const FnUcbParams& params, RandomStream& mesh_rng,
                             RandomStream& init_rng);

/// A synchronisation's payload, either way (p parameters):
///   report    [W_new (p x p, row-major) | B_new (p) | V_local^-1 (p x p) | theta_i (p)]
///   broadcast [W_sync (p x p)           | B_sync (p) | V_ring^-1 (p x p)  | theta_sync (p)]
/// the p x p inverse only when sends_variance(t), the theta only when trains_network(t):
/// length p^2 + p + [p^2] + [p].
std::size_t fn_ucb_payload_length(int p, bool with_variance, bool with_network);
/// Why a payload is malformed ("" when fine): a wrong length, a non-finite entry, W not
/// symmetric or not positive semi-definite, the inverse not symmetric, not positive definite
/// or above (1 + 1e-6) I / lambda (every V is >= lambda I; the slack covers rounding).
std::string check_fn_ucb_report(const std::vector<double>& payload, int p, bool with_variance,
                                bool with_network, double lambda);
std::string check_fn_ucb_broadcast(const std::vector<double>& payload, int p, bool with_variance,
                                   bool with_network, double lambda);

class FnUcbClient {
 public:
  /// Throws std::invalid_argument for bad parameters, a null model or id < 0.
  FnUcbClient(int id, const FnUcbParams& params, std::shared_ptr<const FnUcbModel> model);
  int id() const { return id_; }

  /// U(x) of every arm in round t (>= 1).
  Eigen::VectorXd scores(std::int64_t t) const;
  /// The first arm of largest U in round t.
  std::int64_t choose(std::int64_t t) const;
  /// Records round t's pull (t after the last one; arm in range, reward finite; else
  /// std::invalid_argument) and updates the synchronisation criterion.
  void observe(std::int64_t t, std::int64_t arm, double reward);
  /// (t - t_last) (log det V_{t,i} - log det V_last) after the last observe (0 before).
  double sync_criterion() const { return criterion_; }
  bool wants_sync() const { return criterion_ > params_.sync_threshold; }
  /// The report of a synchronisation after round t (the last observed): trains the network
  /// first when trains_network(t). Throws std::logic_error unless t is the last observed round.
  std::vector<double> sync_report(std::int64_t t);
  /// Takes the server's broadcast after round t: throws std::invalid_argument with the
  /// checker's reason for a malformed payload, or when t is not after the last
  /// synchronisation (a stale or repeated broadcast); the state is then unchanged.
  void apply_broadcast(const std::vector<double>& payload, std::int64_t t);

  struct State {
    int id = 0;
    std::int64_t t = 0;        ///< last observed round
    std::int64_t t_last = 0;   ///< round of the last synchronisation (0: none)
    double logdet_last = 0.0;  ///< log det V_last
    double criterion = 0.0;
    std::vector<double> w_new, b_new, v_local;       ///< p x p row-major, p, p x p
    std::vector<double> w_sync, b_sync, v_ring_inv;  ///< the last broadcast's
    std::vector<double> theta_local, theta_sync;     ///< theta_i (trained), theta_sync
    std::vector<std::int64_t> arms;                  ///< its pulls, in order
    std::vector<double> rewards;
  };
  State state() const;
  /// Restores a client built with the same id, parameters and model. Throws
  /// std::invalid_argument when the state does not fit them.
  void restore(const State& state);

 private:
  Eigen::MatrixXd v_bar() const;
  FnUcbParams params_;
  std::shared_ptr<const FnUcbModel> model_;
  int id_;
  std::int64_t t_ = 0, t_last_ = 0;
  double logdet_last_ = 0.0, criterion_ = 0.0;
  Eigen::MatrixXd w_new_, v_local_, w_sync_, v_ring_inv_;
  Eigen::VectorXd b_new_, b_sync_;
  trainers::RegressionMlp local_, sync_;
  std::vector<std::int64_t> arms_;
  std::vector<double> rewards_;
};

class FnUcbServer {
 public:
  /// Throws std::invalid_argument for bad parameters or a theta_0 of the wrong size.
  FnUcbServer(const FnUcbParams& params, const FnUcbModel& model);

  /// Opens the synchronisation after round t (> the last one). Throws std::logic_error when
  /// one is open.
  void begin_sync(std::int64_t t);
  bool sync_open() const { return round_ > 0; }
  std::int64_t round() const { return round_; }
  /// Takes client i's report, or returns why not ("" when taken; the state is unchanged
  /// otherwise): no open synchronisation, unknown client, duplicate, malformed payload.
  std::string receive(int client, const std::vector<double>& payload);
  int reports_received() const { return received_count_; }
  bool ready() const { return received_count_ == params_.clients; }
  /// Aggregates every report (client order) and returns the broadcast payload. Throws
  /// std::logic_error unless ready().
  std::vector<double> close_sync();
  /// The same with the reports received (at least one): the means are over the reporters.
  std::vector<double> close_sync_with_reports();
  std::int64_t syncs() const { return syncs_; }

  struct State {
    std::int64_t round = 0;  ///< the open synchronisation's round (0: none)
    std::int64_t last_round = 0;
    std::int64_t syncs = 0;
    std::vector<double> w_sync, b_sync, v_ring_inv, theta_sync;
    std::vector<std::vector<double>> reports;
    std::vector<bool> received;
  };
  State state() const;
  void restore(const State& state);

 private:
  std::vector<double> close(int min_reporters);
  FnUcbParams params_;
  int p_;
  std::int64_t round_ = 0, last_round_ = 0, syncs_ = 0;
  Eigen::MatrixXd w_sync_, v_ring_inv_;
  Eigen::VectorXd b_sync_, theta_sync_;
  std::vector<std::vector<double>> reports_;
  std::vector<bool> received_;
  int received_count_ = 0;
};

}  // namespace fedsim::baselines
