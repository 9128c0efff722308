#pragma once
/// A server's round policy: everything that differs between sync, deadline, quorum, async, ...
/// is asked of one object, chosen once from the scenario's policy.kind (registry.hpp). The
/// server keeps the mechanics (validation, membership, timers, aggregation); the policy decides:
///  - what to do with a validated report for round r while round c is being collected;
///  - when the round being collected is complete;
///  - which timers to arm and how long they wait;
///  - the weight of a vector that is `staleness` rounds old when it is aggregated, or that it
///    is too stale to be aggregated;
///  - whether agents wait for a round's broadcast before their next iteration;
///  - which algorithm families it can serve.
/// Policies are pure C++ (no actors, no I/O) and are unit-tested by feeding them reports and
/// counts (tests/actors/policy/).
#include <limits>
#include <optional>

#include "actors/algorithms/family.hpp"

namespace fedsim::scenario {
struct PolicyConfig;
}

namespace fedsim::actors::policy {

/// The algorithm families a server runs: FBO (FTS, FTS-DE, DP-FTS(-DE)) and the federated
/// X-armed bandits (Fed-PNE, DP-Fed-PNE), whose phases close on every live client's means.
using algorithms::Family;

/// What becomes of a validated report for round r while the server collects round c (r <= c).
enum class Verdict {
  keep,       ///< the agent's vector for this round (replacing one it sent earlier)
  buffer,     ///< added to the agent's reports for the next aggregation (several allowed)
  carry,      ///< late (r < c), counted as late, and joins round c
  late,       ///< late (r < c): counted as late and dropped
  duplicate,  ///< round c already has this agent's vector: dropped
};

/// The server's counts when it asks whether the round is complete.
struct Tally {
  int agents = 0;                 ///< N
  int expected = 0;               ///< agents neither done nor presumed dead
  int contributors = 0;           ///< agents with something to aggregate this round
  bool all_expected_contributed = false;
  int arrivals = 0;               ///< reports kept (keep, buffer) since the last aggregation
};

constexpr double never = std::numeric_limits<double>::infinity();

class RoundPolicy {
 public:
  virtual ~RoundPolicy() = default;

  /// A validated report for round `round` from an agent, while round `current` is collected
  /// (round <= current); `has_vector`: the agent already has a vector for round `current`.
  virtual Verdict on_report(int round, int current, bool has_vector) const = 0;

  /// The round being collected can be aggregated now.
  virtual bool complete(const Tally& t) const = 0;

  /// Seconds from a round's broadcast to its timeout or deadline, per unit of work (the FBO
  /// server multiplies by n_init in round 0, the Fed-PNE server by a phase's pulls per
  /// client); `never` (or 0) arms no timer.
  virtual double round_wait() const = 0;
  /// The PolicyConfig member round_wait() comes from, for messages naming its scenario key
  /// (policy::keys::of); nullptr if it has none.
  virtual double scenario::PolicyConfig::*round_wait_field() const { return nullptr; }

  /// The PolicyConfig member holding the count of arrivals that alone closes a round (fedbuff's
  /// buffer), for the warning that it can never be reached; nullptr if there is none.
  virtual int scenario::PolicyConfig::*arrivals_field() const { return nullptr; }

  /// Seconds between periodic aggregations, independent of rounds; 0: none.
  virtual double period() const { return 0.0; }

  /// The weight of a vector `staleness` (>= 0) rounds old at aggregation; nothing: too stale,
  /// dropped (and counted).
  virtual std::optional<double> weight(int staleness) const {
    (void)staleness;
    return 1.0;
  }

  /// Agents wait for round t's broadcast before iteration t + 1 (else they never wait and use
  /// the newest broadcast they have).
  virtual bool agents_wait() const = 0;

  virtual bool supports(Family f) const = 0;
};

}  // namespace fedsim::actors::policy
