#include <limits>
#include <vector>

#include "actors/algorithms/loop_run.hpp"
#include "actors/recorder.hpp"
#include "actors/world_objective.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::algorithms {

using scenario::ScenarioConfig;

/// fbo::run_reference on the scenario's world objective (any kind; external workers log into
/// dir/workers), recorded as the actors record it (time 0).
LoopRun fbo_loop(const LoopInput& input) {
  const ScenarioConfig& config = input.config;
  const std::filesystem::path& dir = input.dir;
  const fbo::ReferenceConfig algo = scenario::reference_config(config);
  const auto objective = make_world_objective(config, dir);
  const fbo::ReferenceResult r = fbo::run_reference(algo, *objective);
  const int dimension = objective->dimension();
  std::vector<observation_event> observations;
  observations.reserve(r.observations.size());
  for (const auto& o : r.observations) {
    observation_event e;
    e.agent = o.agent;
    e.iteration = o.iteration;
    e.index = o.index;
    e.x.assign(o.x.data(), o.x.data() + o.x.size());
    e.y = o.y;
    e.f = o.f;
    e.simple_regret = o.simple_regret;
    e.best_y = o.best_y;
    e.branch = static_cast<std::int32_t>(o.branch);
    e.source = o.source;
    e.wall_seconds = std::numeric_limits<double>::quiet_NaN();  // the loop measures none
    observations.push_back(std::move(e));
  }
  // Every row in memory (the loop holds them all anyway): no spill.
  ObservationRows rows(observations.size() + 1, ObservationOrder{});
  for (const auto& o : observations) rows.push(o);
  std::vector<round_event> rounds;
  for (const auto& x : r.rounds)
    rounds.push_back({x.round, 0.0, x.stats.received, x.stats.selected, 0, 0, x.stats.rejected,
                      x.stats.clipped, algo.agents, x.stats.noise_std, x.epsilon,
                      /*released=*/true, std::numeric_limits<double>::quiet_NaN(), x.epsilon_rdp,
                      x.epsilon_pld});

  RunResult result;
  // The recorder's own curve over the recorder's own rows: the same numbers as the actors'.
  RegretCurve curve =
      mean_regret_curve(observations, algo.learners(), algo.iterations);
  result.mean_simple_regret = std::move(curve.mean);
  result.agents_without_observations = curve.without_observations;
  result.mean_best_observed = curve.mean_best_observed;
  if (!result.mean_simple_regret.empty())
    result.final_simple_regret = result.mean_simple_regret.back();
  if (algo.is_private()) {
    result.epsilon = r.epsilon;
    result.epsilon_rdp = r.epsilon_rdp;
    result.epsilon_pld = r.epsilon_pld;
    result.releases = static_cast<std::int64_t>(r.rounds.size());
    // A perfect network under sync: every agent's report is in every release.
    result.agent_releases.assign(static_cast<std::size_t>(algo.agents), result.releases);
    ParticipationContext loop;
    loop.loop = true;
    result.privacy_basis = privacy_basis(input.config, loop);
    // Priced as the actors' accountant would: by the run's accountant on the count, or at the
    // Rényi filter's order when privacy.filter = "rdp" names it.
    const auto& rdp = result.privacy_basis->rdp;
    result.agent_epsilon.assign(static_cast<std::size_t>(algo.agents),
                                rdp ? rdp->epsilon(result.releases, algo.effective_delta()) : r.epsilon);
    result.agent_filtered.assign(static_cast<std::size_t>(algo.agents), 0);
  }
  result.delta = algo.effective_delta();
  write_observations((dir / "observations.csv").string(), rows, dimension);
  write_rounds((dir / "rounds.csv").string(), rounds);
  return {result, std::nullopt, {}};
}

/// xarmed::run_fed_pne, recorded as the actors record it: a pull row per client and phase,
/// a phase row per completed phase.
LoopRun fed_pne_loop(const LoopInput& input) {
  const ScenarioConfig& config = input.config;
  const std::filesystem::path& dir = input.dir;
  const xarmed::FedPneConfig fp = scenario::fed_pne_config(config);
  const xarmed::FedPneResult r = xarmed::run_fed_pne(fp, *make_xarmed_problem(fp.problem));
  const int m_count = fp.problem.clients;
  PullRows pulls(r.phases.size() * static_cast<std::size_t>(m_count) + 1,
                         PullOrder{});
  std::vector<phase_event> phases;
  for (const auto& p : r.phases) {
    for (int m = 0; m < m_count; ++m)
      pulls.push({m, p.phase, p.start + p.steps, 0.0,
                  p.client_regret[static_cast<std::size_t>(m)]});
    if (p.completed)
      phases.push_back({p.phase, 0.0, p.depth, static_cast<std::int64_t>(p.nodes),
                        p.pulls_per_node, m_count, 0, 0, 0, m_count,
                        static_cast<std::int64_t>(p.survivors), p.best_mean,
                        p.confidence_width});
  }
  RunResult result;
  result.client_regret = r.client_regret;
  double total = 0.0;  // summed as the actor run sums it
  for (double x : result.client_regret) total += x;
  result.average_cumulative_regret = total / m_count;
  if (r.privacy) {
    result.epsilon = r.privacy->epsilon;
    result.delta = r.privacy->delta;
  }
  write_pulls((dir / "observations.csv").string(), pulls);
  write_phases((dir / "phases.csv").string(), phases);
  return {result, Communication{r.rounds, r.nodes_sent_per_client, r.nodes_received_per_client},
          {}};
}

void write_central_pulls(const std::filesystem::path& file,
                         const std::vector<double>& regret_curve) {
  PullRows pulls(regret_curve.size() + 1, PullOrder{});
  for (std::size_t t = 0; t < regret_curve.size(); ++t) {
    const auto step = static_cast<std::int64_t>(t + 1);
    pulls.push({0, step, step, 0.0, regret_curve[t]});
  }
  write_pulls(file.string(), pulls);
}

std::function<void(std::int64_t, double)> central_progress(const RunObserver* observer) {
  if (!observer || !observer->pull) return {};
  return [observer](std::int64_t steps, double regret) {
    pull_event e;  // one central learner: client 0, a "phase" per pull, no clock
    e.phase = steps;
    e.steps = steps;
    e.cumulative_regret = regret;
    observer->pull(e);
  };
}

}  // namespace fedsim::actors::algorithms
