// An algorithm of one's own, registered with fedsim from outside its tree (ARCHITECTURE.md,
// "Extension points"): local random search on an X-armed problem's global objective, one
// evaluation a round. It is one AlgorithmKind, as fedsim's own baselines are
// (actors/algorithms/kernel_ts.cpp): its name, family and traits, its own keys with their
// defaults, ranges and docs (the table [algorithm.random-search] of a scenario: the loader
// reads, checks and writes them back like fedsim's own), and its loop, which writes the run
// folder. register_algorithm() adds it before any scenario is loaded; then a scenario names it.
//   own-algorithm [OUT_DIR]
#include <cstdio>
#include <exception>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/rng.hpp"
#include "scenarios/loader.hpp"

namespace {

namespace al = fedsim::actors::algorithms;
namespace scenario = fedsim::scenario;

/// Each round: with probability local_fraction a Gaussian step (sd `step`, clamped to the
/// domain) from the best point seen so far, else a uniform point; one noisy evaluation of the
/// global objective (as fedsim's central baselines observe it), regret on the noise-free one.
al::LoopRun random_search_loop(const al::LoopInput& in) {
  const al::Params p = scenario::algorithm_params(in.config);
  const double local = p.real("local_fraction"), step = p.real("step");
  const auto problem =
      fedsim::actors::make_xarmed_problem(scenario::fed_pne_config(in.config).problem);
  const fedsim::Box& box = problem->domain;
  const auto& f = *problem->global;
  fedsim::RandomStream rng(in.config.seed, "random_search");
  Eigen::VectorXd best = Eigen::VectorXd::Zero(box.dim());
  double best_y = -std::numeric_limits<double>::infinity(), regret = 0.0;
  std::vector<double> curve;
  for (std::int64_t t = 0; t < in.config.xarmed.fed_pne.budget; ++t) {
    Eigen::VectorXd x(box.dim());
    const bool near_best = t > 0 && rng.uniform() < local;
    for (int j = 0; j < box.dim(); ++j) {
      const double v = near_best ? best(j) + rng.normal(0.0, step)
                                 : rng.uniform(box.lower(j), box.upper(j));
      x(j) = std::min(box.upper(j), std::max(box.lower(j), v));
    }
    const double value = f.value(x);
    const double y = value + rng.uniform(-problem->noise, problem->noise);
    if (y > best_y) {
      best_y = y;
      best = x;
    }
    regret += f.optimum_value() - value;
    curve.push_back(regret);
  }
  al::write_central_pulls(in.dir / "observations.csv", curve);
  al::LoopRun out;
  out.run.client_regret = {regret};
  out.run.average_cumulative_regret = regret;
  return out;
}

al::AlgorithmKind random_search() {
  // Central (one learner), not private, no partition tree: fedsim's keys of the tree searches
  // have no effect with it (a warning), the budget and the problem do.
  al::AlgorithmKind k = al::xarmed_kind("random-search", {false, false, false},
                                        "local random search on the global objective",
                                        "examples/own-algorithm");
  k.parameters = {
      al::real("local_fraction", 0.5, 0, 1, al::Ends::closed,
               "probability of a step from the best point instead of a uniform point"),
      al::real("step", 0.05, 1e-6, 1, al::Ends::closed, "sd of a local step")};
  k.loop = random_search_loop;
  k.actors = false;
  return k;
}

const char* const scenario_text = R"(
name = "own-algorithm"
seed = 7

[world]
agents = 10
[world.objective]
kind = "garland"

[algorithm]
name = "random-search"
budget = 2000
[algorithm.random-search]
local_fraction = 0.8
step = 0.02
)";

}  // namespace

int main(int argc, char** argv) {
  try {
    al::register_algorithm(random_search());
    const std::filesystem::path out = argc > 1 ? argv[1] : "own-algorithm-out";
    const auto loaded = scenario::load_scenario_text(scenario_text, "own-algorithm");
    // The resolved configuration holds its keys, as fedsim's own algorithms' keys.
    const std::string resolved = scenario::to_toml(loaded.config);
    const auto table = resolved.find("[algorithm.random-search]");
    std::printf("%s\n", resolved.substr(table, resolved.find("\n\n", table) - table).c_str());
    // A bad value is refused at load with one line naming the key, as fedsim's own.
    try {
      std::string bad = scenario_text;
      bad.replace(bad.find("step = 0.02"), 11, "step = 0.0");
      scenario::load_scenario_text(bad, "bad");
    } catch (const std::exception& e) {
      std::printf("refused: %s\n", e.what());
    }
    std::filesystem::create_directories(out);
    const al::LoopRun run = scenario::algorithm_kind(loaded.config).loop({loaded.config, out});
    std::printf("random-search: cumulative regret %.2f over %lld rounds -> %s\n",
                run.run.average_cumulative_regret,
                static_cast<long long>(loaded.config.xarmed.fed_pne.budget), out.string().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "own-algorithm: error: %s\n", e.what());
    return 1;
  }
}
