/// Fed1-UCB (Shi & Shen 2021, "Federated Multi-armed Bandits") on the X-armed problem's clients,
/// as Fed-PNE's figure 2 runs it: the M = world.agents clients pull a mesh of K^d arms, every
/// active arm f(p) = max(1, floor(kappa ln T)) times per phase, and the server eliminates arms
/// on the clients' averaged means; T = algorithm.budget pulls per client. Engine:
/// engine/baselines/fed1_ucb*; readings and defaults: docs/baselines/fed1-ucb.md.
///
/// Its loop (run_fed1_ucb, --driver loop only) writes observations.csv in the pull layout with
/// one row per client and phase, as Fed-PNE's: (client m, phase p, step = pulls per client at
/// the phase's end, time 0, m's cumulative regret then); each client's last row is at step T,
/// the phase the budget ends (possibly the commitment to the one arm left, which reports
/// nothing). summary.json's "fed1-ucb" holds the
/// communication the engine loop counts: rounds (broadcasts), numbers_sent_per_client (the
/// reports' means), numbers_received_per_client (the broadcasts' lengths, 2 + active arms),
/// with arms (K^d) and active_arms_at_end.
#include <stdexcept>
#include <string>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/algorithms/mesh_rules.hpp"
#include "actors/recorder.hpp"
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/fed1_ucb_run.hpp"

namespace fedsim::actors::algorithms {
namespace {

using baselines::Fed1UcbParams;

/// The engine's parameters: the kind's keys, T from algorithm.budget, M from world.agents.
Fed1UcbParams engine_params(const Params& p, const scenario::ScenarioConfig& config) {
  Fed1UcbParams f;
  f.arms_per_dim = static_cast<int>(p.integer("arms_per_dim"));
  f.kappa = p.real("kappa");
  f.sigma = p.real("sigma");
  f.budget = config.xarmed.fed_pne.budget;
  f.clients = config.world.agents;
  return f;
}

/// The mesh's rules (mesh_rules.hpp), then the engine's own, named by the table.
void check(const Params& p, const scenario::ScenarioConfig& config, const std::string& table) {
  const Fed1UcbParams f = engine_params(p, config);
  check_mesh_rules(f.arms_per_dim, config, table, "fed1-ucb");
  named_by_table(table, [&] {
    f.validate();
  });
}

LoopRun loop(const LoopInput& in) {
  const scenario::ScenarioConfig& c = in.config;
  baselines::Fed1UcbRunConfig run;
  run.params = engine_params(scenario::algorithm_params(c), c);
  run.seed = c.seed;
  run.record_pulls = false;  // the phase records carry each client's regret
  const auto problem = make_xarmed_problem(scenario::fed_pne_config(c).problem);
  const baselines::Fed1UcbRunResult r = baselines::run_fed1_ucb(run, *problem);
  const int m_count = run.params.clients;
  PullRows pulls(r.phases.size() * static_cast<std::size_t>(m_count) + 1, PullOrder{});
  for (const auto& p : r.phases)
    for (int m = 0; m < m_count; ++m)
      pulls.push({m, p.phase, p.start + p.steps, 0.0,
                  p.client_regret.at(static_cast<std::size_t>(m))});
  write_pulls((in.dir / "observations.csv").string(), pulls);
  LoopRun out;
  out.run.client_regret = r.client_regret;
  out.run.average_cumulative_regret = r.average_regret;
  out.summary.push_back(
      {"fed1-ucb",
       {{"rounds", r.rounds},
        {"numbers_sent_per_client", r.numbers_sent_per_client},
        {"numbers_received_per_client", r.numbers_received_per_client},
        {"arms", r.mesh.arms()},
        {"active_arms_at_end",
         static_cast<std::int64_t>(r.phases.empty() ? 0 : r.phases.back().active)}}});
  return out;
}

}  // namespace

AlgorithmKind fed1_ucb() {
  const Fed1UcbParams d;  // the engine's defaults (docs/baselines/fed1-ucb.md)
  AlgorithmKind k = xarmed_kind(
      "fed1-ucb", {true, false, false},
      "federated phased elimination over a mesh of arms, M clients and a server (--driver loop "
      "only)",
      "Shi & Shen 2021 (Fed1-UCB); Fed-PNE (Li et al. 2023), figure 2 and appendix E.1.3");
  k.parameters = {
      integer("arms_per_dim", d.arms_per_dim, 1, baselines::max_mesh_arms,
              "K, arms per axis of the mesh (K^d arms, at most 10^6): a random start in [lo, lo "
              "+ w/K), then K - 1 evenly spaced to hi"),
      real("kappa", d.kappa, 0, 1e6, Ends::open_low,
           "phase length f(p) = max(1, floor(kappa ln T)) pulls of each active arm per client "
           "(Fed-PNE's 1; the original code's 10)"),
      // sigma^2 must neither underflow to 0 nor overflow: B = sqrt(4 sigma^2 ln T / (M n)).
      real("sigma", d.sigma, 1e-6, 1e6, Ends::closed,
           "reward scale in the elimination width B = sqrt(4 sigma^2 ln T / (M n)) (the code's "
           "1/2)")};
  k.check = check;
  k.loop = loop;
  k.actors = false;
  return k;
}

}  // namespace fedsim::actors::algorithms
