#pragma once
/// The server actor: wraps the engine's aggregation (fbo::DeServer for FTS-DE / DP-FTS /
/// DP-FTS-DE, a relay of every vector for FTS) and a round policy:
///  sync     - wait for every agent not presumed dead (a round times out after round_timeout);
///  deadline - aggregate at broadcast + D what arrived (earlier if all did); late vectors are
///             dropped or carried into the next round, counted either way;
///  quorum   - aggregate at the first K reports, with the deadline as a fallback;
///  async    - agents never wait; aggregate every K arrivals or every period, dropping vectors
///             staler than max_staleness rounds and weighting the rest by staleness.
/// Round 0 follows the initial design (n_init evaluations), so its timeout or deadline is
/// n_init times the configured one.
/// Under every policy an agent is presumed dead after `dead_after_missed` rounds in a row
/// without its vector, or on the network's crash notice, and alive again when it reports.
/// Every report is validated (member, round, dimension, finite, norm); rejects are counted
/// and never aggregated. Private releases are charged to the accountant first; when it refuses,
/// the server stops releasing and agents continue with local TS.
#include <memory>
#include <optional>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
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
};

/// Reports with a norm above this are malformed (no honest omega comes near it).
constexpr double max_report_norm = 1e6;

struct ServerState {
  std::shared_ptr<const ServerShared> shared;
  std::optional<fbo::DeServer> de;
  int round = 0;              ///< the round being collected
  bool open = false;          ///< collecting for `round`
  bool stopped = false;       ///< every agent done or dead: no more rounds
  bool releasing = true;      ///< false once the privacy budget refused a release
  bool round_timer_armed = false;   ///< the current round's timeout/deadline is pending
  bool period_timer_armed = false;  ///< async: the period timer is pending
  std::vector<Eigen::VectorXd> vectors;      ///< per agent, for the current round (size 0: none)
  std::vector<std::int32_t> vector_round;    ///< round each stored vector was meant for
  std::vector<char> done, presumed_dead;
  std::vector<int> missed;
  int arrivals = 0;           ///< async: reports since the last aggregation
  int expected_count = 0;     ///< agents neither done nor presumed dead
  int stored_count = 0;       ///< agents with a vector this round
  int expected_with_vector = 0;
  int late = 0, dropped = 0, rejected = 0;   ///< this round's counts
  std::uint64_t event_seq = 0;
  double now = 0.0;
  static inline const char* name = "server";
};

caf::behavior server_actor(caf::stateful_actor<ServerState>* self,
                           std::shared_ptr<const ServerShared> shared);

}  // namespace fedsim::actors
