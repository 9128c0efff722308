#pragma once
/// The per-iteration decisions of standard TS, FTS (FTS Algorithm 1) and FTS-DE / DP-FTS /
/// DP-FTS-DE (DP-FTS-DE Algorithm 2), as pure functions over an agent's state.
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/schedules.hpp"

namespace fedsim::fbo {

enum class Algorithm { ts, fts, fts_de, dp_fts, dp_fts_de };
Algorithm parse_algorithm(const std::string& name);  ///< ts, fts, fts-de, dp-fts, dp-fts-de
std::string to_string(Algorithm algorithm);

/// Which rule chose a query: the initial design, local TS, or the federated information.
enum class Branch { init, local, federated };
std::string to_string(Branch branch);

struct Choice {
  Point point;       ///< the point to query (a candidate's index, or -1 on a box)
  Branch branch = Branch::local;
  int source = -1;   ///< FTS: the agent whose message was used
};

/// Standard TS.
Choice ts_choose(const FboAgent& agent, RandomStream& rng);

/// DP-FTS-DE Algo 2 lines 4-8: with probability p_t local TS, else the argmax of the
/// reconstructed per-sub-region function of the last broadcast. joint == nullptr (nothing
/// broadcast yet, or the server stopped releasing) means local TS.
Choice de_choose(const FboAgent& agent, int t, const Eigen::Ref<const Eigen::MatrixXd>* joint,
                 PSchedule schedule, bool p1_equals_p2, RandomStream& rng);

/// The messages an FTS agent may draw from, with the preference distribution P_N.
/// A weight of 0 marks a straggler (no message) or a message already used. The pool holds
/// views: the vectors stay in the caller's storage (an actor's shared broadcast buffer), which
/// must outlive the pool's use of them and stay unchanged — assigning to a vector (even moving
/// into it) invalidates its view, so reset the pool after replacing the messages.
class FtsMessagePool {
 public:
  /// remove_after_use: FTS's one-shot setting (each message used once, then P_N renormalised);
  /// false for the general setting where messages are refreshed every round.
  explicit FtsMessagePool(bool remove_after_use) : remove_after_use_(remove_after_use) {}
  /// Replaces the pool: messages[m] points at agent m's `dim` doubles, or is nullptr when it
  /// sent nothing (weight 0). exclude (the owner itself) gets weight 0. Uniform P_N over the rest.
  void reset(const std::vector<const double*>& messages, int dim, int exclude);
  /// The same for vectors held as Eigen vectors (all of one size).
  void reset(const std::vector<const Eigen::VectorXd*>& messages, int exclude);
  bool empty() const { return total_ <= 0.0; }
  /// Draws m ~ P_N, returns a view of its message and (in one-shot mode) removes it.
  Eigen::Map<const Eigen::VectorXd> draw(RandomStream& rng, int* source);

  /// The draw weights (one-shot mode zeroes each message drawn): with the messages, all a
  /// checkpoint needs to put a pool back as it was. restore_weights() follows a reset() with
  /// the same messages.
  const std::vector<double>& weights() const { return weights_; }
  double total() const { return total_; }
  void restore_weights(std::vector<double> weights, double total);

 private:
  bool remove_after_use_;
  std::vector<const double*> messages_;
  int dim_ = 0;
  std::vector<double> weights_;
  double total_ = 0.0;
};

/// FTS Algorithm 1 lines 2-7 (empty pool: local TS).
Choice fts_choose(const FboAgent& agent, int t, FtsMessagePool& pool, PSchedule schedule,
                  bool p1_equals_p2, RandomStream& rng);

}  // namespace fedsim::fbo
