#include "actors/run_config.hpp"

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/policy/registry.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::scenario {

double Distribution::sample(RandomStream& rng) const {
  switch (kind) {
    case Kind::constant:
      return value;
    case Kind::uniform:
      return rng.uniform(low, high);
    case Kind::exponential:
      return rng.exponential(1.0 / mean);
    case Kind::lognormal:
      return std::exp(mu + sigma * rng.normal());
  }
  return value;
}

double Distribution::expected() const {
  switch (kind) {
    case Kind::constant:
      return value;
    case Kind::uniform:
      return 0.5 * (low + high);
    case Kind::exponential:
      return mean;
    case Kind::lognormal:
      return std::exp(mu + 0.5 * sigma * sigma);
  }
  return value;
}

fbo::ReferenceConfig reference_config(const ScenarioConfig& config) {
  fbo::ReferenceConfig a = config.algorithm;
  a.agents = config.world.agents;
  a.objective = config.world.objective;
  a.noise_variance = config.world.noise_variance;
  a.peer_observations = config.world.peer_observations;
  a.seed = config.seed;
  a.accountant = config.privacy.accountant;
  a.delta = config.privacy.delta;
  return a;
}

xarmed::FedPneConfig fed_pne_config(const ScenarioConfig& config) {
  xarmed::FedPneConfig f = config.xarmed.fed_pne;
  f.problem.clients = config.world.agents;
  f.problem.seed = config.seed;
  f.record_curve = false;  // the actors record per phase; a curve of T doubles is not needed
  return f;
}

xarmed::HctRunConfig hct_config(const ScenarioConfig& config) {
  const xarmed::FedPneConfig f = fed_pne_config(config);
  xarmed::HctRunConfig h;
  h.problem = f.problem;
  h.budget = f.budget;
  h.params.nu1 = f.params.nu1;
  h.params.rho = f.params.rho;
  h.params.c = f.params.c;
  h.params.delta = f.params.delta;
  h.k = f.k;
  h.split = f.split;
  h.point = f.point;
  h.variant = f.hct_variant;
  return h;
}

namespace {

/// The table of an engine enum, named by the engine's to_string: every value from 0 up, until
/// to_string throws (its switch has no default, so the compiler names a value it misses and the
/// table cannot miss one). The enum's values are 0, 1, 2, ... in declaration order.
template <class E>
NameTable<E> engine_names() {
  NameTable<E> out;
  for (int v = 0;; ++v) {
    try {
      out.emplace_back(static_cast<E>(v), to_string(static_cast<E>(v)));
    } catch (const std::logic_error&) {
      return out;
    }
  }
}

}  // namespace

const NameTable<Distribution::Kind>& names(Distribution::Kind) {
  using K = Distribution::Kind;
  static const NameTable<K> t = {{K::constant, "constant"},
                                 {K::uniform, "uniform"},
                                 {K::exponential, "exponential"},
                                 {K::lognormal, "lognormal"}};
  return t;
}

const NameTable<PolicyConfig::Kind>& names(PolicyConfig::Kind) {
  // The round policies' registry (actors/policy/registry.cpp) names them.
  static const NameTable<PolicyConfig::Kind> t = [] {
    NameTable<PolicyConfig::Kind> out;
    for (const actors::policy::Entry& e : actors::policy::registered())
      out.emplace_back(e.kind, e.name);
    return out;
  }();
  return t;
}

const NameTable<PolicyConfig::Staleness>& names(PolicyConfig::Staleness) {
  using S = PolicyConfig::Staleness;
  static const NameTable<S> t = {
      {S::constant, "constant"}, {S::inverse, "inverse"}, {S::polynomial, "polynomial"}};
  return t;
}

const NameTable<PrivacyConfig::Filter>& names(PrivacyConfig::Filter) {
  using F = PrivacyConfig::Filter;
  static const NameTable<F> t = {{F::automatic, "auto"}, {F::pld, "pld"}, {F::rdp, "rdp"}};
  return t;
}

const NameTable<RunClockConfig::Time>& names(RunClockConfig::Time) {
  using T = RunClockConfig::Time;
  static const NameTable<T> t = {{T::virtual_time, "virtual"}, {T::wall, "wall"}};
  return t;
}

const NameTable<OutputConfig::EventLog>& names(OutputConfig::EventLog) {
  using E = OutputConfig::EventLog;
  static const NameTable<E> t = {{E::all, "all"}, {E::faults, "faults"}, {E::none, "none"}};
  return t;
}

const NameTable<SyntheticConfig::Kind>& names(SyntheticConfig::Kind) {
  using K = SyntheticConfig::Kind;
  // The box kinds' names are make_test_function's (actors/world_objective.cpp passes them).
  static const NameTable<K> t = {{K::perturbed, "perturbed"}, {K::mixture, "mixture"},
                                 {K::branin, "branin"},       {K::hartmann3, "hartmann3"},
                                 {K::hartmann6, "hartmann6"}, {K::ackley, "ackley"},
                                 {K::command, "command"},     {K::tcp, "tcp"},
                                 {K::tuning, "tuning"}};
  return t;
}

const NameTable<TuningSettings::Task>& names(TuningSettings::Task) {
  static const auto t = engine_names<TuningSettings::Task>();
  return t;
}

const NameTable<SyntheticConfig::OnFailure>& names(SyntheticConfig::OnFailure) {
  // external::on_failure_name's names (tests/actors/world_objective_test.cpp checks them).
  using F = SyntheticConfig::OnFailure;
  static const NameTable<F> t = {{F::skip, "skip"}, {F::retry, "retry"}, {F::abort, "abort"}};
  return t;
}

const NameTable<fbo::Algorithm>& names(fbo::Algorithm) {
  // The FBO kinds of the algorithm registry, in its order.
  static const NameTable<fbo::Algorithm> t = [] {
    NameTable<fbo::Algorithm> out;
    for (const actors::algorithms::AlgorithmKind& k : actors::algorithms::algorithm_kinds())
      if (k.fbo && k.fbo->variant) out.emplace_back(*k.fbo->variant, k.name);
    return out;
  }();
  return t;
}

const NameTable<fbo::PSchedule>& names(fbo::PSchedule) {
  static const auto t = engine_names<fbo::PSchedule>();
  return t;
}

const NameTable<fbo::TemperatureSchedule>& names(fbo::TemperatureSchedule) {
  static const auto t = engine_names<fbo::TemperatureSchedule>();
  return t;
}

const NameTable<fbo::LocalSampler>& names(fbo::LocalSampler) {
  static const auto t = engine_names<fbo::LocalSampler>();
  return t;
}

const NameTable<fbo::PosteriorMemory>& names(fbo::PosteriorMemory) {
  static const auto t = engine_names<fbo::PosteriorMemory>();
  return t;
}

const NameTable<xarmed::ObjectiveKind>& names(xarmed::ObjectiveKind) {
  static const auto t = engine_names<xarmed::ObjectiveKind>();
  return t;
}

const NameTable<xarmed::SplitRule>& names(xarmed::SplitRule) {
  static const auto t = engine_names<xarmed::SplitRule>();
  return t;
}

const NameTable<xarmed::HctVariant>& names(xarmed::HctVariant) {
  static const auto t = engine_names<xarmed::HctVariant>();
  return t;
}

const NameTable<xarmed::PointRule>& names(xarmed::PointRule) {
  static const auto t = engine_names<xarmed::PointRule>();
  return t;
}

const actors::algorithms::AlgorithmKind& algorithm_kind(const ScenarioConfig& config) {
  namespace al = actors::algorithms;
  if (!config.plugin.empty()) return al::algorithm(config.plugin);
  if (!config.xarmed.enabled) return al::algorithm(config.algorithm.algorithm);
  // An X-armed configuration of the tree searchers names its kind by its traits: HCT is not
  // federated; of the federated, DP-Fed-PNE is private (dp_epsilon > 0; the loader refuses
  // dp_epsilon for HCT).
  const bool federated = !config.xarmed.hct;
  const bool is_private = federated && config.xarmed.fed_pne.is_private();
  for (const al::AlgorithmKind& k : al::algorithm_kinds())
    if (k.xarmed && k.xarmed->tree && k.xarmed->federated == federated &&
        k.xarmed->is_private == is_private)
      return k;
  throw std::logic_error("no X-armed algorithm is registered with these traits");
}

actors::algorithms::Params algorithm_params(const ScenarioConfig& config) {
  const actors::algorithms::AlgorithmKind& kind = algorithm_kind(config);
  const auto it = config.algorithm_params.find(kind.name);
  return actors::algorithms::complete_params(
      kind.parameters, it == config.algorithm_params.end() ? actors::algorithms::Params{} : it->second,
      "algorithm." + kind.name);
}

}  // namespace fedsim::scenario
