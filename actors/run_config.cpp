#include "actors/run_config.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "actors/faults/corruptions.hpp"
#include "actors/faults/loss_model.hpp"
#include "actors/network_availability.hpp"

namespace fedsim::scenario {

namespace faults = actors::faults;

namespace {

/// The shortest text that reads back to the same double ("0.1", not "0.10000000000000001").
std::string number(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw std::invalid_argument("key '" + key + "': " + what);
}

void require(bool ok, const std::string& key, const std::string& rule, double got) {
  if (!ok) fail(key, rule + ", got " + number(got));
}

void require_finite_at_least(double v, double low, const std::string& key) {
  require(std::isfinite(v) && v >= low, key, "must be a finite number >= " + number(low), v);
}

void require_finite_positive(double v, const std::string& key) {
  require(std::isfinite(v) && v > 0, key, "must be a finite number > 0", v);
}

void require_probability(double v, const std::string& key) {
  require(v >= 0 && v <= 1, key, "must be in [0, 1]", v);
}

/// Agents picked by id or by fraction: ids in [0, N), fraction in [0, 1], one way or the other.
void validate_selection(const std::vector<int>& agents, double fraction, int num_agents,
                        const std::string& key) {
  for (int id : agents)
    if (id < 0 || id >= num_agents)
      fail(key + ".agents", "agent id must be in 0.." + std::to_string(num_agents - 1) +
                                " (world.agents = " + std::to_string(num_agents) + "), got " +
                                std::to_string(id));
  require_probability(fraction, key + ".fraction");
  if (!agents.empty() && fraction > 0)
    fail(key, "give either agents = [ids] or fraction, not both");
  if (agents.empty() && fraction == 0)
    fail(key, "selects no agent: give agents = [ids] or fraction in (0, 1]");
}

}  // namespace

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

void Distribution::validate(const std::string& key) const {
  // Named by the distribution's own key: a bare number in a file is the whole distribution.
  switch (kind) {
    case Kind::constant:
      require(std::isfinite(value) && value >= 0, key, "constant must be a finite number >= 0",
              value);
      break;
    case Kind::uniform:
      require(std::isfinite(low) && low >= 0, key, "uniform low must be a finite number >= 0", low);
      require(std::isfinite(high) && high >= low, key,
              "uniform high must be a finite number >= low (" + number(low) + ")", high);
      break;
    case Kind::exponential:
      require(std::isfinite(mean) && mean > 0, key, "exponential mean must be a finite number > 0",
              mean);
      break;
    case Kind::lognormal:
      require(std::isfinite(mu), key, "lognormal mu must be a finite number", mu);
      require(std::isfinite(sigma) && sigma >= 0, key,
              "lognormal sigma must be a finite number >= 0", sigma);
      break;
  }
}

void LinkModel::validate(const std::string& key) const {
  compute.validate(key + ".compute");
  uplink.validate(key + ".uplink");
  downlink.validate(key + ".downlink");
  require_finite_positive(speed_factor, key + ".speed_factor");
  require(bandwidth > 0, key + ".bandwidth", "must be > 0 (inf: unlimited)", bandwidth);
  // drop = 1 would lose every message: a partition says that more clearly.
  require(drop >= 0 && drop < 1, key + ".drop", "must be in [0, 1)", drop);
  if (!loss.kind.empty()) {
    if (drop != 0) fail(key + ".loss", "give either drop (Bernoulli loss) or loss, not both");
    const faults::LossKind* kind = faults::find_loss_kind(loss.kind);
    if (!kind)
      fail(key + ".loss.kind",
           "unknown kind '" + loss.kind + "' (allowed: " + faults::loss_kind_names() + ")");
    kind->validate(faults::complete_params(*kind, loss.params, key + ".loss"), key + ".loss");
  }
  require_probability(duplicate, key + ".duplicate");
}

void NetworkConfig::validate(int num_agents) const {
  const std::string base = "world.network";
  link.validate(base);
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string key = base + ".groups[" + std::to_string(i) + "]";
    validate_selection(groups[i].agents, groups[i].fraction, num_agents, key);
    groups[i].link.validate(key);
  }
  for (size_t i = 0; i < crashes.size(); ++i) {
    const CrashSchedule& c = crashes[i];
    const std::string key = base + ".crashes[" + std::to_string(i) + "]";
    validate_selection(c.agents, c.fraction, num_agents, key);
    require_finite_at_least(c.time, 0, key + ".time");
    require(c.recover > c.time, key + ".recover",
            "must be > time (" + number(c.time) + "), or inf for crash-stop", c.recover);
  }
  for (size_t i = 0; i < partitions.size(); ++i) {
    const NetworkPartition& p = partitions[i];
    const std::string key = base + ".partitions[" + std::to_string(i) + "]";
    validate_selection(p.agents, p.fraction, num_agents, key);
    require_finite_at_least(p.start, 0, key + ".start");
    require(p.end > p.start, key + ".end", "must be > start (" + number(p.start) + "), or inf",
            p.end);
  }
  require(detection_delay >= 0, base + ".detection_delay", "must be >= 0 seconds (inf: never)",
          detection_delay);
  // The trace is parsed here too, so that a bad one fails the load before a run writes anything.
  try {
    if (!availability_file.empty()) actors::read_availability_file(availability_file, num_agents);
  } catch (const std::invalid_argument& e) {
    fail(base + ".availability_file", e.what());
  }
  require_probability(malformed.rate, base + ".malformed.rate");
  for (const std::string& kind : malformed.kinds)
    if (!faults::find_corruption(kind))
      fail(base + ".malformed.kinds",
           "unknown kind '" + kind + "' (allowed: " + faults::corruption_names() + ")");
  if (malformed.rate > 0 && malformed.kinds.empty())
    fail(base + ".malformed.kinds",
         "must name at least one kind when rate > 0 (allowed: " + faults::corruption_names() + ")");
}

