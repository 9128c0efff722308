#pragma once
/// Fed1-UCB (Shi & Shen, "Federated Multi-armed Bandits", AAAI 2021: the exact model, a fixed
/// set of M clients whose mean is the global model) as Fed-PNE appendix E.1.3 runs it on an
/// X-armed problem: the arms are a mesh of the domain (arm_mesh.hpp); in phase p every client
/// pulls every active arm f(p) = max(1, floor(kappa ln T)) times (kappa = 1, the Fed-PNE
/// paper's choice; 10 in the original code), arm after arm, and sends its local means of the
/// active arms (over all its pulls so far); the server averages them over the clients and
/// eliminates arm k when mu_k + B < max_j mu_j - B, B = sqrt(4 sigma^2 ln T / (M n)), n the
/// pulls of an active arm per client so far (the original code's bound). With one arm left
/// the clients pull it until the budget ends, without communicating again.
/// docs/baselines/fed1-ucb.md: equations, readings, parameters.
#include <cstdint>
#include <string>
#include <vector>

namespace fedsim::baselines {

struct Fed1UcbParams {
  int arms_per_dim = 100;       ///< K per axis: K^d arms (E.1.3's K for d = 1)
  double kappa = 1.0;           ///< f(p) = max(1, floor(kappa ln T)); > 0
  double sigma = 0.5;           ///< sub-Gaussian scale of the rewards in B; > 0
  std::int64_t budget = 10000;  ///< T: pulls per client, in [1, 1e9]
  int clients = 10;             ///< M, >= 1

  /// Throws std::invalid_argument naming the parameter and its allowed range.
  void validate() const;
  /// f(p), the pulls of every active arm per client in phase p (constant in p).
  std::int64_t phase_length(std::int64_t phase) const;
  /// B = sqrt(4 sigma^2 ln T / (reporters n)): n pulls per client of an arm, reporters
  /// clients averaged (M when all reported).
  double confidence_width(std::int64_t pulls_per_client, int reporters) const;
};

/// Server -> every client at the start of phase p.
struct Fed1UcbBroadcast {
  std::int64_t phase = 0;            ///< p, from 1
  std::int64_t pulls_per_arm = 0;    ///< f(p); the rest of the budget once one arm is left
  std::vector<std::int64_t> active;  ///< active arm indices, ascending
  bool operator==(const Fed1UcbBroadcast& o) const {
    return phase == o.phase && pulls_per_arm == o.pulls_per_arm && active == o.active;
  }
};

/// The broadcast's payload: [p, pulls_per_arm, active[0], ..., active[n-1]], length
/// fed1_ucb_broadcast_length(n) = 2 + n.
std::size_t fed1_ucb_broadcast_length(std::size_t active);
std::vector<double> encode(const Fed1UcbBroadcast& broadcast);
/// Why a broadcast payload is malformed for a mesh of `arms` arms ("" when fine): fewer than 3
/// numbers, a non-finite entry, a phase < 1, pulls_per_arm < 1, a non-integer, an arm outside
/// [0, arms) or arms not strictly ascending.
std::string check_fed1_ucb_broadcast(const std::vector<double>& payload, std::int64_t arms);
/// Decodes a payload check_fed1_ucb_broadcast accepts; throws std::invalid_argument with its
/// reason otherwise.
Fed1UcbBroadcast decode_fed1_ucb_broadcast(const std::vector<double>& payload, std::int64_t arms);

/// A client's report for phase p is its local mean of each active arm, in the broadcast's
/// order: length fed1_ucb_report_length(n) = n. Why it is malformed ("" when fine): a wrong
/// length or a non-finite mean.
std::size_t fed1_ucb_report_length(std::size_t active);
std::string check_fed1_ucb_report(const std::vector<double>& payload, std::size_t active);

/// One client: start_phase(), then next_arm() / observe() for each pull, then report().
class Fed1UcbClient {
 public:
  /// Throws std::invalid_argument for arms < 1 or id < 0.
  Fed1UcbClient(int id, std::int64_t arms);
  int id() const { return id_; }
  std::int64_t arms() const { return static_cast<std::int64_t>(sums_.size()); }

