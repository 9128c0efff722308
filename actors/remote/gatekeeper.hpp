#pragma once
/// The actor `fedsim serve` publishes: the only one a process that has not joined can reach.
/// It admits agent processes (actors/remote/join_auth.hpp, messages.hpp's join_* messages):
///  1. join_hello{ids} -> join_challenge{fresh nonce}: refused when the ids are empty, repeat,
///     lie outside 0 .. N-1, or are taken (or, for a rejoin, not free again yet);
///  2. join_proof{ids, nonce, HMAC} -> join_welcome{scenario, proxies}: refused when the nonce
///     is not one it gave this node for these ids, or was already answered (each nonce is
///     spent by its first answer, right or wrong: a replayed answer finds it gone), or the HMAC
///     is wrong; the ids are then the node's, and the port's guard lifts its pre-join limits;
///  3. join_agents{ids, agents} -> ok: only from the node holding those ids, with one agent of
///     that node per id; each proxy gets its agent.
/// Every refusal is an error reply naming the reason, a warning in the log and a count in
/// RemoteStats. Nothing a refused peer sends reaches a proxy, the network, the server or the
/// accountant: their handles are only ever given to an authenticated node.
/// It tells `driver` of each group that joins (join_atom, ids, ids joined so far), and sends it
/// (ok_atom) when every id has an agent for the first time. (get_atom) -> the ids without one;
/// (get_atom, node) -> the ids a node holds.
/// (lost_atom, id) from a proxy frees the id (its process is gone) for a rejoin; the ids a node
/// lost are warned of in one line.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/remote/frame_guard.hpp"
#include "actors/remote/remote_stats.hpp"

namespace fedsim::actors::remote {

struct GatekeeperSettings {
  std::string secret;
  std::string scenario;  ///< resolved TOML sent to each joined process
  std::vector<caf::actor> proxies;  ///< one per agent id
  caf::actor driver;
  std::shared_ptr<RemoteStats> stats;
  /// Nonces outstanding at once (answered or not): beyond, the oldest is forgotten.
  std::size_t max_nonces = 1024;
  /// The listening port's guard (frame_guard.hpp), told of each node whose proof was right so
  /// that its connection may carry more than a join; null: none (CAF's own backend).
  ConnectionGuard* guard = nullptr;
};

struct GatekeeperState {
  GatekeeperSettings settings;
  struct Challenge {
    caf::node_id node;
    std::vector<std::uint32_t> ids;
    std::uint64_t order;
  };
  std::map<std::vector<std::uint8_t>, Challenge> challenges;
  std::uint64_t issued = 0;
  /// Per id: the node it was granted to (after a proof), and whether its agent came.
  std::vector<caf::node_id> owner;
  std::vector<bool> joined;
  bool complete = false;  ///< every id joined once (the driver was told)
  /// Ids lost lately, by node: one warning per node, a moment after its first loss.
  std::map<caf::node_id, std::vector<std::uint32_t>> lost;
  static inline const char* name = "gatekeeper";
};

caf::behavior gatekeeper_actor(caf::stateful_actor<GatekeeperState>* self,
                               GatekeeperSettings settings);

/// The error a refusal answers: "join refused: REASON".
caf::error join_refusal(const std::string& reason);
/// The REASON of an error join_refusal made ("wrong secret", "id 3 already taken"), or "" when
/// `e` is another error (a timeout, a lost connection).
std::string join_refusal_reason(const caf::error& e);

}  // namespace fedsim::actors::remote
