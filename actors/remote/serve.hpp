#pragma once
/// A federation whose agents live in other processes (fedsim serve, issue 13's distributed
/// mode): this process runs the network, the server, the accountant and the recorder exactly
/// as run_federation does, publishes a gatekeeper (actors/remote/gatekeeper.hpp) on HOST:PORT
/// over CAF's middleman (BASP over TCP), waits until every agent id of the scenario has joined
/// from some process (fedsim agents, actors/remote/host_agents.hpp), and runs. The network
/// delivers to one stand-in per agent (actors/remote/agent_proxy.hpp), so in virtual time the
/// records are those of `fedsim run` byte for byte, however the agents are split.
/// FBO family only (Fed-PNE runs in one process). Checkpoints in virtual time as run_federation
/// takes them: each proxy asks its remote agent for its state; a resumed run waits for every id
/// to join again (from any processes), then restores each remote agent from the checkpoint.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actors/federation.hpp"
#include "actors/remote/agent_proxy.hpp"
#include "actors/remote/remote_stats.hpp"
#include "actors/remote/tls.hpp"

namespace fedsim::actors::remote {

struct ServeOptions {
  std::string host = "127.0.0.1";  ///< address to listen on (an IP literal or a host name)
  std::uint16_t port = 0;          ///< 0: any free port (on_listening says which)
  std::string secret;              ///< shared with the agent processes (join_auth.hpp)
  /// Seconds to wait for every agent to join before giving up (the run then never starts).
  double join_timeout = 60;
  std::uint64_t max_message_bytes = default_max_message_bytes;
  /// Seconds from a connection's accept to its node's verified join proof, after which the
  /// connection is closed (frame_guard.hpp: what it may send before).
  double auth_timeout = 10;
  /// The resolved scenario sent to each joining process (scenario::to_toml(config)): it builds
  /// its agents and objective from it.
  std::string scenario_text;
  /// Called once listening, with the port (e.g. to print it, or to start agent processes).
  std::function<void(std::uint16_t)> on_listening;
  /// Called each time agents join: their ids, and how many of the N have joined so far.
  std::function<void(const std::vector<std::uint32_t>&, int joined, int total)> on_join;
  /// TLS (actors/remote/tls.hpp); none: plain TCP. The actor system must have been configured
  /// with the same files (configure_network).
  TlsFiles tls;
  /// Filled during the run (joins, refusals, dropped messages, lost agents); null: none kept.
  std::shared_ptr<RemoteStats> stats;
};

/// A serve that could not start its run: the endpoint could not be opened, or the agents did
/// not all join within the join timeout (what() says which ids are missing).
struct ServeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs `config` (validated) with its agents elsewhere, in `system`, which must have loaded
/// CAF's middleman (configure_network(cfg, tls, serve_frame_limits(serve)): without fedsim's
/// guarded backend any peer can make the middleman allocate 4 GiB) and add_fedsim_types. options.objective and
/// options.agent_host must be unset. Throws ServeError, RunFailure
/// (a member failed, or in virtual time an agent's process was lost: it names the ids), and
/// std::invalid_argument for a scenario it cannot serve.
RunResult serve_federation(caf::actor_system& system, const scenario::ScenarioConfig& config,
                           RunOptions options, const ServeOptions& serve);

/// The same in its own actor system (configure_network(serve.tls), options.threads threads).
RunResult serve_federation(const scenario::ScenarioConfig& config, RunOptions options,
                           const ServeOptions& serve);

/// The listening port's limits for `serve` (frame_guard.hpp): a joined agent's frames at most
/// 4 x max_message_bytes + 64 KiB (a message the proxies would drop as oversized is still read
/// and counted; one far beyond closes the connection), the join within auth_timeout. Pass them
/// to configure_network for an actor system of one's own.
FrameLimits serve_frame_limits(const ServeOptions& serve);

/// "HOST:PORT" -> (host, port); the port may be 0. Throws std::invalid_argument naming `what`.
std::pair<std::string, std::uint16_t> parse_endpoint(const std::string& text, const std::string& what);

}  // namespace fedsim::actors::remote
