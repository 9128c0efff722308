// Runs a DP-FTS-DE federation of 8 agents inside this program, with fedsim as a library:
// the scenario is TOML text loaded by fedsim's loader (a ScenarioConfig built in code and
// checked with scenario::validate works the same), and RunOptions::observer.round prints every round
// as the run goes, before run_federation returns. The objective is one of fedsim's shipped
// synthetic ones (world.objective.kind = "perturbed"): see examples/README.md.
#include <cstdio>
#include <exception>
#include <string>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"

namespace {

const char* const scenario_text = R"(
name = "embed"
seed = 7

[world]
agents = 8

[world.objective]
kind = "perturbed"
grid_size = 200

[world.network]  # virtual seconds: each agent's compute time and its links' latencies
compute = { kind = "lognormal", mu = -1.5, sigma = 0.5 }
uplink = { kind = "lognormal", mu = -3.0, sigma = 0.75 }
downlink = { kind = "lognormal", mu = -3.0, sigma = 0.75 }

[algorithm]
name = "dp-fts-de"
iterations = 10
n_init = 3
features = 10
subregions = 2

[policy]
kind = "sync"
)";

}  // namespace

int main(int argc, char** argv) {
  namespace actors = fedsim::actors;
  namespace scenario = fedsim::scenario;
  try {
    const scenario::LoadedScenario loaded =
        scenario::load_scenario_text(scenario_text, "embed.toml");
    for (const auto& w : loaded.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());

    actors::RunOptions options;
    options.out_dir = argc > 1 ? argv[1] : "embed-out";  // observations.csv, rounds.csv, ...
    options.threads = 2;
    // Called on the recorder's thread for every finished round, while the run goes on.
    options.observer.round = [](const actors::round_event& r) {
      std::printf("round %d  time %.3f  participants %d  eps %.3f\n", r.round, r.time,
                  r.participants, r.epsilon);
      std::fflush(stdout);
    };

    const actors::RunResult result = actors::run_federation(loaded.config, options);
    const std::string status = result.completed ? "completed" : "incomplete: " + result.reason;
    std::printf("done: %s  mean final simple regret %.4f  eps %.2f  messages %llu  -> %s\n",
                status.c_str(), result.final_simple_regret, result.epsilon,
                static_cast<unsigned long long>(result.network.sent), options.out_dir.c_str());
    return result.completed ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed: error: %s\n", e.what());
    return 1;
  }
}
