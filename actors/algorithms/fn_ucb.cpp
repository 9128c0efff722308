/// FN-UCB (Dai et al. 2023, "Federated Neural Bandits") on the X-armed problem's clients, as
/// Fed-PNE's figure 2 runs it: the N = world.agents clients each pull one arm of Fed1-UCB's mesh
/// per round, scored by GP-UCB on the network's tangent features and a trained network, mixed
/// by alpha_t; a synchronisation through the server follows every round in which a client's
/// determinant criterion exceeded D; T = algorithm.budget rounds. Engine:
/// engine/baselines/fn_ucb*; readings and defaults: docs/baselines/fn-ucb.md (the defaults scale
/// three of the authors' code's values down; width = 20, train_steps = 30,
/// stop_training_after = 2000 are the code's, FnUcbParams::authors()).
///
/// Its loop (run_fn_ucb, --driver loop only) writes observations.csv in the pull layout, every
/// client at a fixed stride of rounds: s = ceil(T / 100), a row (client i, phase = the
/// synchronisations run so far, step t, time 0, i's cumulative regret after round t) for every
/// t a multiple of s and for t = T, so at most 101 rows per client whatever T (at D = 0 a
/// synchronisation follows every round but the last: a row per round would be N T rows).
/// summary.json's "fn-ucb" holds the communication the engine loop counts: rounds (the
/// synchronisations), numbers_sent_per_client and numbers_received_per_client (the payloads'
/// lengths, p^2 + p + [p^2] + [p] each), with arms (K^d) and parameters (p, the network's).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/algorithms/mesh_rules.hpp"
#include "actors/recorder.hpp"
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/fn_ucb_run.hpp"