  /// Throws std::invalid_argument for a broadcast check_fed1_ucb_broadcast refuses, or whose
  /// phase is not after the current one.
  void start_phase(const Fed1UcbBroadcast& broadcast);
  std::int64_t phase() const { return broadcast_.phase; }
  const Fed1UcbBroadcast& broadcast() const { return broadcast_; }
  std::int64_t pulls_done() const { return done_; }
  std::int64_t phase_pulls() const;
  bool phase_done() const { return broadcast_.phase > 0 && done_ == phase_pulls(); }
  /// The arm of the next pull: the active arms in order, each pulls_per_arm times in a row
  /// (the original code's order). Throws std::logic_error when the phase is done.
  std::int64_t next_arm() const;
  /// Records the reward of next_arm(). Throws std::logic_error when the phase is done and
  /// std::invalid_argument for a non-finite reward.
  void observe(double reward);
  /// Local means of the active arms over every pull so far (the report payload). Throws
  /// std::logic_error before phase_done().
  std::vector<double> report() const;
  /// Pulls of arm a so far.
  std::int64_t pulls(std::int64_t arm) const { return counts_.at(static_cast<std::size_t>(arm)); }

  struct State {
    int id = 0;
    Fed1UcbBroadcast broadcast;
    std::int64_t done = 0;
    std::vector<double> sums;          ///< per arm, all phases
    std::vector<std::int64_t> counts;  ///< per arm, all phases
  };
  State state() const;
  /// Throws std::invalid_argument when the state is inconsistent (sizes, counts, done).
  static Fed1UcbClient from_state(const State& state);

 private:
  int id_;
  Fed1UcbBroadcast broadcast_;
  std::int64_t done_ = 0;
  std::vector<double> sums_;
  std::vector<std::int64_t> counts_;
};

/// What closing a phase decided.
struct Fed1UcbPhaseOutcome {
  std::int64_t phase = 0;
  std::vector<double> global_means;  ///< per active arm (broadcast order): mean over reporters
  double confidence_width = 0.0;     ///< B
  std::vector<bool> eliminated;      ///< per active arm
  std::vector<std::int64_t> survivors;
  int reporters = 0;
};

class Fed1UcbServer {
 public:
  /// Prepares phase 1 with every arm active. Throws std::invalid_argument for bad parameters
  /// or arms < 1.
  Fed1UcbServer(const Fed1UcbParams& params, std::int64_t arms);

  const Fed1UcbParams& params() const { return params_; }
  std::int64_t arms() const { return arms_; }
  /// The current phase's broadcast (valid until close_phase()).
  const Fed1UcbBroadcast& broadcast() const { return broadcast_; }
  std::vector<double> broadcast_payload() const { return encode(broadcast_); }
  /// Pulls per client before the current phase.
  std::int64_t phase_start() const { return start_; }
  /// One arm is left: the current broadcast has it pulled until the budget ends, and no
  /// report is expected.
  bool committed() const { return broadcast_.active.size() == 1; }

  /// Takes client m's report of the current phase, or returns why not ("" when taken; the
  /// state is unchanged otherwise): unknown client, committed, duplicate, malformed payload.
  std::string receive(int client, const std::vector<double>& payload);
  int reports_received() const { return received_count_; }
  bool ready() const { return received_count_ == params_.clients; }
  /// Averages the reports (client order), eliminates, and prepares the next phase. Throws
  /// std::logic_error unless ready().
  Fed1UcbPhaseOutcome close_phase();
  /// The same with the clients that reported so far (at least one; B uses their count).
  Fed1UcbPhaseOutcome close_phase_with_reports();

  struct State {
    Fed1UcbBroadcast broadcast;
    std::int64_t start = 0;
    std::vector<std::vector<double>> reports;  ///< per client (empty: none yet)
    std::vector<bool> received;
  };
  State state() const;
  /// Throws std::invalid_argument when the state does not fit the parameters and arms.
  void restore(const State& state);

 private:
  Fed1UcbPhaseOutcome close(int min_reporters);
  Fed1UcbParams params_;
  std::int64_t arms_;
  Fed1UcbBroadcast broadcast_;
  std::int64_t start_ = 0;
  std::vector<std::vector<double>> reports_;
  std::vector<bool> received_;
  int received_count_ = 0;
};

}  // namespace fedsim::baselines