void PolicyConfig::validate(int num_agents) const {
  if (dead_after_missed < 1)
    fail("policy.dead_after_missed",
         "must be an integer >= 1, got " + std::to_string(dead_after_missed));
  require(round_timeout > 0, "policy.round_timeout", "must be > 0 seconds (inf: no timeout)",
          round_timeout);
  require(deadline > 0, "policy.deadline", "must be > 0 seconds (inf: no deadline)", deadline);
  // quorum <= 1 is a fraction of N; above 1 it is a count, which must be whole and <= N.
  const bool fraction = quorum > 0 && quorum <= 1;
  const bool count = quorum > 1 && quorum == std::floor(quorum) && quorum <= num_agents;
  require(fraction || count, "policy.quorum",
          "must be a fraction in (0, 1] or a whole count in 2.." + std::to_string(num_agents) +
              " (world.agents)",
          quorum);
  if (async_every < 0)
    fail("policy.async_every", "must be an integer >= 0, got " + std::to_string(async_every));
  require_finite_at_least(async_period, 0, "policy.async_period");
  if (kind == Kind::async && async_every == 0 && async_period == 0)
    fail("policy.async_every",
         "the async policy needs async_every > 0 (arrivals) or async_period > 0 (seconds)");
  if (max_staleness < 0)
    fail("policy.max_staleness", "must be an integer >= 0, got " + std::to_string(max_staleness));
  require_finite_positive(staleness_exponent, "policy.staleness_exponent");
}

void PrivacyConfig::validate() const {
  if (accountant != "moments" && accountant != "moments-paper" && accountant != "tight")
    fail("privacy.accountant",
         "unknown accountant '" + accountant + "' (allowed: moments, moments-paper, tight)");
  require(delta >= 0 && delta < 1, "privacy.delta", "must be in (0, 1), or 0 for 1/N^1.1", delta);
  require(budget > 0, "privacy.budget", "must be an epsilon > 0 (inf: no budget)", budget);
}

