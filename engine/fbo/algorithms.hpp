#pragma once
/// The per-iteration decisions of standard TS, FTS (FTS Algorithm 1) and FTS-DE / DP-FTS /
/// DP-FTS-DE (DP-FTS-DE Algorithm 2), as pure functions over an agent's state.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/schedules.hpp"

namespace fedsim::fbo {

enum class Algorithm { ts, fts, fts_de, dp_fts, dp_fts_de };
/// The engine's name of a variant, for its own messages; the scenario's names are those of
/// actors/algorithms/ (a test checks they agree).
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

/// The messages an FTS agent may draw from, with the preference distribution P_N (uniform over
/// the other agents that sent one). The pool is a view of one round's messages that every
/// agent's pool shares (an actor's broadcast buffer, the loop's buffer of the round): of its
/// own it holds only which messages it has drawn (one-shot setting, a bit each) and how many
/// are left, so N agents' pools do not hold N pointers and weights each. The viewed storage
/// must outlive the pool's use of it and stay unchanged: reset the pool after replacing it.
class FtsMessagePool {
 public:
  /// remove_after_use: FTS's one-shot setting (each message used once, then P_N renormalised);
  /// false for the general setting where messages are refreshed every round.
  explicit FtsMessagePool(bool remove_after_use) : remove_after_use_(remove_after_use) {}
  /// Replaces the pool: `count` messages of `dim` doubles, message k at joint + k * dim, sent by
  /// agent sources[k]. Sources must be strictly ascending (agent order is the order of P_N's
  /// draw; std::invalid_argument otherwise). The owner, `exclude`, gets weight 0 if it is a
  /// source; the others weight 1.
  void reset(const double* joint, const std::int32_t* sources, std::size_t count, int dim,
             int exclude);
  bool empty() const { return total_ <= 0.0; }
  /// Draws m ~ P_N, returns a view of its message and (in one-shot mode) removes it; `source`
  /// gets the sending agent's id.
  Eigen::Map<const Eigen::VectorXd> draw(RandomStream& rng, int* source);

  /// The draw weights, one per message in order: 1, or 0 for the owner's and (one-shot mode)
  /// the messages drawn. With the messages, all a checkpoint needs to put a pool back as it
  /// was: restore_weights() follows a reset() with the same messages.
  std::vector<double> weights() const;
  double total() const { return total_; }
  void restore_weights(const std::vector<double>& weights, double total);

 private:
  bool drawable(std::size_t k) const {
    return static_cast<std::ptrdiff_t>(k) != exclude_ && !(remove_after_use_ && used_[k]);
  }

  bool remove_after_use_;
  const double* joint_ = nullptr;
  const std::int32_t* sources_ = nullptr;
  std::size_t count_ = 0;
  int dim_ = 0;
  std::ptrdiff_t exclude_ = -1;  ///< the owner's own message, -1 when it sent none
  std::vector<bool> used_;       ///< one-shot mode: the messages drawn already
  double total_ = 0.0;           ///< the drawable messages (a double: the draw scales by it)
};

/// FTS Algorithm 1 lines 2-7 (empty pool: local TS).
Choice fts_choose(const FboAgent& agent, int t, FtsMessagePool& pool, PSchedule schedule,
                  bool p1_equals_p2, RandomStream& rng);

}  // namespace fedsim::fbo
