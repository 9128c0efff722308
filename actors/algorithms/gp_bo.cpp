/// GP-BO and batched BO, Fed-PNE's Bayesian optimisation baselines (appendix E.1.6-E.1.7,
/// figure 4), run centrally on the X-armed problem for algorithm.budget rounds (--driver loop
/// only). Engine: engine/baselines/gp_bo*, local_penalization.*; readings and defaults:
/// docs/baselines/gp-bo.md. Both follow GPyOpt's defaults (the library the paper ran for BO,
/// "the default setting"): an initial design of 5 uniform points, outputs standardised, ML-II
/// refitted before every proposal with 5 restarts, EI with jitter 0.01 maximised from 1000
/// random anchors of which the best 5 are refined by L-BFGS; the batch by GPyOpt's local
/// penalisation (500 Lipschitz samples, L = 10 for a flat model). Where they differ from
/// GPyOpt (an SE kernel, not Matern 5/2; 300 LML evaluations per fit run, not 1000) the doc
/// says so.
///  - gp-bo: one evaluation of the global objective per round, noisy as a pull is.
///  - batched-bo: batch_size points per round. By default as the paper ran its BBO: M points
///    a round, point j evaluated on client j's local objective (on_locals, batch_size = M);
///    on_locals = false evaluates the batch on the global objective. Regret is always on the
///    global objective.
/// Their loop writes observations.csv in the pull layout: the learner as client 0, one row per
/// round with GpBoRunResult::round_regret_curve, the cumulative regret after the round divided
/// by batch_size (1 for gp-bo): for batched-bo on the locals the average cumulative regret per
/// client, which is what the paper plots for federated algorithms. summary.json's section
/// holds the evaluations, the total cumulative regret over them and the best query's regret.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/algorithms/mesh_rules.hpp"  // problem_dimension
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/gp_bo_run.hpp"

