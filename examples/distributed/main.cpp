// A federation split over actor systems with fedsim as a library (docs/distributed.md):
//   distributed serve PORT SECRET_FILE [OUT_DIR]   the network, server, accountant and recorder
//   distributed agents PORT SECRET_FILE IDS        a group of agents ("0-3"), evaluating this
//                                                  program's own objective here
//   distributed demo [OUT_DIR]                     both, in one process: a server and two groups
//                                                  of agents, each in its own caf::actor_system,
//                                                  talking over loopback TCP
// The scenario is TOML text; RunOptions::observer.round prints each round live on the server.
// A larger system would create the actor systems itself (add_fedsim_types, configure_network)
// and call serve_federation / host_agents on them, as main() does here.
#include <cstdio>
#include <exception>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "actors/federation.hpp"
#include "actors/remote/host_agents.hpp"
#include "actors/remote/join_auth.hpp"
#include "actors/remote/serve.hpp"
#include "engine/objectives/federated_objective.hpp"
#include "scenarios/loader.hpp"

namespace {

namespace actors = fedsim::actors;
namespace remote = fedsim::actors::remote;
namespace scenario = fedsim::scenario;

/// The agents' black box, known only where they run: agent n maximises
/// -(x0 - 0.3 - 0.02 n)^2 - (x1 - 0.7)^2 on [0, 1]^2, observed with N(0, 0.01^2) noise. A box
/// (no candidate grid): acquisition by random candidates and local refinement.
class Bowls final : public fedsim::FederatedObjective {
 public:
  explicit Bowls(int agents) : agents_(agents) { domain_.box = fedsim::Box::unit(2); }
  const fedsim::SearchDomain& domain() const override { return domain_; }
  int agents() const override { return agents_; }
  fedsim::Answer evaluate(const fedsim::Query& q, fedsim::RandomStream& noise) const override {
    const double a = q.x(0) - 0.3 - 0.02 * q.agent, b = q.x(1) - 0.7;
    fedsim::Answer answer;
    answer.f = -(a * a) - b * b;
    answer.y = *answer.f + 0.01 * noise.normal();
    return answer;
  }
  std::optional<double> optimum(int) const override { return 0.0; }

 private:
  int agents_;
  fedsim::SearchDomain domain_;
};

const char* const scenario_text = R"(
name = "distributed-example"
seed = 11

[world]
agents = 6
[world.objective]    # what the server knows of the agents' objective: its dimension
kind = "command"     # (the agents here evaluate their own C++ Bowls instead; the program
command = ["true"]   #  must still be one the loader finds, and every machine has true)
dimension = 2

[world.network]
compute = { kind = "lognormal", mu = -1.5, sigma = 0.5 }
uplink = { kind = "lognormal", mu = -3.0, sigma = 0.75 }
downlink = { kind = "lognormal", mu = -3.0, sigma = 0.75 }
drop = 0.05

[algorithm]
name = "dp-fts-de"
iterations = 8
n_init = 3
features = 10
subregions = 2
acquisition_candidates = 200

[policy]
kind = "deadline"
deadline = 1.0
)";

scenario::ScenarioConfig parse(const std::string& text) {
  return scenario::load_scenario_text(text, "distributed-example").config;
}

caf::actor_system_config network_config() {
  caf::actor_system_config cfg;
  actors::add_fedsim_types(cfg);
  remote::configure_network(cfg, remote::TlsFiles{});  // TLS: give the three PEM files
  return cfg;
}

actors::RunResult serve(std::uint16_t port, const std::string& secret, const std::string& out,
                        std::promise<std::uint16_t>* listening) {
  const scenario::ScenarioConfig config = parse(scenario_text);
  caf::actor_system_config cfg = network_config();
  caf::actor_system system{cfg};
  actors::RunOptions options;
  options.out_dir = out;
  options.observer.round = [](const actors::round_event& r) {
    std::printf("round %d  time %.3f  participants %d  eps %.3f\n", r.round, r.time,
                r.participants, r.epsilon);
    std::fflush(stdout);
  };
  remote::ServeOptions s;
  s.port = port;
  s.secret = secret;
  s.join_timeout = 30;
  s.scenario_text = scenario::to_toml(config);
  s.on_listening = [listening](std::uint16_t p) {
    std::printf("listening on 127.0.0.1:%u\n", static_cast<unsigned>(p));
    std::fflush(stdout);
    if (listening) listening->set_value(p);
  };
  return remote::serve_federation(system, config, options, s);
}

void agents(std::uint16_t port, const std::string& secret, const std::string& ids) {
  caf::actor_system_config cfg = network_config();
  caf::actor_system system{cfg};
  remote::HostOptions h;
  h.port = port;
  h.secret = secret;
  h.ids = remote::parse_id_list(ids);
  h.parse = parse;
  h.objective = std::make_shared<const Bowls>(parse(scenario_text).world.agents);
  remote::host_agents(system, h);
}

int report(const actors::RunResult& r, const std::string& out) {
  const std::string status = r.completed ? "completed" : "incomplete: " + r.reason;
  std::printf("done: %s  mean final simple regret %.4f  eps %.2f  messages %llu  -> %s\n",
              status.c_str(), r.final_simple_regret, r.epsilon,
              static_cast<unsigned long long>(r.network.sent), out.c_str());
  return r.completed ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "serve" && argc >= 4) {
      const std::string out = argc > 4 ? argv[4] : "distributed-out";
      return report(serve(static_cast<std::uint16_t>(std::stoi(argv[2])),
                          remote::read_secret_file(argv[3]), out, nullptr),
                    out);
    }
    if (mode == "agents" && argc == 5) {
      agents(static_cast<std::uint16_t>(std::stoi(argv[2])), remote::read_secret_file(argv[3]), argv[4]);
      return 0;
    }
    if (mode == "demo") {
      const std::string out = argc > 2 ? argv[2] : "distributed-out";
      const std::string secret = "an example secret, 32+ bytes long";
      std::promise<std::uint16_t> listening;
      auto port = listening.get_future();
      auto server = std::async(std::launch::async, [&] {
        try {
          return serve(0, secret, out, &listening);
        } catch (...) {  // failed before listening: the wait for the port below fails with it
          try {
            listening.set_exception(std::current_exception());
          } catch (const std::future_error&) {  // already listening: server.get() rethrows
          }
          throw;
        }
      });
      const std::uint16_t p = port.get();
      auto group = [&](const char* ids) {
        try {
          agents(p, secret, ids);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "distributed: agents %s: %s\n", ids, e.what());
        }
      };
      std::thread group_a(group, "0-1");
      std::thread group_b(group, "2-5");
      const actors::RunResult result = server.get();
      group_a.join();
      group_b.join();
      return report(result, out);
    }
    std::fprintf(stderr,
                 "usage: distributed serve PORT SECRET_FILE [OUT_DIR] | agents PORT SECRET_FILE "
                 "IDS | demo [OUT_DIR]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distributed: error: %s\n", e.what());
    return 1;
  }
}
