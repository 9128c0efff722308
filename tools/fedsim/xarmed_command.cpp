// `fedsim xarmed`: federated X-armed bandits: Fed-PNE, DP-Fed-PNE, or HCT on the global
// objective, over one or more seeds, with the engine's synchronous reference loops. It stays
// beside `fedsim run --driver loop` (which runs one seed of the same scenario, and which it
// names on stderr, writing the scenario to OUT/scenario.toml) for what a single run does not
// write: the curve averaged over seeds and Fed-PNE's communication counts, which
// tools/reproduce and the results page read. Its options are mapped onto a scenario
// configuration and the engine's configurations derived from that, as `fedsim run` derives them.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/csv_writer.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/xarmed/hct_run.hpp"
#include "engine/stats.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/seed_option.hpp"

namespace fedsim::cli {

void add_xarmed_command(CLI::App& app);

namespace {

struct XarmedOptions {
  std::string algorithm = "fed-pne";
  std::string objective = "garland";
  std::string split = "random";
  std::string point = "centre";
  int clients = 10;
  long long budget = 10000;
  int seeds = 1;
  unsigned long long seed = 1;
  int k = 2;
  std::optional<double> eps, dp_delta, noise;
  double offset_std = 1.0;
  // Unset: Fed-PNE's (appendix E.1.5) or HCT's (appendix E.1.1) defaults.
  std::optional<double> nu1, rho, c, c1, delta;
  std::string out = "out/xarmed";
};

/// Per-seed results common to both algorithms.
struct SeedRun {
  std::uint64_t seed = 0;
  double regret = 0.0;            ///< Fed-PNE: R(T)/M; HCT: R(T)
  std::vector<double> curve;      ///< the same after each step
  std::int64_t rounds = 0;        ///< Fed-PNE only
  std::int64_t nodes_sent = 0;
  std::int64_t nodes_received = 0;
  std::vector<double> client_regret;
  std::vector<xarmed::PhaseRecord> phases;
};

void check(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

/// Parses a name with the engine's parser, naming the option in the error.
template <class Parse>
auto parse_named(const char* option, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string(option) + ": " + e.what());
  }
}

xarmed::ProblemConfig problem_config(const XarmedOptions& o, std::uint64_t seed) {
  xarmed::ProblemConfig p;
  p.objective = xarmed::parse_objective_kind(o.objective);
  p.clients = o.clients;
  p.offset_std = o.offset_std;
  if (o.noise) p.noise = *o.noise;
  p.seed = seed;
  return p;
}

/// The settings Fed-PNE and HCT share: problem, budget, smoothness and confidence
/// parameters, the partition and the point rule.
template <class Config>
void apply_shared(const XarmedOptions& o, std::uint64_t seed, Config& c) {
  c.problem = problem_config(o, seed);
  c.budget = o.budget;
  c.params.nu1 = o.nu1.value_or(c.params.nu1);
  c.params.rho = o.rho.value_or(c.params.rho);
  c.params.c = o.c.value_or(c.params.c);
  c.params.delta = o.delta.value_or(c.params.delta);
  c.k = o.k;
  c.split = xarmed::parse_split_rule(o.split);
  c.point = xarmed::parse_point_rule(o.point);
}

/// The scenario these options stand for: `fedsim run` of it with --driver loop and --seed S
/// is this command's run of seed S.
scenario::ScenarioConfig scenario_of(const XarmedOptions& o, std::uint64_t seed) {
  scenario::ScenarioConfig s;
  s.name = "xarmed-" + o.algorithm + "-" + o.objective;
  s.seed = seed;
  s.world.agents = o.clients;
  s.xarmed.enabled = true;
  s.xarmed.hct = o.algorithm == "hct";
  xarmed::FedPneConfig& c = s.xarmed.fed_pne;
  if (s.xarmed.hct) {  // HCT's defaults (appendix E.1.1) where an option is not given
    const xarmed::HctParams h;
    c.params.nu1 = h.nu1;
    c.params.rho = h.rho;
    c.params.c = h.c;
    c.params.delta = h.delta;
  }
  apply_shared(o, seed, c);
  c.params.c1 = o.c1.value_or(c.params.c1);
  if (o.algorithm == "dp-fed-pne") {
    c.dp_epsilon = o.eps.value_or(0.0);
    c.dp_delta = o.dp_delta.value_or(0.0);
  }
  return s;
}

xarmed::FedPneConfig fed_pne_config(const XarmedOptions& o, std::uint64_t seed) {
  xarmed::FedPneConfig c = scenario::fed_pne_config(scenario_of(o, seed));
  c.record_curve = true;  // this command writes the seed-averaged curve
  c.validate();
  return c;
}

xarmed::HctRunConfig hct_config(const XarmedOptions& o, std::uint64_t seed) {
  xarmed::HctRunConfig c = scenario::hct_config(scenario_of(o, seed));
  c.validate();
  return c;
}

void validate(const XarmedOptions& o) {
  check(o.algorithm == "fed-pne" || o.algorithm == "dp-fed-pne" || o.algorithm == "hct",
        "unknown --algorithm '" + o.algorithm + "' (allowed: fed-pne, dp-fed-pne, hct)");
  parse_named("--objective", o.objective, xarmed::parse_objective_kind);
  parse_named("--split", o.split, xarmed::parse_split_rule);
  parse_named("--point", o.point, xarmed::parse_point_rule);
  check(o.clients >= 1, "--clients must be >= 1");
  check(o.budget >= 1, "--budget must be >= 1");
  check(o.seeds >= 1, "--seeds must be >= 1");
  check(o.k >= 2, "--k must be >= 2");
  if (o.algorithm == "dp-fed-pne") {
    check(o.eps && *o.eps > 0.0 && std::isfinite(*o.eps), "dp-fed-pne needs --eps > 0");
    check(!o.dp_delta || (*o.dp_delta > 0.0 && *o.dp_delta < 1.0), "--dp-delta must be in (0, 1)");
  } else {
    check(!o.eps && !o.dp_delta, "--eps and --dp-delta apply to dp-fed-pne only");
  }
  if (o.algorithm == "hct") check(!o.c1, "--c1 applies to fed-pne and dp-fed-pne only");
  check(!o.noise || (*o.noise >= 0.0 && std::isfinite(*o.noise)), "--noise must be >= 0");
  check(!o.delta || *o.delta > 0.0, "--delta must be > 0");
  try {  // the scenario's rules, then the engine's, as usage errors
    scenario::validate(scenario_of(o, o.seed));
    if (o.algorithm == "hct") hct_config(o, o.seed);
    else fed_pne_config(o, o.seed);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void write_curve(const std::filesystem::path& file, const std::vector<SeedRun>& runs,
                 const char* column) {
  actors::CsvWriter csv(file, {"step", column, "se", "seeds"});
  const std::size_t steps = runs.front().curve.size();
  std::vector<double> at(runs.size());
  for (std::size_t t = 0; t < steps; ++t) {
    for (std::size_t r = 0; r < runs.size(); ++r) at[r] = runs[r].curve[t];
    const auto m = mean_se(at);
    csv.row(static_cast<long long>(t + 1), m.mean, m.se, static_cast<int>(runs.size()));
  }
}

void run(const XarmedOptions& o) {
  validate(o);
  const bool hct = o.algorithm == "hct";
  const auto start = std::chrono::steady_clock::now();
  std::vector<SeedRun> runs;
  nlohmann::json privacy = nullptr;
  nlohmann::json optimum;
  for (int s = 0; s < o.seeds; ++s) {
    SeedRun r;
    r.seed = o.seed + static_cast<std::uint64_t>(s);
    const auto problem = xarmed::make_problem(problem_config(o, r.seed));
    if (s == 0)
      optimum = {{"value", problem.global->optimum_value()},
                 {"location", problem.global->optimum_location()(0)}};
    if (hct) {
      auto result = xarmed::run_hct(hct_config(o, r.seed), problem);
      r.regret = result.cumulative_regret;
      r.curve = std::move(result.regret_curve);
    } else {
      auto result = xarmed::run_fed_pne(fed_pne_config(o, r.seed), problem);
      r.regret = result.average_regret;
      r.curve = std::move(result.average_regret_curve);
      r.rounds = result.rounds;
      r.nodes_sent = result.nodes_sent_per_client;
      r.nodes_received = result.nodes_received_per_client;
      r.client_regret = std::move(result.client_regret);
      r.phases = std::move(result.phases);
      if (result.privacy)
        privacy = {{"epsilon", result.privacy->epsilon},
                   {"delta", result.privacy->delta},
                   {"clients", result.privacy->clients},
                   {"noise_std", result.privacy->noise_std},
                   {"sensitivity", result.privacy->sensitivity},
                   {"releases_per_node", result.privacy->releases_per_node},
                   {"classic_range", result.privacy->classic_range},
                   {"mechanism", result.privacy->mechanism}};
    }
    runs.push_back(std::move(r));
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::filesystem::path dir(o.out);
  std::filesystem::create_directories(dir);
  {
    std::ofstream scenario_file(dir / "scenario.toml");
    scenario_file << scenario::to_toml(scenario_of(o, o.seed));
  }
  std::fprintf(stderr,
               "fedsim xarmed: seed S is `fedsim run %s --driver loop --seed S`; this command "
               "adds the seed-averaged curve (regret.csv)%s\n",
               (dir / "scenario.toml").string().c_str(),
               hct ? "" : " and the communication counts (rounds, nodes per client)");
  write_curve(dir / "regret.csv", runs,
              hct ? "cumulative_regret" : "average_cumulative_regret_per_client");
  if (!hct) {
    actors::CsvWriter clients(dir / "clients.csv", {"seed", "client", "cumulative_regret"});
    actors::CsvWriter phases(dir / "phases.csv",
                             {"seed", "phase", "depth", "nodes", "pulls_per_node", "start",
                              "steps", "completed", "survivors", "best_mean",
                              "confidence_width"});
    for (const auto& r : runs) {
      for (std::size_t m = 0; m < r.client_regret.size(); ++m)
        clients.row(static_cast<unsigned long long>(r.seed), static_cast<int>(m),
                    r.client_regret[m]);
      for (const auto& p : r.phases)
        phases.row(static_cast<unsigned long long>(r.seed), static_cast<long long>(p.phase),
                   p.depth, static_cast<unsigned long long>(p.nodes),
                   static_cast<long long>(p.pulls_per_node), static_cast<long long>(p.start),
                   static_cast<long long>(p.steps), p.completed ? 1 : 0,
                   static_cast<unsigned long long>(p.survivors), p.best_mean,
                   p.confidence_width);
    }
  }

  std::vector<double> regrets, rounds, nodes;
  nlohmann::json per_seed = nlohmann::json::array();
  for (const auto& r : runs) {
    regrets.push_back(r.regret);
    rounds.push_back(static_cast<double>(r.rounds));
    nodes.push_back(static_cast<double>(r.nodes_sent));
    nlohmann::json j = {{"seed", r.seed}, {"regret", r.regret}};
    if (!hct)
      j.update({{"rounds", r.rounds},
                {"nodes_sent_per_client", r.nodes_sent},
                {"nodes_received_per_client", r.nodes_received}});
    per_seed.push_back(j);
  }
  const auto regret = mean_se(regrets);
  nlohmann::json summary = {
      {"algorithm", o.algorithm},
      {"objective", o.objective},
      {"clients", o.clients},
      {"budget", o.budget},
      {"seeds", o.seeds},
      {"first_seed", o.seed},
      {"regret_measure", hct ? "cumulative regret on the global objective, T evaluations"
                             : "average cumulative regret per client on the global objective"},
      {"regret_mean", regret.mean},
      {"regret_se", regret.se},
      {"per_seed", per_seed},
      {"global_optimum", optimum},
      {"privacy", privacy},
      {"wall_time_s", wall},
      {"config",
       {{"k", o.k},
        {"split", o.split},
        {"point", o.point},
        {"noise", problem_config(o, o.seed).effective_noise()},
        {"offset_std", o.offset_std}}}};
  if (hct) {
    const auto c = hct_config(o, o.seed);
    summary["config"].update({{"nu1", c.params.nu1},
                              {"rho", c.params.rho},
                              {"c", c.params.c},
                              {"delta", c.params.delta}});
  } else {
    const auto c = fed_pne_config(o, o.seed);
    summary["config"].update({{"nu1", c.params.nu1},
                              {"rho", c.params.rho},
                              {"c", c.params.c},
                              {"c1", c.params.c1},
                              {"delta", c.params.effective_delta(o.clients)}});
    const auto r = mean_se(rounds);
    const auto n = mean_se(nodes);
    summary["rounds_mean"] = r.mean;
    summary["nodes_sent_per_client_mean"] = n.mean;
  }
  std::ofstream(dir / "summary.json") << summary.dump(2) << "\n";

  std::printf("%s %s: M=%d T=%lld seeds=%d  %s %.4g", o.algorithm.c_str(), o.objective.c_str(),
              o.clients, o.budget, o.seeds,
              hct ? "cumulative regret" : "avg cumulative regret per client", regret.mean);
  if (o.seeds > 1) std::printf(" (se %.3g)", regret.se);
  if (!hct)
    std::printf("  rounds %.4g  nodes/client %.4g", summary["rounds_mean"].get<double>(),
                summary["nodes_sent_per_client_mean"].get<double>());
  if (!privacy.is_null())
    std::printf("  eps %.3g delta %.3g sigma %.3g", *o.eps, privacy["delta"].get<double>(),
                privacy["noise_std"].get<double>());
  std::printf("  wall %.2fs  -> %s\n", wall, dir.string().c_str());
}

}  // namespace

void add_xarmed_command(CLI::App& app) {
  auto o = std::make_shared<XarmedOptions>();
  CLI::App* cmd = app.add_subcommand(
      "xarmed", "Federated X-armed bandits: Fed-PNE, DP-Fed-PNE, or HCT on the global objective");
  cmd->add_option("--algorithm", o->algorithm, "fed-pne | dp-fed-pne | hct")->capture_default_str();
  cmd->add_option("--objective", o->objective, "garland | double-sine | seir")
      ->capture_default_str();
  cmd->add_option("--clients", o->clients, "clients M (SEIR: regions; HCT: the global mean's)")
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "T: pulls per client (HCT: evaluations)")
      ->capture_default_str();
  cmd->add_option("--eps", o->eps, "dp-fed-pne: epsilon");
  cmd->add_option("--dp-delta", o->dp_delta, "dp-fed-pne: delta (default 1/M)");
  cmd->add_option("--seeds", o->seeds, "number of seeds, from --seed on")->capture_default_str();
  cmd->add_option("--seed", o->seed, "first seed")->check(seed_check(~0ULL))->capture_default_str();
  cmd->add_option("--k", o->k, "arity of the partition")->capture_default_str();
  cmd->add_option("--split", o->split, "random | cyclic axis per split")->capture_default_str();
  cmd->add_option("--point", o->point, "centre | uniform point per pull")->capture_default_str();
  cmd->add_option("--noise", o->noise, "half-width of the uniform reward noise (default 0.1; SEIR 0.01)");
  cmd->add_option("--offset-std", o->offset_std, "sd of each client's constant offset")
      ->capture_default_str();
  cmd->add_option("--nu1", o->nu1, "smoothness nu1 (default 1)");
  cmd->add_option("--rho", o->rho, "smoothness rho (default fed-pne 0.5, hct 0.75)");
  cmd->add_option("--c", o->c, "confidence constant c (default 0.1)");
  cmd->add_option("--c1", o->c1, "fed-pne confidence constant c1 (default 1)");
  cmd->add_option("--delta", o->delta, "confidence delta (default fed-pne 1/M, hct 0.01)");
  cmd->add_option("--out", o->out, "output folder")->capture_default_str();
  cmd->callback([o] { run(*o); });
}

}  // namespace fedsim::cli
