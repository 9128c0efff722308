#pragma once
/// Helpers for the distributed-run tests (tests/actors/remote/*_test.cpp): a served run in a
/// background thread with its own actor system on 127.0.0.1 (port 0), client actor systems
/// that connect to it, a request with a timeout that never hangs, and real agents spawned by
/// hand for ids a test authenticated itself. Everything here is bounded in time: every
/// blocking receive has a timeout, and the server gives up after its join timeout.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/agent.hpp"
#include "actors/federation.hpp"
#include "actors/messages.hpp"
#include "actors/remote/host_agents.hpp"
#include "actors/remote/join_auth.hpp"
#include "actors/remote/remote_stats.hpp"
#include "actors/remote/serve.hpp"
#include "actors/world_objective.hpp"
#include "engine/objectives/federated_objective.hpp"
#include "scenarios/loader.hpp"

namespace fedsim::test::remote {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// The shared secret of these tests (>= 16 bytes).
inline const std::string secret = "fedsim test secret: 32 bytes ...";

/// scenarios/tiny.toml (DP-FTS-DE, M = 10 features, T = 5) with `overrides`.
inline scenario::ScenarioConfig tiny(const std::vector<std::string>& overrides) {
  return scenario::load_scenario((fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string(), overrides);
}

/// An actor system with fedsim's types and CAF's middleman: a separate node on the wire.
struct Node {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  Node() : sys{(configure(cfg), cfg)} {}
  static void configure(caf::actor_system_config& c) {
    actors::add_fedsim_types(c);
    c.load<caf::io::middleman>();
    c.set("scheduler.max-threads", 2);
  }
  /// The actor published at 127.0.0.1:port (the server's gatekeeper).
  caf::actor connect(std::uint16_t port) {
    auto a = sys.middleman().remote_actor("127.0.0.1", port);
    if (!a) throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port) +
                                     ": " + sys.render(a.error()));
    return *a;
  }
};

/// A request's answer, or the error (a timeout included) and its rendering.
template <class T>
struct Asked {
  std::optional<T> value;
  caf::error error;
  std::string text;  ///< the error rendered ("" when answered)
  explicit operator bool() const { return value.has_value(); }
};

/// A request answered within `timeout`, or its error (sec::request_timeout after it).
template <class T, class... Ts>
Asked<T> ask_within(caf::scoped_actor& self, std::chrono::milliseconds timeout,
                    const caf::actor& dest, Ts&&... xs) {
  Asked<T> out;
  self->request(dest, timeout, std::forward<Ts>(xs)...)
      .receive([&](T& x) { out.value = std::move(x); },
               [&](caf::error& e) {
                 out.text = self->system().render(e);
                 out.error = std::move(e);
               });
  return out;
}

template <class T, class... Ts>
Asked<T> ask(caf::scoped_actor& self, const caf::actor& dest, Ts&&... xs) {
  return ask_within<T>(self, std::chrono::seconds(10), dest, std::forward<Ts>(xs)...);
}