namespace fedsim::actors::algorithms {
namespace {

using baselines::GpBoParams;
using baselines::GpBoRunConfig;

/// The run's engine configuration (batch_size 0: M, the scenario's clients).
GpBoRunConfig engine_config(const Params& p, const scenario::ScenarioConfig& config, bool batched) {
  GpBoRunConfig run;
  GpBoParams& g = run.params;
  g.initial_design = static_cast<int>(p.integer("initial_design"));
  g.xi = p.real("xi");
  g.refit_every = static_cast<int>(p.integer("refit_every"));
  g.fit_restarts = static_cast<int>(p.integer("fit_restarts"));
  g.fit_max_evaluations = static_cast<int>(p.integer("fit_max_evaluations"));
  g.normalize_y = p.flag("normalize_y");
  g.ard = p.flag("ard");
  g.acquisition_samples = static_cast<int>(p.integer("acquisition_samples"));
  g.acquisition_refine = static_cast<int>(p.integer("acquisition_refine"));
  g.acquisition_max_evaluations = static_cast<int>(p.integer("acquisition_max_evaluations"));
  if (batched) {
    const std::int64_t q = p.integer("batch_size");
    g.batch_size = q == 0 ? config.world.agents : static_cast<int>(q);
    g.lipschitz_samples = static_cast<int>(p.integer("lipschitz_samples"));
    g.lipschitz_fallback = p.real("lipschitz_fallback");
    run.on_locals = p.flag("on_locals");
  }
  run.budget = config.xarmed.fed_pne.budget;
  run.seed = config.seed;
  return run;
}

/// The most evaluations a run's GP may hold.
constexpr long long max_evaluations = 2000;

/// Rules across keys (each key's own range is its declaration's): at most max_evaluations; the anchors refined are
/// among the anchors; batched-bo's batch is not 1 (that is gp-bo) and, on the locals, is M;
/// then the engine's own rules, named by the table.
void check_keys(const Params& p, const scenario::ScenarioConfig& config, const std::string& table,
                bool batched) {
  const std::int64_t refine = p.integer("acquisition_refine");
  const std::int64_t samples = p.integer("acquisition_samples");
  if (refine > samples)
    throw std::invalid_argument("key '" + table +
                                ".acquisition_refine': must be <= acquisition_samples (" +
                                std::to_string(samples) + "), got " + std::to_string(refine));
  if (batched) {
    const std::int64_t q = p.integer("batch_size");
    const int m = config.world.agents;
    const std::string key = "key '" + table + ".batch_size': ";
    if (q == 1)
      throw std::invalid_argument(key +
                                  "must be 0 (M) or in [2, 10000], got 1 (one point a "
                                  "round is algorithm.name = \"gp-bo\")");
    if (p.flag("on_locals") && q != 0 && q != m)
      throw std::invalid_argument(key +
                                  "with on_locals = true, point j is client j's: must be "
                                  "0 or M = world.agents = " +
                                  std::to_string(m) + ", got " + std::to_string(q));
  }
  // The GP holds every evaluation: a fit costs O(n^3) per likelihood evaluation, and the
  // paper's 1,000 evaluations took about 2 hours (docs/baselines/gp-bo.md). Twice that at most.
  const std::int64_t per_round =
      batched ? (p.integer("batch_size") == 0 ? config.world.agents : p.integer("batch_size")) : 1;
  const double evaluations =
      static_cast<double>(config.xarmed.fed_pne.budget) * static_cast<double>(per_round);
  if (evaluations > max_evaluations)
    throw std::invalid_argument(
        "key 'algorithm.budget': the GP would hold " + std::to_string(static_cast<long long>(evaluations)) +
        " evaluations (budget x " + std::to_string(per_round) +
        " a round); at most " + std::to_string(max_evaluations) +
        " (a fit costs O(n^3) per likelihood evaluation: the paper's 1,000 took about 2 h)");
  named_by_table(table, [&] {
    engine_config(p, config, batched).validate();
  });
}

/// Its CPU work (scenarios/work.hpp), R = budget rounds of q points (n = initial_design + q r
/// evaluations at round r, d dimensions): a fit every refit_every rounds, fit_restarts x
/// fit_max_evaluations likelihood evaluations of n^3 / 3 + n^2 d each (R n_R^3 / 12 summed over
/// the rounds), of which about a quarter are taken (measured: 13 s at T = 150; the paper's
/// 1,000 took about 2 h, 4.7 h estimated); q acquisitions a round, (acquisition_samples +
/// acquisition_refine x acquisition_max_evaluations) predictions of n^2 each; batched:
/// lipschitz_samples predictions a round.
std::vector<WorkPart> work_of(const Params& p, const scenario::ScenarioConfig& config,
                              bool batched) {
  const GpBoRunConfig run = engine_config(p, config, batched);
  const baselines::GpBoParams& g = run.params;
  const double q = batched ? g.batch_size : 1;
  const double rounds = static_cast<double>(run.budget);
  const double last = g.initial_design + q * rounds;  // n at the last round
  const double d = problem_dimension(config);
  const double fits = rounds / g.refit_every;
  const double predictions =
      q * (g.acquisition_samples +
           static_cast<double>(g.acquisition_refine) * g.acquisition_max_evaluations) +
      (batched ? g.lipschitz_samples : 0);
  return {{"algorithm.budget",
           "the GP's fits (R / refit_every x restarts x max_evaluations / 4 x (n^3 / 3 + n^2 d), "
           "n up to " +
               std::to_string(static_cast<long long>(last)) + ")",
           fits * g.fit_restarts * g.fit_max_evaluations / 4 *
               (last * last * last / 12 + last * last * d / 3) * seconds_per_flop},
          {"algorithm.budget", "the acquisitions (R q (samples + refine x max_evaluations) n^2)",
           rounds * predictions * last * last / 3 * seconds_per_flop}};
}

std::vector<WorkPart> work_gp_bo(const Params& p, const scenario::ScenarioConfig& config) {
  return work_of(p, config, false);
}
std::vector<WorkPart> work_batched_bo(const Params& p, const scenario::ScenarioConfig& config) {
  return work_of(p, config, true);
}

void check_gp_bo(const Params& p, const scenario::ScenarioConfig& config,
                 const std::string& table) {
  check_keys(p, config, table, false);
}

void check_batched_bo(const Params& p, const scenario::ScenarioConfig& config,
                      const std::string& table) {
  check_keys(p, config, table, true);
}

LoopRun run_loop(const LoopInput& in, bool batched) {
  const scenario::ScenarioConfig& c = in.config;
  GpBoRunConfig run = engine_config(scenario::algorithm_params(c), c, batched);
  run.on_progress = central_progress(in.observer);
  const auto problem = make_xarmed_problem(scenario::fed_pne_config(c).problem);
  const baselines::GpBoRunResult r = baselines::run_gp_bo(run, *problem);
  write_central_pulls(in.dir / "observations.csv", r.round_regret_curve);
  double best = r.records.front().regret;
  for (const auto& e : r.records) best = std::min(best, e.regret);
  LoopRun out;
  // One learner, recorded as client 0: its curve's last value (R(T) for gp-bo; R(T) / M for
  // batched-bo on the locals, the paper's average cumulative regret per client).
  out.run.client_regret = {r.round_regret_curve.back()};
  out.run.average_cumulative_regret = r.round_regret_curve.back();
  SummarySection s{batched ? "batched-bo" : "gp-bo",
                   {{"evaluations", static_cast<std::int64_t>(r.records.size())},
                    {"cumulative_regret_all_evaluations", r.cumulative_regret},
                    {"best_query_regret", best}}};
  if (batched) {
    s.entries.push_back({"batch_size", static_cast<std::int64_t>(run.params.batch_size)});
    s.entries.push_back({"on_locals", run.on_locals});
  }
  out.summary.push_back(std::move(s));
  return out;
}

LoopRun loop_gp_bo(const LoopInput& in) { return run_loop(in, false); }
LoopRun loop_batched_bo(const LoopInput& in) { return run_loop(in, true); }

/// The keys both share: GpBoParams' defaults (GPyOpt's), ranges that refuse what cannot run
/// (no observations before the GP, no fit, no anchors) or costs beyond reason.
std::vector<Parameter> shared_parameters() {
  return {integer("initial_design", 5, 1, 100000,
                  "uniform random points before the GP is used (GPyOpt: 5)"),
          real("xi", 0.01, 0, 10, Ends::closed,
               "EI's jitter, in standardised output units (GPyOpt: 0.01)"),
          integer("refit_every", 1, 1, 1000000,
                  "refit the hyperparameters every this many new observations (GPyOpt: 1)"),
          integer("fit_restarts", 5, 1, 1000,
                  "L-BFGS runs of each ML-II fit, the first warm-started (GPyOpt: 5)"),
          integer("fit_max_evaluations", 300, 1, 100000,
                  "log marginal likelihood evaluations per fit run (GPyOpt: 1000 iterations)"),
          flag("normalize_y", true, "standardise the outputs before the fit (GPyOpt: true)"),
          flag("ard", false, "one SE lengthscale per axis instead of one shared (GPyOpt: false)"),
          integer("acquisition_samples", 1000, 1, 1000000,
                  "random anchors scored per acquisition maximisation (GPyOpt: 1000)"),
          integer("acquisition_refine", 5, 0, 1000,
                  "best anchors refined by L-BFGS, at most acquisition_samples (GPyOpt: 5)"),
          integer("acquisition_max_evaluations", 1000, 1, 1000000,
                  "acquisition evaluations per refinement (GPyOpt: 1000)")};
}

}  // namespace

AlgorithmKind gp_bo() {
  AlgorithmKind k =
      xarmed_kind("gp-bo", {false, false, false},
                  "GP Bayesian optimisation (EI, ML-II hyperparameters) on the global objective, "
                  "centralised (--driver loop only)",
                  "GPyOpt's defaults; Fed-PNE (Li et al. 2023), figure 4 and appendix E.1.6");
  k.parameters = shared_parameters();
  k.check = check_gp_bo;
  k.loop = loop_gp_bo;
  k.work = work_gp_bo;
  k.actors = false;
  return k;
}

AlgorithmKind batched_bo() {
  AlgorithmKind k = xarmed_kind(
      "batched-bo", {false, false, false},
      "batched GP Bayesian optimisation by local penalisation, point j of a round on client "
      "j's objective (--driver loop only)",
      "Gonzalez et al. 2016 (GPyOpt's local penalisation); Fed-PNE (Li et al. 2023), figure 4 "
      "and appendix E.1.7");
  k.parameters = shared_parameters();
  k.parameters.push_back(integer("batch_size", 0, 0, 10000,
                                 "points per round; 0: M = world.agents (the paper's BBO); not 1"));
  k.parameters.push_back(flag("on_locals", true,
                              "point j of a round evaluated on client j's local objective "
                              "(batch_size = M, the paper's BBO); false: all on the global one"));
  k.parameters.push_back(integer("lipschitz_samples", 500, 0, 1000000,
                                 "random points of the Lipschitz estimate max |grad mu| (GPyOpt: "
                                 "500)"));
  k.parameters.push_back(real("lipschitz_fallback", 10.0, 1e-6, 1e6, Ends::closed,
                              "the Lipschitz constant when the model is flat (GPyOpt: 10)"));
  k.check = check_batched_bo;
  k.loop = loop_batched_bo;
  k.work = work_batched_bo;
  k.actors = false;
  return k;
}

}  // namespace fedsim::actors::algorithms
