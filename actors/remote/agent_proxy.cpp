#include "actors/remote/agent_proxy.hpp"

#include <chrono>
#include <cmath>

#include "actors/failure.hpp"
#include "actors/integrity.hpp"
#include "actors/logging.hpp"
#include "actors/remote/join_auth.hpp"

namespace fedsim::actors::remote {
namespace {

using self_ptr = caf::stateful_actor<ProxyState>*;

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

/// The serialized size of a message, estimated from its variable parts.
std::uint64_t estimated_bytes(const caf::message& m) {
  if (m.match_elements<report>()) return 32 + 8 * m.get_as<report>(0).omega.size();
  return 32;
}

std::string who(const ProxySettings& s) { return "agent " + std::to_string(s.id); }

void drop(self_ptr self, const char* reason) {
  auto& s = self->state;
  s.settings.stats->dropped(reason);
  logger("remote")->warn("{}: dropped a remote message: {}", who(s.settings), reason);
}

/// Forwards a delivery of the network to the agent; the network's answer waits for the agent's.
caf::response_promise forward(self_ptr self, caf::message msg) {
  auto& s = self->state;
  // Checked before make_response_promise(), which takes the sender out of the message.
  const bool from_network =
      self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(s.settings.network);
  caf::response_promise rp = self->make_response_promise();
  if (!from_network) {
    drop(self, "delivery not from the network");
    rp.deliver(caf::ok_atom_v);
    return rp;
  }
  s.started = true;
  if (!s.agent) {  // lost (wall-clock time): the network has been told, and drops its deliveries
    rp.deliver(caf::ok_atom_v);
    return rp;
  }
  const std::uint64_t key = s.next_request++;
  s.pending.emplace(key, rp);
  self->request(s.agent, caf::infinite, std::move(msg))
      .then(
          [self, key](caf::ok_atom) {
            auto& p = self->state.pending;
            if (auto it = p.find(key); it != p.end()) {
              it->second.deliver(caf::ok_atom_v);
              p.erase(it);
            }
          },
          [self, key](caf::error& e) {
            // The agent failed (its own error names it) or its process went (the down
            // message decides what that means): either way this request is over.
            auto& s = self->state;
            if (e != caf::sec::request_receiver_down && !s.stopping) {
              self->quit(e);
              return;
            }
            if (auto it = s.pending.find(key); it != s.pending.end() && s.settings.wall) {
              it->second.deliver(caf::ok_atom_v);
              s.pending.erase(it);
            }
          });
  return rp;
}

/// A checkpoint's (save) or (restore, bytes), from the driver in this process: passed to the
/// remote agent, whose answer (its state's bytes, or ok) is the proxy's. The agent serializes
/// its own state, as in one process; the checkpoint holds it among the members' states.
template <class Answer>
caf::response_promise relay_state(self_ptr self, caf::message msg) {
  auto& s = self->state;
  const auto sender = self->current_sender();
  const bool from_here = sender && sender->node() == self->node();
  caf::response_promise rp = self->make_response_promise();
  if (!from_here) {
    drop(self, "checkpoint request not from this process");
    rp.deliver(caf::make_error(caf::sec::unexpected_message));
    return rp;
  }
  if (!s.agent) {
    rp.deliver(caf::make_error(caf::sec::runtime_error,
                               who(s.settings) + ": no agent to take the state of (its process is gone)"));
    return rp;
  }
  self->request(s.agent, std::chrono::seconds(60), std::move(msg))
      .then([rp](Answer& a) mutable { rp.deliver(std::move(a)); },
            [rp, self](caf::error& e) mutable {
              rp.deliver(caf::make_error(caf::sec::runtime_error,
                                         who(self->state.settings) + "'s process did not answer "
                                         "for its state: " + caf::to_string(e)));
            });
  return rp;
}

bool from_agent(self_ptr self) {
  auto& s = self->state;
  if (s.agent && self->current_sender() == caf::actor_cast<caf::strong_actor_ptr>(s.agent))
    return true;
  s.settings.stats->dropped("sender is not the joined agent");
  logger("remote")->warn("{}: dropped a message from {}, not the agent that joined", who(s.settings),
                         caf::to_string(self->current_sender()));
  return false;
}

/// The agent's process is gone.
void on_lost(self_ptr self, const caf::error& reason) {
  auto& s = self->state;
  const caf::actor agent = std::move(s.agent);
  s.agent = caf::actor{};
  if (s.stopping) return self->quit(s.stop_reason);
  const std::string what = "the process hosting it (node " + caf::to_string(agent.node()) +
                           ") was lost (" + caf::to_string(reason) + ")";
  if (s.started && !s.settings.wall) {
    // Named with every id its process hosted (the gatekeeper knows them).
    const std::string node = caf::to_string(agent.node()), why = caf::to_string(reason);
    auto fail = [self, node, why](const std::string& ids) {
      self->quit(member_failure(ids, "the process hosting them (node " + node + ") was lost (" +
                                         why + "); a run in virtual time cannot go on without "
                                         "them (with run.time = \"wall\" they would count as "
                                         "crashed)"));
    };
    self->request(s.settings.gatekeeper, std::chrono::seconds(5), caf::get_atom::value, agent.node())
        .then([fail](const std::vector<std::uint32_t>& ids) {
                fail(ids.empty() ? "an agent" : "agents " + format_id_list(ids));
              },
              [self, fail](caf::error&) { fail(who(self->state.settings)); });
    return;
  }
  logger("remote")->info("{}: {}", who(s.settings), what);  // the gatekeeper warns once per node
  for (auto& [key, rp] : s.pending) rp.deliver(caf::ok_atom_v);
  s.pending.clear();
  if (s.started) {
    const node_id id = s.settings.id;
    auto stats = s.settings.stats;
    self->request(s.settings.network, caf::infinite, lost_atom::value, id)
        .then([stats, id](double time) { stats->lost(id, time); }, [](caf::error&) {});
  }
  self->send(s.settings.gatekeeper, lost_atom::value, s.settings.id);
}

}  // namespace

const char* invalid_remote_envelope(const envelope& env, const ProxySettings& s) {
  if (env.from != s.id) return "envelope not from its agent's id";
  if (env.to != server_node && env.to != s.id) return "envelope to neither the server nor itself";
  if (!std::isfinite(env.delay) || env.delay < 0) return "delay not finite and >= 0";
  if (env.bytes > s.max_message_bytes || estimated_bytes(env.payload) > s.max_message_bytes)
    return "oversized";
  const caf::message& m = env.payload;
  if (m.match_elements<report>()) {
    const report& r = m.get_as<report>(0);
    if (env.to != server_node) return "report not to the server";
    if (r.agent != s.id) return "report of another agent";
    if (r.round < 0) return "report of a negative round";  // the server checks the rest
    if (static_cast<int>(r.omega.size()) != s.features) return "report of a wrong dimension";
    if (!all_finite(r.omega)) return "report not finite";
    if (!intact(r)) return "report not sealed";
    return nullptr;
  }
  if (m.match_elements<agent_done>()) {
    if (env.to != server_node) return "agent_done not to the server";
    if (m.get_as<agent_done>(0).agent != s.id) return "agent_done of another agent";
    return nullptr;
  }
  if (m.match_elements<timer>()) {
    const timer& t = m.get_as<timer>(0);
    if (env.to != s.id) return "timer not to itself";
    if (t.evaluations < 0 || t.round < 0) return "timer out of range";
    return nullptr;
  }
  return "payload of a type an agent does not send";
}

const char* invalid_remote_observation(const observation_event& e, const ProxySettings& s) {
  if (e.agent != static_cast<std::int32_t>(s.id)) return "observation of another agent";
  if (static_cast<int>(e.x.size()) != s.dimension) return "observation of a wrong dimension";
  if (32 + 8 * e.x.size() > s.max_message_bytes) return "oversized";
  if (!std::isfinite(e.time) || !std::isfinite(e.y) || !all_finite(e.x))
    return "observation not finite";
  return nullptr;
}

const char* invalid_remote_event(const network_event& e, const ProxySettings& s) {
  if (e.kind != "evaluation_failed") return "event of a kind an agent does not log";
  if (e.from != s.id || e.to != s.id) return "event of another agent";
  if (64 + e.kind.size() + e.payload.size() + e.reason.size() > s.max_message_bytes)
    return "oversized";
  if (!std::isfinite(e.time)) return "event not finite";
  return nullptr;
}

caf::behavior agent_proxy_actor(caf::stateful_actor<ProxyState>* self, ProxySettings settings) {
  self->state.settings = std::move(settings);
  fail_loudly(self, who(self->state.settings) + " (proxy)");
  self->set_down_handler([self](caf::down_msg& d) {
    auto& s = self->state;
    if (s.agent && d.source == s.agent.address()) on_lost(self, d.reason);
  });
  self->set_exit_handler([self](caf::exit_msg& m) {
    auto& s = self->state;
    // The remote node holds this proxy's handle: only this process stops it (CAF 0.17 ends
    // any actor on exit_reason::kill whatever the handler).
    const auto sender = self->current_sender();
    if (!sender || sender->node() != self->node())
      return drop(self, "exit message not from this process");
    if (!s.agent) return self->quit(m.reason);
    // Stop the agent, and stay until its process has seen it (its down message), or 5 s.
    s.stopping = true;
    s.stop_reason = m.reason;
    self->send_exit(s.agent, m.reason);  // user_shutdown at the end of the run, else why
    self->delayed_send(self, std::chrono::seconds(5), caf::close_atom::value);
  });
  self->set_error_handler([self](caf::error&) { drop(self, "error message from a peer"); });
  return {
      [self](kickoff k, virtual_time t) { return forward(self, caf::make_message(k, t)); },
      [self](const broadcast& b, virtual_time t) { return forward(self, caf::make_message(b, t)); },
      [self](timer x, virtual_time t) { return forward(self, caf::make_message(x, t)); },
      [self](crash_notice c, virtual_time t) { return forward(self, caf::make_message(c, t)); },
      [self](recover_notice r, virtual_time t) { return forward(self, caf::make_message(r, t)); },
      [self](envelope& env) {
        if (!from_agent(self)) return;
        if (const char* why = invalid_remote_envelope(env, self->state.settings)) return drop(self, why);
        self->send(self->state.settings.network, std::move(env));
      },
      [self](observation_event& e) {
        if (!from_agent(self)) return;
        if (const char* why = invalid_remote_observation(e, self->state.settings)) return drop(self, why);
        self->send(self->state.settings.recorder, std::move(e));
      },
      [self](network_event& e) {
        if (!from_agent(self)) return;
        if (const char* why = invalid_remote_event(e, self->state.settings)) return drop(self, why);
        self->send(self->state.settings.recorder, std::move(e));
      },
      [self](caf::close_atom, std::string& why) {  // the agent's circuit breaker (agent.cpp)
        if (!from_agent(self)) return;
        auto& s = self->state;
        const std::string own = "agent " + std::to_string(s.settings.id) + ": ";
        if (why.size() > 4096 || why.compare(0, own.size(), own) != 0)
          return drop(self, "stop request not naming its own agent, or too long");
        self->send(s.settings.network, caf::close_atom_v, std::move(why));
      },
      [self](caf::put_atom, caf::actor& agent) {
        auto& s = self->state;
        if (self->current_sender() != caf::actor_cast<caf::strong_actor_ptr>(s.settings.gatekeeper))
          return drop(self, "agent handed over by someone but the gatekeeper");
        const bool rejoin = s.started;
        s.agent = std::move(agent);
        self->monitor(s.agent);
        if (rejoin) {  // wall-clock time: the new agent recovers, its state lost
          s.settings.stats->rejoined(s.settings.id);
          self->send(s.settings.network, rejoin_atom::value, s.settings.id);
        }
      },
      [self](caf::add_atom, caf::actor& gatekeeper) {  // once, from serve_federation
        auto& g = self->state.settings.gatekeeper;
        if (!g) g = std::move(gatekeeper);
      },
      [self](save_atom) {
        return relay_state<std::vector<char>>(self, caf::make_message(save_atom::value));
      },
      [self](restore_atom, std::vector<char>& bytes) {
        return relay_state<caf::ok_atom>(self, caf::make_message(restore_atom::value, std::move(bytes)));
      },
      [self](caf::get_atom) { return self->state.agent ? self->state.agent.node() : caf::node_id{}; },
      [self](caf::close_atom) {  // stopping, and the agent's process never answered
        if (self->state.stopping) self->quit(self->state.stop_reason);
      },
  };
}

}  // namespace fedsim::actors::remote
