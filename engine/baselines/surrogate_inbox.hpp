#pragma once
/// The target agent's received surrogates (RGPE, TAF): every payload is checked
/// (check_surrogate_payload) before use, a malformed one is rejected with its reason and
/// counted, never used. Kept in ascending order of the sending agent, so the ensemble's order
/// (and every result) does not depend on the order messages arrived in. A later message from
/// the same agent replaces its earlier one (FTS appendix D.2.1's general setting, where t_n
/// grows between rounds); in the one-shot setting each agent sends once.
#include <string>
#include <vector>

#include "engine/baselines/feature_surrogate.hpp"

namespace fedsim::baselines {

class SurrogateInbox {
 public:
  /// M features, the shared lambda, the payload kind expected. Throws std::invalid_argument
  /// unless M >= 1 and lambda is a finite number > 0.
  SurrogateInbox(int num_features, double lambda, SurrogatePayload kind);

  /// Checks and keeps agent `source`'s payload. Returns "" when accepted, else why it was
  /// rejected (the rejection is counted and the inbox is otherwise unchanged).
  std::string receive(int source, const std::vector<double>& payload);

  /// The accepted surrogates and their senders, in ascending sender order.
  const std::vector<FeatureSurrogate>& surrogates() const { return surrogates_; }
  const std::vector<int>& sources() const { return sources_; }
  int size() const { return static_cast<int>(sources_.size()); }
  int rejected() const { return rejected_; }
  SurrogatePayload kind() const { return kind_; }

  /// Everything a checkpoint needs: the accepted payloads (as received) with their senders,
  /// and the rejection count. restore() rebuilds the surrogates from them (the same bits).
  struct State {
    std::vector<int> sources;
    std::vector<std::vector<double>> payloads;
    int rejected = 0;
  };
  State state() const;
  /// Replaces this inbox's contents by `state`'s. Throws std::invalid_argument if a payload
  /// of it is malformed or the senders are not strictly ascending.
  void restore(const State& state);

 private:
  int num_features_;
  double lambda_;
  SurrogatePayload kind_;
  std::vector<int> sources_;
  std::vector<std::vector<double>> payloads_;
  std::vector<FeatureSurrogate> surrogates_;
  int rejected_ = 0;
};

}  // namespace fedsim::baselines
