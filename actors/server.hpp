#pragma once
/// The server actor: wraps the engine's aggregation (fbo::DeServer for FTS-DE / DP-FTS /
/// DP-FTS-DE, a relay of every vector for FTS) and a round policy (actors/policy/: sync,
/// deadline, quorum, async, ...), chosen once from the scenario. The policy decides what a
/// report does (keep, buffer, carry, late, duplicate), when a round is complete, which timers
/// run and the staleness weight; the server validates reports, keeps the membership
/// (actors/membership.hpp), arms the timers and aggregates.
/// Round 0 follows the initial design (n_init evaluations), so its timeout or deadline is
/// n_init times the configured one.
/// Every report is validated (member, round, dimension, finite, norm: validate()); rejects are
/// counted and never aggregated. Private releases are charged to the accountant first; when it
/// refuses, the server stops releasing and agents continue with local TS.
/// Several reports of one agent in one aggregation (a buffering policy) are weighted and
/// summed into one vector per agent before the engine aggregates: DE's aggregate is linear in
/// each agent's vector, so without privacy this is exactly the weighted sum of every report;
/// with privacy the agent's summed contribution is clipped as one (its sensitivity bound).
/// On (get_atom) it answers why the run could not finish ("" if nothing stopped it).
/// Checkpoints: it tells the network (checkpoint_atom, rounds closed) after every round;
/// (save_atom) -> its state, (restore_atom, bytes) -> ok.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/membership.hpp"
#include "actors/messages.hpp"
#include "actors/outbox.hpp"
#include "actors/policy/round_policy.hpp"
#include "engine/fbo/de_server.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors {

struct ServerShared {
  fbo::ReferenceConfig config;
  scenario::PolicyConfig policy;
  std::vector<int> assignment;  ///< sub-region explored by each agent
  caf::actor network;
  caf::actor recorder;
  caf::actor accountant;        ///< only for private algorithms
  bool log_states = false;      ///< agent_state_event to the recorder (an observer wants them)
};

/// Reports with a norm above this are malformed (no honest omega comes near it).
constexpr double max_report_norm = 1e6;

/// One kept report: the round it was meant for and its vector.
struct KeptReport {
  std::int32_t round = 0;
  Eigen::VectorXd omega;
};

/// A kept report as checkpoint fields (actors/checkpoint/state_archive.hpp).
template <class Archive>
void fields(Archive& a, KeptReport& k) {
  a(k.round, k.omega);
}

struct ServerState {
  std::shared_ptr<const ServerShared> shared;
  Outbox box;  ///< envelopes sent while a delivery is handled, sent with its answer
  std::unique_ptr<policy::RoundPolicy> policy;
  std::optional<fbo::DeServer> de;
  std::optional<Membership> members;
  int round = 0;              ///< the round being collected
  bool open = false;          ///< collecting for `round`
  bool stopped = false;       ///< every agent done: no more rounds
  bool releasing = true;      ///< false once the privacy budget refused a release
  bool round_timer_armed = false;   ///< the current round's timeout/deadline is pending
  bool period_timer_armed = false;  ///< the policy's period timer is pending
  std::vector<std::vector<KeptReport>> kept;  ///< per agent, for the next aggregation
  int arrivals = 0;           ///< reports kept since the last aggregation
  int empty_periods = 0;      ///< periods in a row that had nothing to aggregate
  int late = 0, dropped = 0, rejected = 0;   ///< this round's counts
  bool learner_progressed = false;  ///< a learner reported past round 0 or finished
  std::uint64_t event_seq = 0;
  double now = 0.0;
  static inline const char* name = "server";
};

/// What is wrong with a server state restored from a checkpoint (empty if nothing), against
/// the scenario in `s.shared`: a round or count out of range, a clock that is not finite, kept
/// reports of another number of agents, of a round not yet reached, of another dimension or not
/// finite, a membership that does not fit (Membership::check) or disagrees with what is kept.
std::string check_server_state(const ServerState& s);

/// What is wrong with a payload delivered to the server, restored from a checkpoint's queue
/// (empty if it is one of the server's messages; their contents it checks as they come).
std::string check_server_delivery(const caf::message& payload);

caf::behavior server_actor(caf::stateful_actor<ServerState>* self,
                           std::shared_ptr<const ServerShared> shared);

}  // namespace fedsim::actors
