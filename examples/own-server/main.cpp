// fedsim's FTS-DE agents, on fedsim's network (lognormal compute and link times, virtual
// time), with this program's own server: averaging_server.hpp, a synchronous round that
// broadcasts the plain mean of the agents' vectors (no DE weights, no privacy), spawned by
// RunOptions::server_host (actors/server_host.hpp says what such a server must speak). The
// server prints each round as it closes, while the run goes on; the agents' queries go to
// OUT_DIR/observations.csv as in any run.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "actors/federation.hpp"
#include "averaging_server.hpp"
#include "scenarios/loader.hpp"

namespace {

const char* const scenario_text = R"(
name = "own-server"
seed = 11

[world]
agents = 6

[world.objective]  # fedsim's 2-D Branin, shifted a little per agent
kind = "branin"

[world.network]  # virtual seconds
compute = { kind = "lognormal", mu = -1.5, sigma = 0.5 }
uplink = { kind = "lognormal", mu = -3.0, sigma = 0.75 }
downlink = { kind = "lognormal", mu = -3.0, sigma = 0.75 }

[algorithm]
name = "fts-de"
iterations = 8
n_init = 3
features = 30
subregions = 2
acquisition_candidates = 200

[policy]
kind = "sync"
)";

}  // namespace

int main(int argc, char** argv) {
  namespace actors = fedsim::actors;
  try {
    const auto loaded = fedsim::scenario::load_scenario_text(scenario_text, "own-server.toml");
    for (const auto& w : loaded.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    auto tally = std::make_shared<own_server::Tally>();
    actors::RunOptions options;
    options.out_dir = argc > 1 ? argv[1] : "own-server-out";
    options.threads = 2;
    options.server_host = [tally](const actors::ServerSlots& slots) {
      return slots.network.home_system().spawn(own_server::averaging_server, slots, tally, true);
    };
    const actors::RunResult result = actors::run_federation(loaded.config, options);
    const std::string status = result.completed ? "completed" : "incomplete: " + result.reason;
    std::printf("done: %s  rounds %d  reports %d (rejected %d)  mean best observed %.4f  -> %s\n",
                status.c_str(), tally->rounds_closed, tally->reports, tally->rejected,
                result.mean_best_observed, options.out_dir.c_str());
    return result.completed ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "own-server: error: %s\n", e.what());
    return 1;
  }
}
