#include "tools/fedsim/run_outputs.hpp"

#include <variant>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "actors/csv_writer.hpp"
#include "actors/record_csv.hpp"
#include "actors/policy/liveness.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/json_number.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/version.hpp"

namespace fedsim::cli {

namespace {

/// The fields every run's summary has: identity, privacy, messages and times.
nlohmann::json common_summary(const scenario::ScenarioConfig& c, const actors::RunResult& r,
                              Driver driver, const std::string& algorithm, bool is_private) {
  const auto& n = r.network;
  return {{"scenario", c.name},
          {"driver", to_string(driver)},
          {"source", c.source_file},
          {"seed", c.seed},
          {"version", fedsim_version()},
          {"build", fedsim_build()},
          {"config_hash", config_hash(c)},
          {"algorithm", algorithm},
          {"policy", scenario::name_of(c.policy.kind)},
          {"completed", r.completed},
          {"reason", r.completed ? nlohmann::json(nullptr) : nlohmann::json(r.reason)},
          {"epsilon", is_private ? nlohmann::json(r.epsilon) : nlohmann::json(nullptr)},
          {"delta", is_private ? nlohmann::json(r.delta) : nlohmann::json(nullptr)},
          {"messages",
           {{"sent", n.sent},
            {"delivered", n.delivered},
            {"dropped", n.dropped},
            {"duplicated", n.duplicated},
            {"corrupted", n.corrupted},
            {"bytes", n.bytes}}},
          {"virtual_time", r.last_query_time},
          {"virtual_time_last_event", n.final_time},
          {"wall_time_s", r.wall_time}};
}

/// The run's clock (docs/wall-clock.md): "time" (virtual or wall); in wall-clock time also
/// its scale, whether compute time was injected, and what the network added to deliveries
/// (median and 99th percentile of the lateness, wall seconds; null when nothing was delivered).
nlohmann::json clock_summary(const scenario::ScenarioConfig& c, const actors::RunResult& r) {
  nlohmann::json clock = {{"time", scenario::name_of(c.run.time)}};
  if (!c.run.wall()) return clock;
  clock["time_scale"] = c.run.time_scale;
  clock["injected_compute"] = c.run.injected_compute;
  clock["delivery_lateness_median_s"] = number_or_null(r.network.lateness_median);
  clock["delivery_lateness_p99_s"] = number_or_null(r.network.lateness_p99);
  return clock;
}

/// The algorithm's own sections (its loop's LoopRun::summary).
void add_sections(nlohmann::json& s, const DriverResult& d) {
  for (const actors::algorithms::SummarySection& section : d.summary) {
    nlohmann::json& o = s[section.name] = nlohmann::json::object();
    for (const auto& [name, value] : section.entries)
      std::visit([&o, &name = name](const auto& v) { o[name] = v; }, value);
  }
}

/// The summary of the run's kind (Fed-PNE or HCT, or FBO).
nlohmann::json kind_summary(const scenario::ScenarioConfig& c, const DriverResult& d,
                            Driver driver) {
  const actors::RunResult& r = d.run;
  if (c.xarmed.enabled) {
    const auto& fp = c.xarmed.fed_pne;
    nlohmann::json s = common_summary(c, r, driver, scenario::algorithm_kind(c).name,
                                      fp.is_private());
    s["objective"] = xarmed::to_string(fp.problem.objective);
    s["clients"] = c.world.agents;
    s["budget"] = fp.budget;
    s["mean_final_simple_regret"] = nullptr;  // an FBO metric; see the cumulative regret
    // Over the clients that pulled at least once (agents_without_observations: those that did
    // not). HCT is centralised: its one learner's cumulative regret R(T) on the global
    // objective, the quantity the paper sets against Fed-PNE's R(T) / M.
    s["average_cumulative_regret_per_client"] =
        r.agents_without_observations < c.world.agents ? nlohmann::json(r.average_cumulative_regret)
                                                       : nlohmann::json(nullptr);
    s["agents_without_observations"] = r.agents_without_observations;
    s["client_cumulative_regret"] = r.client_regret;
    add_sections(s, d);
    if (d.communication)
      s["communication"] = {{"rounds", d.communication->rounds},
                            {"nodes_sent_per_client", d.communication->nodes_sent_per_client},
                            {"nodes_received_per_client",
                             d.communication->nodes_received_per_client}};
    return s;
  }
  nlohmann::json s = common_summary(c, r, driver, scenario::algorithm_kind(c).name,
                                    c.algorithm.is_private());
  s["agents"] = c.world.agents;
  // The agents whose regret the run reports: every agent, or FTS's target agent alone.
  s["learners"] = scenario::reference_config(c).learners();
  s["iterations"] = c.algorithm.iterations;
  // Means over the learners that observed anything; the others are counted, not averaged.
  s["mean_final_simple_regret"] = r.mean_simple_regret.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(r.final_simple_regret);
  s["mean_simple_regret_by_iteration"] = r.mean_simple_regret;
  // Needs no known optimum: the mean over the learners of the best y each observed.
  s["mean_best_observed"] = std::isnan(r.mean_best_observed)
                                ? nlohmann::json(nullptr)
                                : nlohmann::json(r.mean_best_observed);
  s["failed_evaluations"] = r.failed_evaluations;
  s["agents_without_observations"] = r.agents_without_observations;
  s["private_releases"] = r.releases;
  // The same releases by both accountants, whichever privacy.accountant names (docs/privacy.md).
  const bool is_private = c.algorithm.is_private();
  s["epsilon_rdp"] = is_private ? nlohmann::json(r.epsilon_rdp) : nlohmann::json(nullptr);
  s["epsilon_pld"] = is_private ? nlohmann::json(r.epsilon_pld) : nlohmann::json(nullptr);
  // Per agent (privacy_agents.csv has each): the distribution of the agents' own epsilons,
  // and how many agents the per-agent filter stopped (null for a run that is not private).
  s["epsilon_per_agent"] = nullptr;
  s["agents_filtered"] = nullptr;
  if (is_private && !r.agent_epsilon.empty()) {
    std::vector<double> e = r.agent_epsilon;
    std::sort(e.begin(), e.end());
    const std::size_t n = e.size();
    s["epsilon_per_agent"] = {{"min", e.front()},
                              {"median", n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2},
                              {"max", e.back()}};
    s["agents_filtered"] = std::count_if(r.agent_filtered.begin(), r.agent_filtered.end(),
                                         [](std::int64_t k) { return k > 0; });
  }
  // What those numbers rest on (docs/privacy.md, "Per-agent privacy").
  s["privacy_basis"] = nullptr;
  if (is_private && r.privacy_basis) {
    const actors::PrivacyBasis& b = *r.privacy_basis;
    s["privacy_basis"] = {
        {"participation", b.adaptive ? "adaptive" : "not adaptive"},
        {"reasons", b.reasons},
        {"assumed_nonadaptive", b.assumed_nonadaptive},
        {"filter", scenario::name_of(b.filter)},
        {"rdp_order", b.rdp ? nlohmann::json(b.rdp->order) : nlohmann::json(nullptr)},
        {"per_agent_epsilon", actors::per_agent_meaning(b)},
        {"epsilon_guarantee",
         number_or_null(actors::epsilon_guarantee(b, r.epsilon, c.privacy.budget))}};
  }
  add_sections(s, d);
  return s;
}

}  // namespace

nlohmann::json run_summary(const scenario::ScenarioConfig& c, const DriverResult& d,
                           Driver driver) {
  nlohmann::json s = kind_summary(c, d, driver);
  s["clock"] = clock_summary(c, d.run);
  if (d.run.remote) {  // fedsim serve (docs/distributed.md)
    const auto& r = *d.run.remote;
    nlohmann::json lost = nlohmann::json::array();
    for (const auto& l : r.lost) lost.push_back({{"agent", l.agent}, {"time", l.time}});
    s["remote"] = {{"joins", r.joins},
                   {"refused_joins", r.refused},
                   {"dropped_messages", r.dropped},
                   {"lost_agents", lost},
                   {"rejoined_agents", r.rejoined},
                   {"connections", r.connections},
                   {"closed_connections", r.closed_connections}};
  }
  // What the configuration foretold (a round that never closes, a buffer that never fills),
  // beside the outcome it explains; absent when nothing was foreseen.
  if (const auto w = actors::policy::liveness_warnings(c); !w.empty()) s["warnings"] = w;
  return s;
}

void write_resolved_config(const std::filesystem::path& dir,
                           const scenario::ScenarioConfig& config) {
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / "config.resolved.toml");
  out << scenario::to_toml(config);
  if (!out) throw std::runtime_error("cannot write " + (dir / "config.resolved.toml").string());
}

