/// KernelTS (GP Thompson sampling, Chowdhury & Gopalan 2017) run centrally on the X-armed
/// problem's global objective, as Fed-PNE's figure 2 runs it: one evaluation of the global
/// objective per round, noisy as a pull is, for algorithm.budget rounds. Engine:
/// engine/baselines/kernel_ts*; readings and defaults: docs/baselines/kernel-ts.md. Its loop
/// writes observations.csv in the pull layout (the learner as client 0, one row per round with
/// the cumulative regret) and summary.json's "kernel-ts" (the candidate prior's rank).
#include <algorithm>
#include <stdexcept>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/algorithms/mesh_rules.hpp"  // problem_dimension
#include "actors/run_config.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/kernel_ts_run.hpp"

namespace fedsim::actors::algorithms {
namespace {

using baselines::KernelTsParams;

KernelTsParams engine_params(const Params& p) {
  KernelTsParams k;
  k.lengthscale = p.real("lengthscale");
  k.signal_variance = p.real("signal_variance");
  k.lambda = p.real("lambda");
  const std::string& scaling = p.choice("scaling");
  if (scaling == "fixed") k.scaling = baselines::KernelTsScaling::fixed;
  else if (scaling == "theory") k.scaling = baselines::KernelTsScaling::theory;
  else throw std::logic_error("kernel-ts: scaling '" + scaling + "' has no engine value");
  k.v = p.real("v");
  k.B = p.real("B");
  k.R = p.real("R");
  k.delta = p.real("delta");
  k.candidates_per_dim = static_cast<int>(p.integer("candidates_per_dim"));
  const std::string& posterior = p.choice("posterior");
  if (posterior == "factor") k.posterior = baselines::KernelTsPosterior::factor;
  else if (posterior == "exact") k.posterior = baselines::KernelTsPosterior::exact;
  else throw std::logic_error("kernel-ts: posterior '" + posterior + "' has no engine value");
  k.factor_tolerance = p.real("factor_tolerance");
  return k;
}

/// candidates_per_dim is not 1, and the engine's own rules (at most 100,000 candidates on
/// the problem's domain; the rest the parameters' rules already hold), named by the table.
void check(const Params& p, const scenario::ScenarioConfig& config, const std::string& table) {
  if (p.integer("candidates_per_dim") == 1)
    throw std::invalid_argument("key '" + table + ".candidates_per_dim': must be 0 (auto) or in "
                                "[2, 100000], got 1");
  named_by_table(table, [&] {
    const KernelTsParams k = engine_params(p);
    k.validate();
    // The dimension only: a problem of one client (M clients' objectives would take memory
    // the load has not yet estimated).
    xarmed::ProblemConfig one = scenario::fed_pne_config(config).problem;
    one.clients = 1;
    const auto problem = make_xarmed_problem(one);
    double candidates = 1.0;
    for (int j = 0; j < problem->domain.dim(); ++j) candidates *= k.points_per_dim(problem->domain.dim());
    if (candidates > 100000.0)
      throw std::invalid_argument("candidates_per_dim^d must be <= 100000 on this " +
                                  std::to_string(problem->domain.dim()) + "-dimensional domain");
  });
}

LoopRun loop(const LoopInput& in) {
  const scenario::ScenarioConfig& c = in.config;
  baselines::KernelTsRunConfig run;
  run.params = engine_params(scenario::algorithm_params(c));
  run.budget = c.xarmed.fed_pne.budget;
  run.seed = c.seed;
  const auto problem = make_xarmed_problem(scenario::fed_pne_config(c).problem);
  const baselines::KernelTsRunResult r = baselines::run_kernel_ts(run, *problem);
  std::vector<double> curve;
  curve.reserve(r.records.size());
  for (const auto& e : r.records) curve.push_back(e.cumulative_regret);
  write_central_pulls(in.dir / "observations.csv", curve);
  LoopRun out;
  out.run.client_regret = {r.cumulative_regret};  // one learner: the central one
  out.run.average_cumulative_regret = r.cumulative_regret;
  out.summary.push_back({"kernel-ts", {{"factor_rank", static_cast<std::int64_t>(r.factor_rank)}}});
  return out;
}

/// Its CPU work (scenarios/work.hpp), n_c candidates on the problem's d-dimensional domain and T
/// rounds: exact, the dense posterior on the candidates factored every round (T (n_c^3 / 3 + 2
/// n_c^2)); factor, the prior's pivoted-Cholesky factor once and a rank-one update and a draw
/// a round, with r = min(n_c, 20) columns (n_c r^2 + T (n_c r + r^2); measured 0.06 s at
/// n_c = 1000, T = 10^4, 0.15 s estimated).
std::vector<WorkPart> work(const Params& p, const scenario::ScenarioConfig& config) {
  const KernelTsParams k = engine_params(p);
  const int d = problem_dimension(config);
  double candidates = 1.0;
  for (int j = 0; j < d; ++j) candidates *= k.points_per_dim(d);
  const double rounds = static_cast<double>(config.xarmed.fed_pne.budget);
  if (k.posterior == baselines::KernelTsPosterior::exact)
    return {{"algorithm.kernel-ts.posterior",
             "KernelTS's exact posterior, factored every round (T (n_c^3 / 3 + 2 n_c^2), n_c = " +
                 std::to_string(static_cast<long long>(candidates)) + ")",
             rounds * (candidates * candidates * candidates / 3 + 2 * candidates * candidates) *
                 seconds_per_flop}};
  const double r = std::min(candidates, 20.0);
  return {{"algorithm.budget",
           "KernelTS's factored posterior (n_c r^2 + T (n_c r + r^2), r = min(n_c, 20), n_c = " +
               std::to_string(static_cast<long long>(candidates)) + ")",
           (candidates * r * r + rounds * (candidates * r + r * r)) * seconds_per_flop}};
}

}  // namespace

AlgorithmKind kernel_ts() {
  AlgorithmKind k = xarmed_kind(
      "kernel-ts", {false, false, false},
      "GP Thompson sampling on the global objective, centralised (--driver loop only)",
      "Chowdhury & Gopalan 2017 (GP-TS); Fed-PNE (Li et al. 2023), figure 2 and appendix E.1.2");
  k.parameters = {
      // Bounded away from 0: a length scale of 5e-324 squares to 0, a variance of 1e-300
      // underflows the posterior's solves.
      real("lengthscale", 0.70710678118654752, 1e-6, 1e6, Ends::closed,
           "SE kernel length scale (default: NeuralTS's rbf_kernel, gamma = 1)"),
      real("signal_variance", 1.0, 1e-12, 1e6, Ends::closed, "SE kernel signal variance"),
      real("lambda", 1.0, 1e-12, 1e6, Ends::closed,
           "regulariser, the GP's noise variance (GP-TS theory: 1 + 2/T)"),
      choice("scaling", "fixed", {"fixed", "theory"},
             "the posterior's scale v_t: v (fixed, NeuralTS's), or GP-TS's B + R sqrt(2 (gamma + "
             "1 + ln(2 / delta))) (theory)"),
      real("v", 1.0, 0, 1e6, Ends::closed, "v_t with scaling = fixed"),
      real("B", 1.0, 0, 1e6, Ends::closed, "scaling = theory: bound on f's RKHS norm"),
      real("R", 0.1, 0, 1e6, Ends::closed, "scaling = theory: the noise's sub-Gaussian constant"),
      real("delta", 0.05, 0, 1, Ends::open, "scaling = theory: failure probability"),
      integer("candidates_per_dim", 0, 0, 100000,
              "points per axis of the candidate grid; 0: 1000 in 1-D, floor(1000^(1/d)) in d-D "
              "(at most 100,000 candidates)"),
      choice("posterior", "factor", {"factor", "exact"},
             "factor: weight space on the prior's pivoted-Cholesky factor (O(n r + r^2) a round); "
             "exact: the dense GP posterior (O(n^3) a round, n candidates)"),
      real("factor_tolerance", 1e-10, 1e-15, 1, Ends::open_high,
           "posterior = factor: relative truncation of the prior factor")};
  k.check = check;
  k.loop = loop;
  k.work = work;
  k.actors = false;
  return k;
}

}  // namespace fedsim::actors::algorithms
