// `fedsim xarmed`: an alias of `fedsim sweep SCENARIO --driver loop` over seeds, for the
// scenario its options stand for (Fed-PNE, DP-Fed-PNE or HCT on Garland, DoubleSine or SEIR).
// It writes that scenario to OUT/scenario.toml, prints the equivalent `fedsim sweep` command on
// stderr, and runs it: the same files as that command (OUT/sweep.csv with the regret and, for
// Fed-PNE, the communication counts averaged over seeds; OUT/seed=S/ the run of seed S, which
// is `fedsim run OUT/scenario.toml --driver loop --seed S`).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "scenarios/did_you_mean.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/seed_option.hpp"
#include "tools/fedsim/sweep.hpp"

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
  const actors::algorithms::XarmedTraits traits = *actors::algorithms::algorithm(o.algorithm).xarmed;
  s.xarmed.hct = !traits.federated;
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
  if (traits.is_private) {
    c.dp_epsilon = o.eps.value_or(0.0);
    c.dp_delta = o.dp_delta.value_or(0.0);
  }
  return s;
}

void validate(const XarmedOptions& o) {
  namespace al = actors::algorithms;
  const al::AlgorithmKind* kind = al::find_algorithm(o.algorithm);
  // The tree searchers: the baselines take keys of their own (fedsim run their scenarios).
  const std::vector<std::string> tree_searchers =
      al::names_where([](const al::AlgorithmKind& k) { return k.xarmed && k.xarmed->tree; });
  check(kind && kind->xarmed && kind->xarmed->tree,
        "unknown --algorithm '" + o.algorithm + "'" +
            scenario::did_you_mean(o.algorithm, tree_searchers) + " (allowed: " +
            al::joined(tree_searchers) + ")");
  parse_named("--objective", o.objective, xarmed::parse_objective_kind);
  parse_named("--split", o.split, xarmed::parse_split_rule);
  parse_named("--point", o.point, xarmed::parse_point_rule);
  check(o.clients >= 1, "--clients must be >= 1");
  check(o.budget >= 1, "--budget must be >= 1");
  check(o.seeds >= 1, "--seeds must be >= 1");
  check(o.k >= 2, "--k must be >= 2");
  if (kind->xarmed->is_private) {
    check(o.eps && *o.eps > 0.0 && std::isfinite(*o.eps), o.algorithm + " needs --eps > 0");
    check(!o.dp_delta || (*o.dp_delta > 0.0 && *o.dp_delta < 1.0), "--dp-delta must be in (0, 1)");
  } else {
    check(!o.eps && !o.dp_delta, "--eps and --dp-delta apply to " +
                                       al::joined(al::names_where([](const al::AlgorithmKind& k) {
                                         return k.xarmed && k.xarmed->is_private;
                                       })) + " only");
  }
  if (!kind->xarmed->federated) check(!o.c1, "--c1 applies to " +
                                   al::joined(al::names_where([](const al::AlgorithmKind& k) {
                                     return k.xarmed && k.xarmed->tree && k.xarmed->federated;
                                   })) + " only");
  check(!o.noise || (*o.noise >= 0.0 && std::isfinite(*o.noise)), "--noise must be >= 0");
  check(!o.delta || *o.delta > 0.0, "--delta must be > 0");
  try {  // the scenario's rules (the engine's included), as usage errors
    scenario::validate(scenario_of(o, o.seed));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

/// The sweep these options stand for: seeds o.seed .. o.seed + seeds - 1 of `scenario`.
SweepOptions sweep_of(const XarmedOptions& o, const std::filesystem::path& scenario) {
  SweepOptions s;
  s.scenario = scenario.string();
  s.driver = "loop";
  s.out = o.out;
  if (o.seed == 1) {
    s.seeds = o.seeds;
  } else {
    for (int k = 0; k < o.seeds; ++k) s.seed_list.push_back(static_cast<long long>(o.seed) + k);
  }
  return s;
}

/// The command line of `s`, as a user would type it.
std::string command_of(const SweepOptions& s) {
  std::string c = "fedsim sweep " + s.scenario + " --driver " + s.driver;
  if (s.seed_list.empty()) {
    c += " --seeds " + std::to_string(s.seeds);
  } else {
    c += " --seed-list ";
    for (std::size_t k = 0; k < s.seed_list.size(); ++k)
      c += (k ? "," : "") + std::to_string(s.seed_list[k]);
  }
  return c + " --out " + s.out;
}

void run(const XarmedOptions& o) {
  validate(o);
  // Seeds go into a sweep's --seed-list, which takes 0 .. 2^63 - 1.
  check(o.seed + static_cast<unsigned long long>(o.seeds - 1) <= 9223372036854775807ULL,
        "--seed + --seeds - 1 must be at most 9223372036854775807");
  const std::filesystem::path dir(o.out);
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "scenario.toml";
  {
    std::ofstream out(file);
    out << scenario::to_toml(scenario_of(o, o.seed));
    if (!out) throw std::runtime_error("cannot write " + file.string());
  }
  const SweepOptions sweep = sweep_of(o, file);
  std::fprintf(stderr, "fedsim xarmed is an alias of: %s\n", command_of(sweep).c_str());
  run_sweep(sweep);
}

}  // namespace

void add_xarmed_command(CLI::App& app) {
  auto o = std::make_shared<XarmedOptions>();
  CLI::App* cmd = app.add_subcommand(
      "xarmed",
      "Alias of `fedsim sweep SCENARIO --driver loop` over seeds for Fed-PNE, DP-Fed-PNE or HCT "
      "(writes OUT/scenario.toml from the options and prints the equivalent command)");
  cmd->add_option("--algorithm", o->algorithm,
                  actors::algorithms::joined(
                      actors::algorithms::names_where([](const actors::algorithms::AlgorithmKind& k) {
                        return k.xarmed && k.xarmed->tree;
                      }),
                      " | "))->capture_default_str();
  cmd->add_option("--objective", o->objective, "garland | double-sine | seir")
      ->capture_default_str();
  cmd->add_option("--clients", o->clients, "clients M (SEIR: regions; HCT: the global mean's)")
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "T: pulls per client (HCT: evaluations)")
      ->capture_default_str();
  cmd->add_option("--eps", o->eps, "dp-fed-pne: epsilon");
  cmd->add_option("--dp-delta", o->dp_delta, "dp-fed-pne: delta (default min(1/M, 0.01))");
  cmd->add_option("--seeds", o->seeds, "number of seeds, from --seed on")->capture_default_str();
  cmd->add_option("--seed", o->seed, "first seed")
      ->check(seed_check(9223372036854775807ULL))
      ->capture_default_str();
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
