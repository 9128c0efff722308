#pragma once
/// The stand-in, in the server's process, for one agent hosted by another process (fedsim
/// serve). The network is wired to the proxy as if it were the agent; the remote agent is wired
/// to the proxy as if it were the network and the recorder.
///
/// Order. A delivery from the network is forwarded to the agent as a request, and the proxy
/// answers the network only once the agent has answered it. Everything the agent sent while
/// handling the delivery reached the proxy before that answer (CAF keeps per-pair order
/// across nodes) and was forwarded first, so the network queues it before its clock moves on:
/// in virtual time the run is the same event for event as with the agent in-process.
///
/// Untrusted input. Every message from the remote side is checked before use and dropped,
/// counted by reason (RemoteStats), if it fails: it must come from the agent that joined for
/// this id; an envelope must be from the id, to the server or the id itself, carry a report
/// (this agent's, sealed, `features` finite values, a round >= 0: the server rejects a
/// round it has not opened, as it does for any agent), an agent_done
/// or a timer (to itself); an observation or a failed-evaluation line must be this agent's,
/// with `dimension` coordinates; a stop request of its circuit breaker ((close_atom, why) to the
/// network) must name this agent; nothing may exceed max_message_bytes.
///
/// Loss. The proxy monitors the agent. If its process is lost (CAF's node down), in virtual
/// time the proxy fails, naming the agent, which ends the run (a conservative simulation cannot
/// go on without a member); in wall-clock time it answers the network's outstanding requests,
/// tells the network (lost_atom: the agent counts as crashed from now on) and the gatekeeper
/// (the id is free to join again), and a new agent for the id makes it recover (rejoin_atom).
/// When the proxy is stopped at the end of the run it stops its agent and waits (a few
/// seconds at most) until the agent's process has seen it.
#include <cstdint>
#include <memory>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/remote/remote_stats.hpp"

namespace fedsim::actors::remote {

/// Default limit on one message from a remote node (its serialized payload, estimated).
constexpr std::uint64_t default_max_message_bytes = 1u << 20;

struct ProxySettings {
  node_id id = 0;
  caf::actor network;
  caf::actor recorder;
  caf::actor gatekeeper;
  int features = 0;    ///< a report's vector length (M)
  int dimension = 0;   ///< an observation's coordinates (d)
  std::uint64_t max_message_bytes = default_max_message_bytes;
  bool wall = false;   ///< wall-clock run: a lost agent is a crash, not the end of the run
  std::shared_ptr<RemoteStats> stats;
};

struct ProxyState {
  ProxySettings settings;
  caf::actor agent;  ///< the remote agent (none until it joined, or after it was lost)
  std::uint64_t next_request = 0;
  std::map<std::uint64_t, caf::response_promise> pending;  ///< the network's, unanswered
  bool started = false;   ///< the network has delivered something
  bool stopping = false;  ///< stopped by the federation: waiting for the agent to go
  caf::error stop_reason;
  static inline const char* name = "agent proxy";
};

/// Protocol, besides the agent's own messages (above):
///  - `(add_atom, gatekeeper)`, once, from serve_federation: who may hand it its agent;
///  - `(put_atom, agent)` from the gatekeeper: the remote agent for this id (a rejoin after a
///    loss makes it recover);
///  - `(get_atom)` -> the remote agent's node (for tests and logs);
///  - `(save_atom)` -> the remote agent's state bytes, `(restore_atom, bytes)` -> ok: a
///    checkpoint's, from this process only, passed to the remote agent (60 s to answer).
caf::behavior agent_proxy_actor(caf::stateful_actor<ProxyState>* self, ProxySettings settings);

/// Why a message from the remote agent `id` must be dropped, or nullptr if it may be used.
const char* invalid_remote_envelope(const envelope& env, const ProxySettings& s);
const char* invalid_remote_observation(const observation_event& e, const ProxySettings& s);
const char* invalid_remote_event(const network_event& e, const ProxySettings& s);

}  // namespace fedsim::actors::remote
