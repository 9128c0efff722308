#include "actors/remote/serve.hpp"

#include <chrono>
#include <stdexcept>

#include <caf/io/all.hpp>

#include "actors/logging.hpp"
#include "actors/remote/gatekeeper.hpp"
#include "actors/remote/guarded_multiplexer.hpp"
#include "actors/remote/join_auth.hpp"

namespace fedsim::actors::remote {

std::pair<std::string, std::uint16_t> parse_endpoint(const std::string& text, const std::string& what) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw std::invalid_argument(what + " '" + text + "': expected HOST:PORT, e.g. 127.0.0.1:4242");
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = text.substr(colon + 1);
  unsigned long port = 0;
  std::size_t used = 0;
  try {
    port = std::stoul(port_text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != port_text.size() || port > 65535 || port_text[0] == '-' || port_text[0] == '+')
    throw std::invalid_argument(what + " '" + text + "': the port must be an integer in 0 .. 65535");
  return {host, static_cast<std::uint16_t>(port)};
}

FrameLimits serve_frame_limits(const ServeOptions& serve) {
  FrameLimits limits;
  limits.max_frame_bytes = 4 * serve.max_message_bytes + (64u << 10);
  limits.auth_timeout = std::chrono::milliseconds(static_cast<long long>(serve.auth_timeout * 1000));
  return limits;
}

RunResult serve_federation(caf::actor_system& system, const scenario::ScenarioConfig& config,
                           RunOptions options, const ServeOptions& serve) {
  if (config.xarmed.enabled)
    throw std::invalid_argument("fedsim serve: a Fed-PNE / DP-Fed-PNE run keeps its clients in "
                                "one process (fedsim run); serve hosts the FBO family");
  if (options.objective || options.agent_host)
    throw std::invalid_argument("serve_federation: the agents evaluate their own objective "
                                "where they live: leave RunOptions::objective and agent_host unset");
  if (serve.secret.size() < min_secret_bytes)
    throw std::invalid_argument("serve: the shared secret must have at least " +
                                std::to_string(min_secret_bytes) + " bytes");
  if (!(serve.join_timeout > 0) || serve.join_timeout > 1e6)
    throw std::invalid_argument("serve: the join timeout must be in (0, 1e6] seconds");
  if (!(serve.auth_timeout >= 0.01) || serve.auth_timeout > 1e6)
    throw std::invalid_argument("serve: the authentication timeout must be in [0.01, 1e6] seconds");
  const auto stats = serve.stats ? serve.stats : std::make_shared<RemoteStats>();
  caf::actor gatekeeper;
  options.agent_host = [&](const AgentSlots& slots) {
    caf::scoped_actor self{system};
    std::vector<caf::actor> proxies;
    ProxySettings base;
    base.network = slots.network;
    base.recorder = slots.recorder;
    base.features = slots.features;
    base.dimension = slots.dimension;
    base.max_message_bytes = serve.max_message_bytes;
    base.wall = config.run.wall();
    base.stats = stats;
    // The proxies need the gatekeeper's handle and the gatekeeper theirs: the proxies first,
    // told of the gatekeeper once it exists (only from the caller's scoped actor).
    for (int n = 0; n < slots.agents; ++n) {
      ProxySettings p = base;
      p.id = static_cast<node_id>(n);
      proxies.push_back(system.spawn(agent_proxy_actor, std::move(p)));
    }
    GatekeeperSettings g;
    g.secret = serve.secret;
    g.scenario = serve.scenario_text;
    g.proxies = proxies;
    g.driver = self;
    g.stats = stats;
    g.guard = connection_guard(system);
    ConnectionGuard* guard = g.guard;
    gatekeeper = system.spawn(gatekeeper_actor, std::move(g));
    if (guard != nullptr) guard->expect_gatekeeper(gatekeeper.id());
    // The run never starts: agents that joined are stopped with the reason.
    auto stop_all = [&](const std::string& why) {
      for (const auto& p : proxies)
        self->send_exit(p, caf::make_error(caf::sec::runtime_error, "the server gave up: " + why));
      self->send_exit(gatekeeper, caf::exit_reason::user_shutdown);
    };
    for (const auto& p : proxies) self->send(p, caf::add_atom::value, gatekeeper);
    auto port = publish_actor(system, gatekeeper, serve.host, serve.port, serve.tls);
    if (!port) {
      stop_all("cannot listen");
      throw ServeError("cannot listen on " + serve.host + ":" + std::to_string(serve.port) + ": " +
                       system.render(port.error()));
    }
    logger("remote")->info("listening on {}:{} for {} agents", serve.host, *port, slots.agents);
    if (serve.on_listening) serve.on_listening(*port);
    bool complete = false;
    self->monitor(gatekeeper);
    self->receive_while([&] { return !complete; })(
        [&](caf::ok_atom) { complete = true; },
        [&](caf::down_msg& d) {  // only exit_reason::kill gets past its exit handler
          const std::string why = "the gatekeeper was stopped before every agent joined (" +
                                  system.render(d.reason) + "): a peer that reached " +
                                  serve.host + ":" + std::to_string(*port) +
                                  " ended it (use TLS, or a trusted network)";
          stop_all(why);
          system.middleman().unpublish(gatekeeper, *port);
          throw ServeError(why);
        },
        [&](caf::join_atom, std::vector<std::uint32_t>& ids, std::int32_t joined) {
          if (serve.on_join) serve.on_join(ids, joined, slots.agents);
        },
        caf::after(std::chrono::milliseconds(static_cast<long long>(serve.join_timeout * 1000))) >> [&] {
          std::vector<std::uint32_t> missing;
          self->request(gatekeeper, caf::infinite, caf::get_atom::value)
              .receive([&](std::vector<std::uint32_t>& m) { missing = std::move(m); },
                       [&](caf::error&) {});
          system.middleman().unpublish(gatekeeper, *port);
          char when[64];
          std::snprintf(when, sizeof when, "%g", serve.join_timeout);
          const std::string why =
              missing.size() == static_cast<std::size_t>(slots.agents)
                  ? "no agent joined within the join timeout (" + std::string(when) +
                        " s): is `fedsim agents --connect " + serve.host + ":" +
                        std::to_string(*port) + "` running, with the same secret?"
                  : "agents " + format_id_list(missing) + " of " + std::to_string(slots.agents) +
                        " did not join within the join timeout (" + std::string(when) + " s)";
          stop_all(why);
          throw ServeError(why);
        });
    self->demonitor(gatekeeper);
    return proxies;
  };
  // From an actor of this process: the gatekeeper ignores exit messages from anywhere else.
  auto stop_gatekeeper = [&] {
    if (gatekeeper) caf::scoped_actor{system}->send_exit(gatekeeper, caf::exit_reason::user_shutdown);
  };
  RunResult result;
  try {
    result = run_federation(system, config, options);
  } catch (...) {
    stop_gatekeeper();
    throw;
  }
  stop_gatekeeper();
  result.remote = stats->snapshot();
  if (const ConnectionGuard* guard = connection_guard(system)) {
    const GuardCounts g = guard->counts();
    result.remote->connections = static_cast<std::int64_t>(g.accepted);
    for (const auto& [reason, n] : g.refused)
      result.remote->closed_connections[reason] = static_cast<std::int64_t>(n);
  }
  return result;
}

RunResult serve_federation(const scenario::ScenarioConfig& config, RunOptions options,
                           const ServeOptions& serve) {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  configure_network(cfg, serve.tls, serve_frame_limits(serve));
  configure_scheduler(cfg, options.threads);
  caf::actor_system system{cfg};
  return serve_federation(system, config, std::move(options), serve);
}

}  // namespace fedsim::actors::remote
