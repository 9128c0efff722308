#pragma once
/// A group of a served federation's agents hosted in this process (fedsim agents, or a larger
/// system's own actor system): connects to the server's gatekeeper (actors/remote/serve.hpp),
/// authenticates with the shared secret, receives the run's scenario and one stand-in per id,
/// spawns the agents here (each evaluates its objective here: the scenario's, or the caller's
/// own), hands them over, and waits until the run stops them.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/run_config.hpp"
#include "actors/remote/tls.hpp"
#include "engine/objectives/federated_objective.hpp"

namespace fedsim::actors::remote {

struct HostOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string secret;
  std::vector<std::uint32_t> ids;  ///< sorted, unique (parse_id_list)
  /// TLS (actors/remote/tls.hpp), as the server uses; none: plain TCP.
  TlsFiles tls;
  /// Seconds to keep trying to reach the server (it may not be listening yet).
  double connect_timeout = 30;
  /// Folder for what the objective writes here (a command objective's worker logs).
  std::string out_dir = "out/agents";
  /// The scenario text the server sends -> its configuration (fedsim's loader:
  /// scenario::load_scenario_text(text, "<server>").config). Required.
  std::function<scenario::ScenarioConfig(const std::string&)> parse;
  /// This process's own objective for its agents (FBO family); null: the scenario's.
  std::shared_ptr<const FederatedObjective> objective;
  /// Called once the agents run here, with the scenario (e.g. to print what joined).
  std::function<void(const scenario::ScenarioConfig&)> on_joined;
};

/// Why hosting failed: the server unreachable, the join refused (what() has the server's
/// reason), the server lost mid-run, or an agent here failed (what() names it).
struct HostError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The server refused the join: a wrong secret, ids taken or out of range (`reason`, the
/// gatekeeper's words; gatekeeper.hpp). A mistake in how the process was started, not a
/// failure of the run.
struct JoinRefused : HostError {
  JoinRefused(const std::string& what, std::string why) : HostError(what), reason(std::move(why)) {}
  std::string reason;
};

/// Blocks until the run is over (the server stopped the agents: returns normally) or hosting
/// failed (throws HostError; JoinRefused when the server refused the join). `system` must have
/// add_fedsim_types and configure_network(tls).
void host_agents(caf::actor_system& system, const HostOptions& options);

/// The same in its own actor system with `threads` scheduler threads (0: CAF's default).
void host_agents(const HostOptions& options, int threads);

}  // namespace fedsim::actors::remote
