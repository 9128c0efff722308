#pragma once
/// Splitting one labelled data set over N agents the way the federated-learning literature does
/// (issue 14 item 2): label skew by a Dirichlet(alpha) draw per class over the agents (Hsu, Qi
/// and Brown 2019), quantity skew by a lognormal weight per agent, and per agent a train and a
/// validation half (as the DP-FTS-DE paper's real-world experiments hold them). Every draw comes
/// from keyed streams of the run seed, so a split is the same across runs, thread counts and
/// processes.
#include <cstdint>
#include <limits>
#include <vector>

namespace fedsim::data {

struct SplitConfig {
  int agents = 10;
  /// Label skew: class c's samples are shared out by proportions p_c ~ Dirichlet(alpha, ..., alpha)
  /// over the agents. Small alpha (0.1): each agent holds few classes; large: near IID;
  /// infinity: exactly proportional shares (IID up to rounding).
  double alpha = 0.5;
  /// Quantity skew: agent n's weight w_n = exp(sigma z_n), z_n ~ N(0, 1), multiplies its share
  /// of every class (then renormalised per class); 0: none.
  double quantity_sigma = 0.0;
  /// Every agent must hold at least this many samples (half for training, half for validation):
  /// a split that leaves one with fewer is drawn again, up to `max_attempts` times.
  int min_per_agent = 4;
  int max_attempts = 1000;
  /// Throws std::invalid_argument naming the field (agents >= 1, alpha > 0, quantity_sigma
  /// finite >= 0, min_per_agent >= 0, max_attempts >= 1).
  void validate() const;
};

/// Agent n's sample indices (ascending) for labels in 0 .. classes - 1. Every index belongs to
/// exactly one agent. Attempt k draws from the stream (seed, "data.split", k). Throws
/// std::invalid_argument on a label outside 0 .. classes - 1, and std::runtime_error naming the
/// numbers when no attempt gives every agent min_per_agent samples (too many agents for the
/// data, or a too extreme skew).
std::vector<std::vector<int>> federated_split(const std::vector<int>& labels, int classes,
                                              const SplitConfig& config, std::uint64_t seed);

/// An agent's samples, halved.
struct Shard {
  std::vector<int> train;       ///< the larger half when odd
  std::vector<int> validation;
};

/// Shuffles `indices` with the stream (seed, "data.halve", agent) and halves them.
Shard halve(const std::vector<int>& indices, std::uint64_t seed, int agent);

}  // namespace fedsim::data