namespace fedsim::actors::algorithms {
namespace {

using baselines::FnUcbParams;

/// The engine's parameters: the kind's keys, T from algorithm.budget, N from world.agents.
FnUcbParams engine_params(const Params& p, const scenario::ScenarioConfig& config) {
  FnUcbParams f;
  f.arms_per_dim = static_cast<int>(p.integer("arms_per_dim"));
  f.width = static_cast<int>(p.integer("width"));
  f.lambda = p.real("lambda");
  f.nu_gp = p.real("nu_gp");
  f.nu_nn = p.real("nu_nn");
  f.sync_threshold = p.real("sync_threshold");
  f.alpha_delay = p.integer("alpha_delay");
  f.alpha_ramp = p.integer("alpha_ramp");
  f.train_steps = static_cast<int>(p.integer("train_steps"));
  f.learning_rate = p.real("learning_rate");
  f.stop_training_after = p.integer("stop_training_after");
  f.budget = config.xarmed.fed_pne.budget;
  f.clients = config.world.agents;
  return f;
}

/// The mesh's rules (mesh_rules.hpp), then the engine's own, named by the table.
void check(const Params& p, const scenario::ScenarioConfig& config, const std::string& table) {
  const FnUcbParams f = engine_params(p, config);
  check_mesh_rules(f.arms_per_dim, config, table, "fn-ucb");
  named_by_table(table, [&] {
    f.validate();
  });
}

/// Its CPU work (scenarios/work.hpp), K = arms_per_dim^d arms and p = width (d + 2) + 1
/// parameters: every client every round factors and inverts p x p matrices and scores the K
/// arms on their tangent features (p^3 + 2 K p^2), and until stop_training_after trains its
/// network on its t observations (train_steps 6 p t).
std::vector<WorkPart> work(const Params& p, const scenario::ScenarioConfig& config) {
  const FnUcbParams f = engine_params(p, config);
  const double d = problem_dimension(config);
  const double arms = std::pow(static_cast<double>(f.arms_per_dim), d);
  const double params = f.width * (d + 2) + 1;
  const double clients = f.clients, rounds = static_cast<double>(f.budget);
  const double trained = std::min(rounds, static_cast<double>(f.stop_training_after));
  return {{"algorithm.fn-ucb.width",
           "FN-UCB's scores and updates (M T (p^3 + 2 K p^2), p = width (d + 2) + 1 = " +
               std::to_string(static_cast<long long>(params)) + ")",
           clients * rounds * (params * params * params + 2 * arms * params * params) *
               seconds_per_flop},
          {"algorithm.fn-ucb.train_steps",
           "FN-UCB's training (M train_steps 3 p min(T, stop_training_after)^2)",
           clients * f.train_steps * 3 * params * trained * trained * seconds_per_flop}};
}

LoopRun loop(const LoopInput& in) {
  const scenario::ScenarioConfig& c = in.config;
  baselines::FnUcbRunConfig run;
  run.params = engine_params(scenario::algorithm_params(c), c);
  run.seed = c.seed;
  run.record_pulls = false;  // on_round records the regret at the stride
  const std::int64_t budget = run.params.budget;
  const std::int64_t stride = (budget + 99) / 100;
  const auto m_count = static_cast<std::size_t>(run.params.clients);
  PullRows pulls(m_count * static_cast<std::size_t>(budget / stride + 1) + 1, PullOrder{});
  run.on_round = [&pulls, stride, budget](std::int64_t t, const std::vector<double>& regret,
                                          std::int64_t syncs) {
    if (t % stride != 0 && t != budget) return;
    for (std::size_t i = 0; i < regret.size(); ++i)
      pulls.push({static_cast<std::int32_t>(i), syncs, t, 0.0, regret[i]});
  };
  const auto problem = make_xarmed_problem(scenario::fed_pne_config(c).problem);
  const baselines::FnUcbRunResult r = baselines::run_fn_ucb(run, *problem);
  write_pulls((in.dir / "observations.csv").string(), pulls);
  LoopRun out;
  out.run.client_regret = r.client_regret;
  out.run.average_cumulative_regret = r.average_regret;
  out.summary.push_back(
      {"fn-ucb",
       {{"rounds", static_cast<std::int64_t>(r.sync_rounds.size())},
        {"numbers_sent_per_client", r.numbers_sent_per_client},
        {"numbers_received_per_client", r.numbers_received_per_client},
        {"arms", r.model->arms()},
        {"parameters", static_cast<std::int64_t>(r.model->parameters())}}});
  return out;
}

}  // namespace

AlgorithmKind fn_ucb() {
  const FnUcbParams d;  // the engine's defaults (docs/baselines/fn-ucb.md)
  AlgorithmKind k = xarmed_kind(
      "fn-ucb", {true, false, false},
      "federated neural UCB over a mesh of arms: GP-UCB on the network's tangent features and a "
      "trained network, N clients synchronised by a server (--driver loop only)",
      "Dai et al. 2023 (FN-UCB); Fed-PNE (Li et al. 2023), figure 2 and appendix E.1.4");
  k.parameters = {
      integer("arms_per_dim", d.arms_per_dim, 1, baselines::max_mesh_arms,
              "K, arms per axis of the mesh (K^d arms, at most 10^6): Fed1-UCB's mesh"),
      integer("width", d.width, 1, 4096,
              "m, hidden units of the one-hidden-layer network (the authors' code: 20)"),
      // Bounded away from 0: every V is >= lambda I, and the checks bound V^-1 by I / lambda.
      real("lambda", d.lambda, 1e-6, 1e6, Ends::closed, "regulariser lambda (V = lambda I + ...)"),
      real("nu_gp", d.nu_gp, 0, 1e6, Ends::closed, "nu of the GP-UCB part U_b (the code's nu)"),
      real("nu_nn", d.nu_nn, 0, 1e6, Ends::closed, "nu of the network part U_a (the code's nu_2)"),
      real("sync_threshold", d.sync_threshold, 0, 1e15, Ends::closed,
           "D: synchronise after round t when a client's (t - t_last) log(det V / det V_last) > "
           "D (0: after every round but the last)"),
      integer("alpha_delay", d.alpha_delay, 0, 1000000000,
              "rounds of alpha = 0 (the GP-UCB part alone) before alpha's ramp"),
      integer("alpha_ramp", d.alpha_ramp, 1, 1000000000,
              "rounds of alpha's linear ramp from 0 to 1: alpha_t = clamp((t - 1 - alpha_delay) "
              "/ alpha_ramp, 0, 1)"),
      integer("train_steps", d.train_steps, 1, 1000000,
              "gradient steps per training of a client's network (the authors' code: 30)"),
      real("learning_rate", d.learning_rate, 1e-12, 1e3, Ends::closed,
           "step size of those gradient steps"),
      integer("stop_training_after", d.stop_training_after, 0, 1000000000,
              "no training (nor networks sent) at synchronisations after this round (the "
              "authors' code: 2000)")};
  k.check = check;
  k.loop = loop;
  k.work = work;
  k.actors = false;
  return k;
}

}  // namespace fedsim::actors::algorithms