namespace {

/// Checks the algorithm's parameters one by one, so each error names its scenario key and value.
void validate_algorithm(const fbo::ReferenceConfig& a) {
  if (a.algorithm == fbo::Algorithm::fts && a.agents < 2)
    fail("world.agents", "FTS needs at least 2 agents, got " + std::to_string(a.agents));
  auto at_least_one = [](int v, const std::string& key) {
    if (v < 1) fail(key, "must be an integer >= 1, got " + std::to_string(v));
  };
  at_least_one(a.iterations, "algorithm.iterations");
  at_least_one(a.n_init, "algorithm.n_init");
  at_least_one(a.features, "algorithm.features");
  at_least_one(a.subregions, "algorithm.subregions");
  if (a.subregions > a.objective.grid_size)
    fail("algorithm.subregions", "must not exceed world.objective.grid_size (" +
                                     std::to_string(a.objective.grid_size) + "), got " +
                                     std::to_string(a.subregions));
  require(a.q > 0 && a.q <= 1, "algorithm.q", "must be in (0, 1]", a.q);
  require_finite_positive(a.z, "algorithm.z");
  require_finite_positive(a.clip, "algorithm.clip");
  require_finite_positive(a.lambda, "algorithm.lambda");
  require_finite_positive(a.kernel_lengthscale, "algorithm.kernel_lengthscale");
  require_finite_positive(a.beta, "algorithm.beta");
  require_finite_positive(a.weight_a, "algorithm.weight_a");
}

/// FTS's target-agent setting: which algorithms and sizes it allows.
void validate_peers(const WorldConfig& world, const fbo::ReferenceConfig& a) {
  if (world.peer_observations < 0)
    fail("world.peer_observations",
         "must be an integer >= 0 (0: every agent optimises), got " +
             std::to_string(world.peer_observations));
  if (world.peer_observations == 0) return;
  if (world.agents < 2)
    fail("world.agents", "must be >= 2 with world.peer_observations > 0 (the target agent and "
                         "at least one peer), got " + std::to_string(world.agents));
  if (a.algorithm != fbo::Algorithm::ts && a.algorithm != fbo::Algorithm::fts)
    fail("algorithm.name", "'" + fbo::to_string(a.algorithm) +
                               "' does not run in the target-agent setting "
                               "(world.peer_observations > 0): allowed ts, fts");
  if (a.algorithm == fbo::Algorithm::fts && !a.fts_one_shot)
    fail("algorithm.fts_one_shot", "must be true with world.peer_observations > 0: the peers "
                                   "send one message each, before the start");
}

/// The scenario key a message of fbo::ReferenceConfig::validate (or what it calls) is about.
/// A safety net: validate_algorithm() above should have caught the problem already.
std::string key_of_engine_message(const std::string& what) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"FTS needs", "world.agents"},
      {"agents", "world.agents"},
      {"number of agents", "world.agents"},
      {"iterations", "algorithm.iterations"},
      {"n_init", "algorithm.n_init"},
      {"features", "algorithm.features"},
      {"subregions", "algorithm.subregions"},
      {"number of sub-regions", "algorithm.subregions"},
      {"q ", "algorithm.q"},
      {"subsampling probability q", "algorithm.q"},
      {"z ", "algorithm.z"},
      {"noise multiplier z", "algorithm.z"},
      {"clip", "algorithm.clip"},
      {"lambda", "algorithm.lambda"},
      {"noise variance", "world.noise_variance"},
      {"kernel lengthscale", "algorithm.kernel_lengthscale"},
      {"beta", "algorithm.beta"},
      {"weight constant a", "algorithm.weight_a"},
      {"delta", "privacy.delta"},
      {"unknown accountant", "privacy.accountant"},
      {"peer observations", "world.peer_observations"},
      {"the target-agent setting", "world.peer_observations"},
      {"synthetic grid_size", "world.objective.grid_size"},
      {"synthetic lengthscale", "world.objective.lengthscale"},
      {"synthetic perturbation", "world.objective.perturbation"},
      {"synthetic alpha", "world.objective.alpha"},
  };
  for (const auto& [prefix, key] : prefixes)
    if (what.rfind(prefix, 0) == 0) return key;
  return "algorithm";
}