void write_summary(const std::filesystem::path& dir, const scenario::ScenarioConfig& config,
                   const DriverResult& result, Driver driver) {
  // A reader (a resumed sweep) sees either no summary or a whole one, never half of one.
  const auto tmp = dir / "summary.json.tmp";
  {
    std::ofstream out(tmp);
    out << run_summary(config, result, driver).dump(2) << "\n";
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, dir / "summary.json");
  // A private FBO run's per-agent privacy: one row per agent.
  const actors::RunResult& r = result.run;
  if (!r.agent_epsilon.empty()) {
    actors::CsvWriter csv(dir / "privacy_agents.csv", actors::csv_header<actors::agent_privacy_row>());
    for (std::size_t n = 0; n < r.agent_epsilon.size(); ++n) {
      actors::agent_privacy_row row;
      row.agent = static_cast<std::int32_t>(n);
      row.releases = r.agent_releases[n];
      row.epsilon = r.agent_epsilon[n];
      row.filtered = r.agent_filtered[n];
      actors::write_csv_row(csv, row);
    }
  }
}

std::optional<nlohmann::json> read_summary(const std::filesystem::path& dir) {
  std::ifstream in(dir / "summary.json");
  if (!in) return std::nullopt;
  auto summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!summary.is_object() || !summary.contains("mean_final_simple_regret")) return std::nullopt;
  return summary;
}

}  // namespace fedsim::cli
