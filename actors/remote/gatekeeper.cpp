#include "actors/remote/gatekeeper.hpp"

#include <algorithm>
#include <chrono>

#include "actors/failure.hpp"
#include "actors/logging.hpp"
#include "actors/remote/join_auth.hpp"

namespace fedsim::actors::remote {
namespace {

using self_ptr = caf::stateful_actor<GatekeeperState>*;

/// A refusal: logged, counted, and the error the peer gets.
caf::error refuse(self_ptr self, const std::string& reason, const std::vector<std::uint32_t>& ids) {
  self->state.settings.stats->refused(reason);
  const auto sender = self->current_sender();
  logger("remote")->warn("join refused ({}): node {}, ids {}", reason,
                         sender ? caf::to_string(sender->node()) : std::string("unknown"),
                         format_id_list(ids));
  return join_refusal(reason);
}

caf::node_id sender_node(self_ptr self) {
  const auto sender = self->current_sender();
  return sender ? sender->node() : caf::node_id{};
}

/// Why the ids cannot be asked for, or empty.
std::string bad_ids(const GatekeeperState& s, const std::vector<std::uint32_t>& ids) {
  if (ids.empty()) return "no ids";
  if (!std::is_sorted(ids.begin(), ids.end()) ||
      std::adjacent_find(ids.begin(), ids.end()) != ids.end())
    return "ids not sorted and unique";
  if (ids.back() >= s.settings.proxies.size())
    return "ids outside 0-" + std::to_string(s.settings.proxies.size() - 1);
  for (std::uint32_t id : ids)
    if (s.owner[id]) return "id " + std::to_string(id) + " already taken";
  return {};
}

constexpr const char* refusal_prefix = "join refused: ";

}  // namespace

caf::error join_refusal(const std::string& reason) {
  return caf::make_error(caf::sec::runtime_error, refusal_prefix + reason);
}

std::string join_refusal_reason(const caf::error& e) {
  if (e != caf::sec::runtime_error || !e.context().match_elements<std::string>()) return "";
  const std::string& text = e.context().get_as<std::string>(0);
  const std::string prefix = refusal_prefix;
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : "";
}

caf::behavior gatekeeper_actor(caf::stateful_actor<GatekeeperState>* self,
                               GatekeeperSettings settings) {
  fail_loudly(self, "gatekeeper");
  // Whoever reached the published gatekeeper can send it anything, exit and error messages
  // included, which end an actor by CAF's defaults: only this process may stop it (CAF 0.17
  // ends any actor on exit_reason::kill whatever the handler: serve_federation watches for it).
  self->set_exit_handler([self](caf::exit_msg& m) {
    const auto sender = self->current_sender();
    if (sender && sender->node() == self->node()) return self->quit(std::move(m.reason));
    refuse(self, "exit message from another process", {});
  });
  self->set_error_handler([self](caf::error&) { refuse(self, "error message from a peer", {}); });
  auto& st = self->state;
  st.settings = std::move(settings);
  st.owner.assign(st.settings.proxies.size(), caf::node_id{});
  st.joined.assign(st.settings.proxies.size(), false);
  return {
      [self](join_hello& h) -> caf::result<join_challenge> {
        auto& s = self->state;
        if (std::string why = bad_ids(s, h.ids); !why.empty()) return refuse(self, why, h.ids);
        std::vector<std::uint8_t> nonce = make_nonce();
        if (s.challenges.size() >= s.settings.max_nonces) {  // forget the oldest
          auto oldest = std::min_element(s.challenges.begin(), s.challenges.end(),
                                         [](const auto& a, const auto& b) {
                                           return a.second.order < b.second.order;
                                         });
          s.challenges.erase(oldest);
        }
        s.challenges[nonce] = {sender_node(self), std::move(h.ids), s.issued++};
        return join_challenge{std::move(nonce)};
      },
      [self](join_proof& p) -> caf::result<join_welcome> {
        auto& s = self->state;
        auto it = s.challenges.find(p.nonce);
        if (it == s.challenges.end()) return refuse(self, "unknown or spent nonce (a replay?)", p.ids);
        const GatekeeperState::Challenge challenge = std::move(it->second);
        s.challenges.erase(it);  // spent, whatever the answer
        if (challenge.node != sender_node(self) || challenge.ids != p.ids)
          return refuse(self, "answer to another node's or other ids' challenge", p.ids);
        if (!join_mac_valid(s.settings.secret, p.nonce, p.ids, p.mac))
          return refuse(self, "wrong secret", p.ids);
        if (std::string why = bad_ids(s, p.ids); !why.empty()) return refuse(self, why, p.ids);
        if (s.settings.guard != nullptr) s.settings.guard->authenticated(challenge.node);
        join_welcome w;
        w.scenario = s.settings.scenario;
        for (std::uint32_t id : p.ids) {
          s.owner[id] = challenge.node;
          w.proxies.push_back(s.settings.proxies[id]);
        }
        logger("remote")->info("node {} authenticated for ids {}", caf::to_string(challenge.node),
                               format_id_list(p.ids));
        return w;
      },
      [self](join_agents& j) -> caf::result<caf::ok_atom> {
        auto& s = self->state;
        const caf::node_id node = sender_node(self);
        if (j.ids.empty() || j.agents.size() != j.ids.size())
          return refuse(self, "not one agent per id", j.ids);
        for (std::size_t k = 0; k < j.ids.size(); ++k) {
          const std::uint32_t id = j.ids[k];
          if (id >= s.owner.size() || s.owner[id] != node || s.joined[id])
            return refuse(self, "agents for ids this node was not granted", j.ids);
          if (!j.agents[k] || j.agents[k].node() != node)
            return refuse(self, "an agent not of the joining node", j.ids);
        }
        for (std::size_t k = 0; k < j.ids.size(); ++k) {
          s.joined[j.ids[k]] = true;
          self->send(s.settings.proxies[j.ids[k]], caf::put_atom::value, j.agents[k]);
        }
        s.settings.stats->joined();
        logger("remote")->info("agents {} joined from node {}", format_id_list(j.ids),
                               caf::to_string(node));
        const auto count = std::count(s.joined.begin(), s.joined.end(), true);
        self->send(s.settings.driver, caf::join_atom::value, j.ids, static_cast<std::int32_t>(count));
        if (!s.complete && count == static_cast<std::ptrdiff_t>(s.joined.size())) {
          s.complete = true;
          self->send(s.settings.driver, caf::ok_atom::value);
        }
        return caf::ok_atom_v;
      },
      [self](caf::get_atom, const caf::node_id& node) {  // the ids a node holds
        std::vector<std::uint32_t> ids;
        for (std::size_t n = 0; n < self->state.owner.size(); ++n)
          if (self->state.owner[n] == node) ids.push_back(static_cast<std::uint32_t>(n));
        return ids;
      },
      [self](caf::get_atom) {  // the ids without an agent
        std::vector<std::uint32_t> missing;
        for (std::size_t n = 0; n < self->state.joined.size(); ++n)
          if (!self->state.joined[n]) missing.push_back(static_cast<std::uint32_t>(n));
        return missing;
      },
      [self](lost_atom, node_id id) {
        auto& s = self->state;
        const auto sender = self->current_sender();
        if (id >= s.settings.proxies.size() ||
            sender != caf::actor_cast<caf::strong_actor_ptr>(s.settings.proxies[id]))
          return;  // only the id's own proxy frees it
        auto& ids = s.lost[s.owner[id]];
        if (ids.empty())  // the node's other agents are lost in the same moment: one line
          self->delayed_send(self, std::chrono::milliseconds(200), caf::flush_atom::value);
        ids.push_back(id);
        s.owner[id] = caf::node_id{};
        s.joined[id] = false;
      },
      [self](caf::flush_atom) {
        for (auto& [node, ids] : self->state.lost) {
          std::sort(ids.begin(), ids.end());
          logger("remote")->warn("agents {} lost: their process (node {}) is gone; the ids may "
                                 "join again", format_id_list(ids), caf::to_string(node));
        }
        self->state.lost.clear();
      },
  };
}

}  // namespace fedsim::actors::remote