/// The name a message uses for the X-armed algorithm configured.
std::string xarmed_name(const xarmed::FedPneConfig& f) {
  return f.is_private() ? "dp-fed-pne" : "fed-pne";
}

/// Checks the Fed-PNE parameters one by one, so each error names its scenario key and value
/// (FedPneConfig::validate only names the parameter).
void validate_xarmed(const xarmed::FedPneConfig& f) {
  if (f.budget < 1)
    fail("algorithm.budget",
         "must be an integer >= 1 (pulls per client), got " + std::to_string(f.budget));
  if (f.k < 2) fail("algorithm.k", "must be an integer >= 2, got " + std::to_string(f.k));
  require_finite_positive(f.params.nu1, "algorithm.nu1");
  require(f.params.rho > 0 && f.params.rho < 1, "algorithm.rho", "must be in (0, 1)", f.params.rho);
  require_finite_positive(f.params.c, "algorithm.c");
  require_finite_positive(f.params.c1, "algorithm.c1");
  require(f.params.delta >= 0 && f.params.delta <= 1, "algorithm.delta",
          "must be in (0, 1], or 0 for 1/M", f.params.delta);
  const int m = f.problem.clients;
  // tau_h needs a positive log term; with delta = 1/M this fails only for c1 T <= 1/M.
  if (!(std::log(f.params.c1 * static_cast<double>(f.budget) / f.params.effective_delta(m)) > 0))
    fail("algorithm.c1",
         "log(c1 T / delta) must be > 0 (raise c1 or budget, or lower delta), "
         "got c1 = " +
             number(f.params.c1) + ", budget = " + std::to_string(f.budget) +
             ", delta = " + number(f.params.effective_delta(m)));
  require(std::isfinite(f.dp_epsilon) && f.dp_epsilon >= 0, "algorithm.dp_epsilon",
          "must be a finite number > 0 (dp-fed-pne), or 0 (fed-pne)", f.dp_epsilon);
  if (!f.is_private() && f.dp_delta != 0)
    fail("algorithm.dp_delta",
         "not used by fed-pne (only by dp-fed-pne, dp_epsilon > 0): must "
         "be 0 or absent, got " +
             number(f.dp_delta));
  require(f.dp_delta >= 0 && f.dp_delta < 1, "algorithm.dp_delta",
          "must be in (0, 1), or 0 for 1/M", f.dp_delta);
  if (f.is_private() && m == 1 && f.dp_delta == 0)
    fail("algorithm.dp_delta",
         "0 means 1/M = 1 with world.agents = 1, which is no guarantee: "
         "give a dp_delta in (0, 1)");
  require_finite_at_least(f.problem.offset_std, 0, "world.objective.offset_std");
  // noise < 0 is the engine's "use default_noise()" (the key was absent).
  require(std::isfinite(f.problem.noise), "world.objective.noise",
          "must be a finite number >= 0 (absent: the engine's default)", f.problem.noise);
}

/// The scenario key a message of xarmed::FedPneConfig::validate is about (a safety net, as
/// key_of_engine_message is for the FBO family).
std::string key_of_xarmed_message(const std::string& what) {
  static const std::pair<const char*, const char*> parts[] = {
      {"clients", "world.agents"},
      {"offset_std", "world.objective.offset_std"},
      {"noise", "world.objective.noise"},
      {"budget", "algorithm.budget"},
      {"nu1", "algorithm.nu1"},
      {"rho", "algorithm.rho"},
      {"c1", "algorithm.c1"},
      {"c must", "algorithm.c"},
      {"arity", "algorithm.k"},
      {"epsilon", "algorithm.dp_epsilon"},
      {"dp-fed-pne: delta", "algorithm.dp_delta"},
      {"delta", "algorithm.delta"},
  };
  for (const auto& [part, key] : parts)
    if (what.find(part) != std::string::npos) return key;
  return "algorithm";
}