/// A federation served (serve_federation in its own actor system) from a background thread.
/// The destructor waits for the thread, which the join timeout bounds if agents never come.
class ServedRun {
 public:
  ServedRun(scenario::ScenarioConfig config, const fs::path& out_dir,
            actors::remote::ServeOptions serve, std::function<void()> on_done = {})
      : ServedRun(std::move(config), out_dir, std::move(serve), actors::RunOptions{},
                  std::move(on_done)) {}
  /// With run options of the caller's (checkpoints): out_dir and threads are set here.
  ServedRun(scenario::ScenarioConfig config, const fs::path& out_dir,
            actors::remote::ServeOptions serve, actors::RunOptions options,
            std::function<void()> on_done = {})
      : stats_(serve.stats ? serve.stats : std::make_shared<actors::remote::RemoteStats>()) {
    serve.stats = stats_;
    serve.host = "127.0.0.1";
    serve.port = 0;
    if (serve.secret.empty()) serve.secret = secret;
    serve.scenario_text = scenario::to_toml(config);
    auto port = std::make_shared<std::promise<std::uint16_t>>();
    auto told = std::make_shared<std::atomic<bool>>(false);
    port_ = port->get_future();
    done_ = done_promise_.get_future();
    serve.on_listening = [port, told](std::uint16_t p) {
      if (!told->exchange(true)) port->set_value(p);
    };
    options.out_dir = out_dir.string();
    options.threads = 2;
    thread_ = std::thread([this, config, options, serve, port, told, on_done] {
      try {
        result_ = actors::remote::serve_federation(config, options, serve);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
      if (!told->exchange(true)) port->set_value(0);
      if (on_done) on_done();
      done_promise_.set_value();
    });
  }
  ServedRun(const ServedRun&) = delete;
  ServedRun& operator=(const ServedRun&) = delete;
  ~ServedRun() {
    if (thread_.joinable()) thread_.join();
  }

  /// The port listened on (0: the server failed before listening, or not within `timeout`).
  std::uint16_t port(std::chrono::seconds timeout = 10s) {
    if (port_.wait_for(timeout) != std::future_status::ready) return 0;
    return port_.get();
  }
  /// Whether the run is over within `timeout` (result() or error() then says how).
  bool wait(std::chrono::seconds timeout) {
    if (done_.wait_for(timeout) != std::future_status::ready) return false;
    thread_.join();
    return true;
  }
  const std::optional<actors::RunResult>& result() const { return result_; }
  const std::string& error() const { return error_; }
  actors::remote::RemoteCounts counts() const { return stats_->snapshot(); }

 private:
  std::shared_ptr<actors::remote::RemoteStats> stats_;
  std::future<std::uint16_t> port_;
  std::promise<void> done_promise_;
  std::future<void> done_;
  std::optional<actors::RunResult> result_;
  std::string error_;
  std::thread thread_;
};

/// host_agents(options) in its own actor system (a separate node) on a background thread:
/// the honest agents of a run. The destructor waits for it (host_agents returns once the run
/// stops its agents, or fails within its connect timeout).
class HonestHost {
 public:
  HonestHost(std::uint16_t port, std::vector<std::uint32_t> ids, const fs::path& out_dir) {
    actors::remote::HostOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.secret = secret;
    o.ids = std::move(ids);
    o.connect_timeout = 10;
    o.out_dir = out_dir.string();
    o.parse = [](const std::string& text) {
      return scenario::load_scenario_text(text, "<server>").config;
    };
    thread_ = std::thread([this, o] {
      try {
        actors::remote::host_agents(o, 2);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  ~HonestHost() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
  std::thread thread_;
};

/// Real agents (actors/agent.hpp), spawned in `sys` for `ids` wired to the proxies of
/// `welcome`, as host_agents does after a join: for tests that authenticate by hand.
inline std::vector<caf::actor> spawn_real_agents(caf::actor_system& sys,
                                                 const actors::join_welcome& welcome,
                                                 const std::vector<std::uint32_t>& ids,
                                                 const fs::path& out_dir) {
  const scenario::ScenarioConfig config =
      scenario::load_scenario_text(welcome.scenario, "<server>").config;
  const auto objective = actors::make_world_objective(config, out_dir);
  check_fbo_objective(*objective, config.world.agents);
  const auto base = actors::make_agent_shared(config, objective, caf::actor{}, caf::actor{});
  std::vector<caf::actor> agents;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    auto shared = std::make_shared<actors::AgentShared>(*base);
    shared->network = welcome.proxies.at(k);
    shared->recorder = welcome.proxies.at(k);
    agents.push_back(sys.spawn(actors::agent_actor, static_cast<actors::node_id>(ids[k]),
                               std::shared_ptr<const actors::AgentShared>(std::move(shared))));
  }
  return agents;
}

/// Kills the actors it holds when it goes out of scope (before their actor system, which
/// would otherwise wait for them for ever if the run never stopped them).
struct KillOnExit {
  std::vector<caf::actor> actors;
  ~KillOnExit() {
    for (const auto& a : actors)
      if (a) caf::anon_send_exit(a, caf::exit_reason::kill);
  }
};

/// Lines of a file that contain every one of `parts`.
inline std::vector<std::string> lines_with(const std::vector<std::string>& lines,
                                           const std::vector<std::string>& parts) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    bool all = true;
    for (const auto& p : parts) all = all && l.find(p) != std::string::npos;
    if (all) out.push_back(l);
  }
  return out;
}

}  // namespace fedsim::test::remote
