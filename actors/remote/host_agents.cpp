#include "actors/remote/host_agents.hpp"

#include <chrono>
#include <thread>

#include <caf/io/all.hpp>

#include "actors/agent.hpp"
#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "actors/logging.hpp"
#include "actors/messages.hpp"
#include "actors/remote/gatekeeper.hpp"
#include "actors/remote/join_auth.hpp"
#include "actors/world_objective.hpp"

namespace fedsim::actors::remote {
namespace {

std::string endpoint(const HostOptions& o) { return o.host + ":" + std::to_string(o.port); }

/// The server's gatekeeper, retrying until connect_timeout.
caf::actor connect(caf::actor_system& system, const HostOptions& o) {
  const auto give_up = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(o.connect_timeout));
  std::string last;
  for (;;) {
    auto gatekeeper = connect_actor(system, o.host, o.port, o.tls);
    if (gatekeeper) return *gatekeeper;
    last = system.render(gatekeeper.error());
    if (std::chrono::steady_clock::now() >= give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", o.connect_timeout);
  throw HostError("cannot reach the server at " + endpoint(o) + " within " + seconds +
                  " s (is `fedsim serve` listening there?): " + last);
}

/// A request's answer; JoinRefused when the gatekeeper refused, else HostError with the error.
template <class T, class... Ts>
T ask(caf::scoped_actor& self, const HostOptions& o, const caf::actor& dest, Ts&&... xs) {
  T out{};
  std::string failure, refusal;
  self->request(dest, std::chrono::seconds(30), std::forward<Ts>(xs)...)
      .receive([&](T& x) { out = std::move(x); },
               [&](caf::error& e) {
                 failure = describe_failure(e);
                 refusal = join_refusal_reason(e);
               });
  if (!refusal.empty())
    throw JoinRefused("the server at " + endpoint(o) + " refused the join of agents " +
                          format_id_list(o.ids) + ": " + refusal,
                      refusal);
  if (!failure.empty()) throw HostError("server at the gatekeeper: " + failure);
  return out;
}

}  // namespace

void host_agents(caf::actor_system& system, const HostOptions& o) {
  if (o.ids.empty()) throw std::invalid_argument("host_agents: no agent ids");
  if (!o.parse) throw std::invalid_argument("host_agents: HostOptions::parse is required");
  const caf::actor gatekeeper = connect(system, o);
  caf::scoped_actor self{system};
  const join_challenge challenge = ask<join_challenge>(self, o, gatekeeper, join_hello{o.ids});
  join_welcome welcome = ask<join_welcome>(
      self, o, gatekeeper, join_proof{o.ids, challenge.nonce, join_mac(o.secret, challenge.nonce, o.ids)});
  if (welcome.proxies.size() != o.ids.size())
    throw HostError("the server sent " + std::to_string(welcome.proxies.size()) +
                    " stand-ins for " + std::to_string(o.ids.size()) + " ids");
  scenario::ScenarioConfig config;
  try {
    config = o.parse(welcome.scenario);
  } catch (const std::exception& e) {
    throw HostError(std::string("the server's scenario: ") + e.what());
  }
  const auto objective = o.objective ? o.objective : make_world_objective(config, o.out_dir);
  check_fbo_objective(*objective, config.world.agents);
  std::vector<caf::actor> agents;
  const auto base = make_agent_shared(config, objective, caf::actor{}, caf::actor{});
  for (std::size_t k = 0; k < o.ids.size(); ++k) {
    auto shared = std::make_shared<AgentShared>(*base);
    shared->network = welcome.proxies[k];
    shared->recorder = welcome.proxies[k];
    agents.push_back(system.spawn(agent_actor, static_cast<node_id>(o.ids[k]),
                                  std::shared_ptr<const AgentShared>(std::move(shared))));
    self->monitor(agents.back());
  }
  self->monitor(gatekeeper);
  try {
    ask<caf::ok_atom>(self, o, gatekeeper, join_agents{o.ids, agents});
  } catch (...) {
    for (const auto& a : agents) self->send_exit(a, caf::exit_reason::user_shutdown);
    throw;
  }
  logger("remote")->info("agents {} joined the run '{}' at {}", format_id_list(o.ids), config.name,
                         endpoint(o));
  if (o.on_joined) o.on_joined(config);
  // Until every agent is down: stopped by the run (user_shutdown), failed (its error), or the
  // server's node gone (then the agents are stopped here).
  std::size_t running = agents.size();
  std::string failure;
  bool server_lost = false;
  self->receive_while([&] { return running > 0; })(
      [&](caf::down_msg& d) {
        if (d.source == gatekeeper.address()) {
          server_lost = true;
          return;
        }
        --running;
        if (d.reason && d.reason != caf::exit_reason::user_shutdown && failure.empty())
          failure = describe_failure(d.reason);
      },
      caf::after(std::chrono::seconds(2)) >> [&] {
        // The server's stop orders come before its node goes down: 2 s after it went, whoever
        // still runs was not stopped by the run.
        if (!server_lost) return;
        for (const auto& a : agents) self->send_exit(a, caf::exit_reason::user_shutdown);
        if (failure.empty())
          failure = "lost the server at " + endpoint(o) + " before the run stopped the agents";
      });
  if (!failure.empty()) throw HostError(failure);
}

void host_agents(const HostOptions& options, int threads) {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  configure_network(cfg, options.tls);
  configure_scheduler(cfg, threads);
  caf::actor_system system{cfg};
  host_agents(system, options);
}

}  // namespace fedsim::actors::remote
