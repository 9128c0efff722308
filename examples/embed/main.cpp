// Runs a DP-FTS-DE federation of 8 agents inside this program, with fedsim as a library, on
// this program's own 2-D objective (a fedsim::FederatedObjective: each agent's function is a
// bowl whose peak moves a little with the agent, observed with noise): the scenario is TOML
// text loaded by fedsim's loader (a ScenarioConfig built in code and checked with
// scenario::validate works the same), and RunOptions::observer.round prints every round as the
// run goes, before run_federation returns.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <string>

#include "actors/federation.hpp"
#include "engine/objectives/federated_objective.hpp"
#include "scenarios/loader.hpp"

namespace {

/// Agent n maximises f_n(x) = -(x0 - 0.3 - 0.02 n)^2 - (x1 - 0.7)^2 over a 20 x 20 grid of
/// [0, 1]^2, observed with N(0, 0.01^2) noise drawn from the agent's own stream (so the run is
/// reproducible). A real black box would compute y and leave f and the optimum unknown.
class Bowls final : public fedsim::FederatedObjective {
 public:
  explicit Bowls(int agents) : agents_(agents) {
    domain_.box = fedsim::Box::unit(2);
    domain_.candidates =
        std::make_shared<const fedsim::Grid>(fedsim::Grid::tensor(fedsim::Box::unit(2), 20));
  }
  const fedsim::SearchDomain& domain() const override { return domain_; }
  int agents() const override { return agents_; }
  fedsim::Answer evaluate(const fedsim::Query& q, fedsim::RandomStream& noise) const override {
    fedsim::Answer a;
    a.f = f(q.agent, q.x);
    a.y = *a.f + 0.01 * noise.normal();
    return a;
  }
  std::optional<double> optimum(int agent) const override {
    double best = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < domain_.candidates->size(); ++i)
      best = std::max(best, f(agent, domain_.candidates->points.row(i).transpose()));
    return best;
  }

 private:
  static double f(int agent, const Eigen::VectorXd& x) {
    const double a = x(0) - 0.3 - 0.02 * agent, b = x(1) - 0.7;
    return -(a * a) - b * b;
  }
  int agents_;
  fedsim::SearchDomain domain_;
};

const char* const scenario_text = R"(
name = "embed"
seed = 7

[world]
agents = 8

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
    options.objective = std::make_shared<const Bowls>(loaded.config.world.agents);
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
