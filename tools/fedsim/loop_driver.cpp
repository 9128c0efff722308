#include "tools/fedsim/loop_driver.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include "actors/network_keys.hpp"
#include "actors/recorder.hpp"
#include "actors/run_keys.hpp"
#include "actors/world_objective.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/xarmed/hct_run.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
namespace {

using scenario::Distribution;
using scenario::LinkModel;
using scenario::ScenarioConfig;

bool no_delay(const Distribution& d) {
  return d.kind == Distribution::Kind::constant && d.value == 0.0;
}

/// The key of [world.network]'s link that makes it imperfect, or "".
std::string imperfect_link_key(const LinkModel& link) {
  namespace k = actors::network_keys;
  if (!no_delay(link.compute)) return k::full(k::compute);
  if (!no_delay(link.uplink)) return k::full(k::uplink);
  if (!no_delay(link.downlink)) return k::full(k::downlink);
  if (std::isfinite(link.bandwidth)) return k::full(k::bandwidth);
  if (link.drop != 0.0) return k::full(k::drop);
  if (!link.loss.kind.empty()) return k::full(k::loss);
  if (link.duplicate != 0.0) return k::full(k::duplicate);
  return "";
}

/// The first key that keeps `config`'s network from being perfect, or "".
std::string imperfect_network_key(const ScenarioConfig& config) {
  namespace k = actors::network_keys;
  const auto& n = config.world.network;
  if (auto key = imperfect_link_key(n.link); !key.empty()) return key;
  if (!n.groups.empty()) return k::full(k::groups);
  if (!n.crashes.empty()) return k::full(k::crashes);
  if (!n.partitions.empty()) return k::full(k::partitions);
  if (!n.availability_file.empty()) return k::full(k::availability_file);
  if (n.malformed.rate != 0.0) return k::full(k::malformed) + "." + k::malformed_rate;
  return "";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// fbo::run_reference on the scenario's world objective (any kind; external workers log into
/// dir/workers), recorded as the actors record it (time 0).
DriverResult run_fbo_loop(const ScenarioConfig& config, const std::filesystem::path& dir) {
  const fbo::ReferenceConfig algo = scenario::reference_config(config);
  const auto objective = actors::make_world_objective(config, dir);
  const fbo::ReferenceResult r = fbo::run_reference(algo, *objective);
  const int dimension = objective->dimension();
  std::vector<actors::observation_event> observations;
  observations.reserve(r.observations.size());
  for (const auto& o : r.observations) {
    actors::observation_event e;
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
  actors::ObservationRows rows(observations.size() + 1, actors::ObservationOrder{});
  for (const auto& o : observations) rows.push(o);
  std::vector<actors::round_event> rounds;
  for (const auto& x : r.rounds)
    rounds.push_back({x.round, 0.0, x.stats.received, x.stats.selected, 0, 0, x.stats.rejected,
                      x.stats.clipped, algo.agents, x.stats.noise_std, x.epsilon,
                      /*released=*/true, std::numeric_limits<double>::quiet_NaN(), x.epsilon_rdp,
                      x.epsilon_pld});

  actors::RunResult result;
  // The recorder's own curve over the recorder's own rows: the same numbers as the actors'.
  actors::RegretCurve curve =
      actors::mean_regret_curve(observations, algo.learners(), algo.iterations);
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
    result.agent_epsilon.assign(static_cast<std::size_t>(algo.agents), r.epsilon);
    result.agent_filtered.assign(static_cast<std::size_t>(algo.agents), 0);
  }
  result.delta = algo.effective_delta();
  actors::write_observations((dir / "observations.csv").string(), rows, dimension);
  actors::write_rounds((dir / "rounds.csv").string(), rounds);
  return {result, std::nullopt, std::nullopt};
}

/// xarmed::run_fed_pne, recorded as the actors record it: a pull row per client and phase,
/// a phase row per completed phase.
DriverResult run_fed_pne_loop(const ScenarioConfig& config, const std::filesystem::path& dir) {
  const xarmed::FedPneConfig fp = scenario::fed_pne_config(config);
  const xarmed::FedPneResult r = xarmed::run_fed_pne(fp, *actors::make_xarmed_problem(fp.problem));
  const int m_count = fp.problem.clients;
  actors::PullRows pulls(r.phases.size() * static_cast<std::size_t>(m_count) + 1,
                         actors::PullOrder{});
  std::vector<actors::phase_event> phases;
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
  actors::RunResult result;
  result.client_regret = r.client_regret;
  double total = 0.0;  // summed as the actor run sums it
  for (double x : result.client_regret) total += x;
  result.average_cumulative_regret = total / m_count;
  if (r.privacy) {
    result.epsilon = r.privacy->epsilon;
    result.delta = r.privacy->delta;
  }
  actors::write_pulls((dir / "observations.csv").string(), pulls);
  actors::write_phases((dir / "phases.csv").string(), phases);
  return {result, Communication{r.rounds, r.nodes_sent_per_client, r.nodes_received_per_client},
          std::nullopt};
}

/// xarmed::run_hct: one row per evaluation in the pull layout.
DriverResult run_hct_loop(const ScenarioConfig& config, const std::filesystem::path& dir,
                          const actors::RunObserver* observer) {
  xarmed::HctRunConfig hc = scenario::hct_config(config);
  // Progress as a pull of the one learner (client 0), every hundredth of the budget.
  if (observer && observer->pull)
    hc.on_progress = [observer](std::int64_t steps, double regret) {
      observer->pull(actors::pull_event{0, steps, steps, 0.0, regret});
    };
  const xarmed::HctResult r = xarmed::run_hct(hc, *actors::make_xarmed_problem(hc.problem));
  actors::PullRows pulls(r.regret_curve.size() + 1, actors::PullOrder{});
  for (std::size_t t = 0; t < r.regret_curve.size(); ++t) {
    const auto step = static_cast<std::int64_t>(t + 1);
    pulls.push({0, step, step, 0.0, r.regret_curve[t]});
  }
  actors::RunResult result;
  result.client_regret = {r.cumulative_regret};  // one learner: the central one
  result.average_cumulative_regret = r.cumulative_regret;
  actors::write_pulls((dir / "observations.csv").string(), pulls);
  return {result, std::nullopt,
          HctTree{xarmed::to_string(config.xarmed.fed_pne.hct_variant), r.tree_size, r.depth,
                  r.re_expansions}};
}

}  // namespace

Driver parse_driver(const std::string& name) {
  if (name == "actors") return Driver::actors;
  if (name == "loop") return Driver::loop;
  throw UsageError("--driver: unknown value '" + name + "' (allowed: actors, loop)");
}

std::string to_string(Driver driver) {
  switch (driver) {
    case Driver::actors: return "actors";
    case Driver::loop: return "loop";
  }
  throw std::logic_error("internal error: a driver without a name");
}

void check_driver(const ScenarioConfig& config, Driver driver) {
  switch (driver) {
    case Driver::actors:
      if (config.xarmed.hct)
        throw UsageError("key 'algorithm.name': \"hct\" runs with --driver loop only (the "
                         "actors run fed-pne and dp-fed-pne)");
      return;
    case Driver::loop:
      if (config.run.wall())
        throw UsageError("key '" + actors::run_keys::full(actors::run_keys::time) +
                         "': --driver loop has no clock (it runs no network and charges no "
                         "time), so it cannot run in wall-clock time; use --driver actors, or "
                         "run.time = \"virtual\"");
      if (config.policy.kind != scenario::PolicyConfig::Kind::sync)
        throw UsageError("key 'policy.kind': --driver loop runs policy.kind = \"sync\" only, got \"" +
                         scenario::name_of(config.policy.kind) + "\" (use --driver actors)");
      if (!config.xarmed.enabled && config.algorithm.is_private() &&
          std::isfinite(config.privacy.budget))
        throw UsageError("key 'privacy.budget': --driver loop has no privacy budget (it releases "
                         "every round; use --driver actors)");
      if (!config.xarmed.enabled && config.algorithm.is_private() &&
          std::isfinite(config.privacy.agent_budget))
        throw UsageError("key 'privacy.agent_budget': --driver loop has no per-agent privacy "
                         "filter (every agent takes part in every release; use --driver actors)");
      if (const std::string key = imperfect_network_key(config); !key.empty())
        throw UsageError("key '" + key + "': --driver loop runs a perfect network only (no "
                         "delays, faults, groups, crashes, partitions or availability trace; "
                         "use --driver actors)");
      return;
  }
}

DriverResult run_loop(const ScenarioConfig& config, const std::filesystem::path& dir,
                      const actors::RunObserver* observer) {
  check_driver(config, Driver::loop);
  const auto start = std::chrono::steady_clock::now();
  std::filesystem::create_directories(dir);
  DriverResult result = config.xarmed.hct       ? run_hct_loop(config, dir, observer)
                        : config.xarmed.enabled ? run_fed_pne_loop(config, dir)
                                                : run_fbo_loop(config, dir);
  result.run.wall_time = seconds_since(start);
  return result;
}

DriverResult run_with_driver(const ScenarioConfig& config, const actors::RunOptions& options,
                             Driver driver, actors::FederationSystem* system) {
  check_driver(config, driver);
  switch (driver) {
    case Driver::actors:
      return {system ? actors::run_federation(system->get(), config, options)
                     : actors::run_federation(config, options),
              std::nullopt, std::nullopt};
    case Driver::loop: return run_loop(config, options.out_dir, &options.observer);
  }
  throw std::logic_error("internal error: an unknown driver");
}

}  // namespace fedsim::cli