/// What the X-armed family does not use must stay at its default: the FBO privacy accounting.
void validate_xarmed_privacy(const PrivacyConfig& p, const std::string& name) {
  const PrivacyConfig defaults;
  const std::string why =
      "not used by " + name + " (its privacy is algorithm.dp_epsilon / dp_delta)";
  if (p.accountant != defaults.accountant)
    fail("privacy.accountant", why + ": only the default '" + defaults.accountant +
                                   "' is accepted, got '" + p.accountant + "'");
  if (p.delta != defaults.delta) fail("privacy.delta", why + ", got " + number(p.delta));
  if (p.budget != defaults.budget) fail("privacy.budget", why + ", got " + number(p.budget));
}

/// finalize() for the X-armed family: fills the engine config from the world, checks what
/// applies to it and that the FBO-only privacy settings were left alone.
void finalize_xarmed(ScenarioConfig& s) {
  xarmed::FedPneConfig& f = s.xarmed.fed_pne;
  const WorldConfig& world = s.world;
  const PolicyConfig& policy = s.policy;
  f.problem.clients = world.agents;
  f.problem.seed = s.seed;
  f.record_curve = false;  // the actors record per phase; a curve of T doubles is not needed
  const std::string name = xarmed_name(f);
  world.network.validate(world.agents);
  validate_xarmed(f);
  policy.validate(world.agents);
  // A phase closes on every live client's node means; a quorum or stale reports would bias
  // the elimination, which assumes each node's mean covers all M clients.
  if (policy.kind == PolicyConfig::Kind::quorum || policy.kind == PolicyConfig::Kind::async)
    fail("policy.kind",
         "'" + std::string(policy.kind == PolicyConfig::Kind::quorum ? "quorum" : "async") +
             "' is not supported by " + name + " (allowed: sync, deadline)");
  validate_xarmed_privacy(s.privacy, name);
  try {
    f.validate();
  } catch (const std::invalid_argument& e) {
    fail(key_of_xarmed_message(e.what()), e.what());
  }
}

}  // namespace

void ScenarioConfig::finalize() {
  algorithm.agents = world.agents;
  algorithm.objective = world.objective;
  algorithm.noise_variance = world.noise_variance;
  algorithm.peer_observations = world.peer_observations;
  algorithm.seed = seed;
  algorithm.accountant = privacy.accountant;
  algorithm.delta = privacy.delta;

  if (name.empty()) fail("name", "must be a non-empty string");
  // The resolved config is written as TOML, whose integers are signed 64-bit.
  if (seed > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    fail("seed", "must be in 0..9223372036854775807, got " + std::to_string(seed));
  if (world.agents < 1)
    fail("world.agents", "must be an integer >= 1, got " + std::to_string(world.agents));
  if (xarmed.enabled) {
    finalize_xarmed(*this);
    return;
  }
  require_finite_at_least(world.noise_variance, 0, "world.noise_variance");
  const SyntheticConfig& o = world.objective;
  if (o.grid_size < 2)
    fail("world.objective.grid_size",
         "must be an integer >= 2, got " + std::to_string(o.grid_size));
  require_finite_positive(o.lengthscale, "world.objective.lengthscale");
  require_finite_at_least(o.perturbation, 0, "world.objective.perturbation");
  require(o.alpha >= 0 && o.alpha <= 1, "world.objective.alpha", "must be in [0, 1]", o.alpha);
  world.network.validate(world.agents);
  validate_algorithm(algorithm);
  validate_peers(world, algorithm);
  policy.validate(world.agents);
  privacy.validate();
  try {
    algorithm.validate();
  } catch (const std::invalid_argument& e) {
    fail(key_of_engine_message(e.what()), e.what());
  }
}

}  // namespace fedsim::scenario
