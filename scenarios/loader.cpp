#include "scenarios/loader.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/algorithms.hpp"
#include "engine/fbo/schedules.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/toml_depth.hpp"

namespace fedsim::scenario {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------
// Names of the enums this file spells out (the engine's own enums use the engine's to_string).

std::string name_of(Distribution::Kind k) {
  switch (k) {
    case Distribution::Kind::constant:
      return "constant";
    case Distribution::Kind::uniform:
      return "uniform";
    case Distribution::Kind::exponential:
      return "exponential";
    case Distribution::Kind::lognormal:
      return "lognormal";
  }
  return "?";
}

std::string name_of(PolicyConfig::Kind k) {
  switch (k) {
    case PolicyConfig::Kind::sync:
      return "sync";
    case PolicyConfig::Kind::deadline:
      return "deadline";
    case PolicyConfig::Kind::quorum:
      return "quorum";
    case PolicyConfig::Kind::async:
      return "async";
  }
  return "?";
}

std::string name_of(PolicyConfig::Staleness s) {
  switch (s) {
    case PolicyConfig::Staleness::constant:
      return "constant";
    case PolicyConfig::Staleness::inverse:
      return "inverse";
    case PolicyConfig::Staleness::polynomial:
      return "polynomial";
  }
  return "?";
}

std::string name_of(SyntheticConfig::Kind k) {
  return k == SyntheticConfig::Kind::mixture ? "mixture" : "perturbed";
}

constexpr std::initializer_list<Distribution::Kind> distribution_kinds = {
    Distribution::Kind::constant, Distribution::Kind::uniform, Distribution::Kind::exponential,
    Distribution::Kind::lognormal};

// ---------------------------------------------------------------------------------------------
// Errors while reading: std::invalid_argument with "key 'K': ..." (the caller adds the file).

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw std::invalid_argument("key '" + key + "': " + what);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

/// The shortest text that reads back to the same double, for messages ("0.1", "inf").
std::string toml_number(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

[[noreturn]] void wrong_type(const std::string& key, const std::string& expected,
                             const toml::node& got) {
  fail(key, "expected " + expected + ", got " + type_name(got));
}

double as_number(const toml::node& n, const std::string& key) {
  if (auto v = n.as_floating_point()) return v->get();
  if (auto v = n.as_integer()) return static_cast<double>(v->get());
  wrong_type(key, "a number", n);
}

std::int64_t as_int64(const toml::node& n, const std::string& key) {
  if (auto v = n.as_integer()) return v->get();
  wrong_type(key, "an integer", n);
}

int as_int(const toml::node& n, const std::string& key) {
  const std::int64_t v = as_int64(n, key);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    fail(key, "integer out of range, got " + std::to_string(v));
  return static_cast<int>(v);
}

bool as_bool(const toml::node& n, const std::string& key) {
  if (auto v = n.as_boolean()) return v->get();
  wrong_type(key, "a boolean (true or false)", n);
}

std::string as_string(const toml::node& n, const std::string& key) {
  if (auto v = n.as_string()) return v->get();
  wrong_type(key, "a string", n);
}

const toml::array& as_array(const toml::node& n, const std::string& key,
                            const std::string& expected) {
  if (auto a = n.as_array()) return *a;
  wrong_type(key, expected, n);
}

std::vector<int> as_int_list(const toml::node& n, const std::string& key) {
  const toml::array& a = as_array(n, key, "an array of integers");
  std::vector<int> out;
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back(as_int(a[i], key + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<std::string> as_string_list(const toml::node& n, const std::string& key) {
  const toml::array& a = as_array(n, key, "an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < a.size(); ++i)
    out.push_back(as_string(a[i], key + "[" + std::to_string(i) + "]"));
  return out;
}

const toml::table& as_table(const toml::node& n, const std::string& key) {
  if (auto t = n.as_table()) return *t;
  wrong_type(key, "a table", n);
}

/// A string value that must be one of `values`, named by `name`.
template <class E>
E pick(const toml::node& n, const std::string& key, std::initializer_list<E> values,
       std::string (*name)(E)) {
  const std::string s = as_string(n, key);
  std::vector<std::string> names;
  for (E v : values) {
    if (name(v) == s) return v;
    names.push_back(name(v));
  }
  fail(key, "unknown value '" + s + "' (allowed: " + join(names) + ")");
}

/// One TOML table being read: its unknown keys are rejected up front, listing the allowed ones.
class Section {
 public:
  Section(const toml::table& table, std::string path, std::vector<std::string> allowed,
          const std::string& note = "")
      : table_(table), path_(std::move(path)) {
    for (auto&& [k, v] : table) {
      (void)v;
      if (std::find(allowed.begin(), allowed.end(), k.str()) == allowed.end())
        throw std::invalid_argument("unknown key '" + key(k.str()) + "' (allowed" +
                                    (note.empty() ? "" : " " + note) + ": " + join(allowed) + ")");
    }
  }

  /// The full dotted key of a child, as error messages name it.
  std::string key(std::string_view k) const {
    return path_.empty() ? std::string(k) : path_ + "." + std::string(k);
  }
  const toml::node* find(std::string_view k) const { return table_.get(k); }

  void get(std::string_view k, double& out) const {
    if (auto n = find(k)) out = as_number(*n, key(k));
  }
  void get(std::string_view k, int& out) const {
    if (auto n = find(k)) out = as_int(*n, key(k));
  }
  void get(std::string_view k, std::int64_t& out) const {
    if (auto n = find(k)) out = as_int64(*n, key(k));
  }
  void get(std::string_view k, bool& out) const {
    if (auto n = find(k)) out = as_bool(*n, key(k));
  }
  void get(std::string_view k, std::string& out) const {
    if (auto n = find(k)) out = as_string(*n, key(k));
  }
  void get(std::string_view k, std::vector<int>& out) const {
    if (auto n = find(k)) out = as_int_list(*n, key(k));
  }
  void get(std::string_view k, std::vector<std::string>& out) const {
    if (auto n = find(k)) out = as_string_list(*n, key(k));
  }
  template <class E>
  void get(std::string_view k, E& out, std::initializer_list<E> values,
           std::string (*name)(E)) const {
    if (auto n = find(k)) out = pick(*n, key(k), values, name);
  }
  /// A sub-table (absent: an empty one, so its defaults apply).
  const toml::table& table(std::string_view k) const {
    static const toml::table empty;
    auto n = find(k);
    return n ? as_table(*n, key(k)) : empty;
  }
  /// Calls f(table, key) for each entry of an array of tables such as [[world.network.groups]].
  template <class F>
  void each_table(std::string_view k, F&& f) const {
    auto n = find(k);
    if (!n) return;
    const toml::array& a = as_array(*n, key(k), "an array of tables ([[" + key(k) + "]])");
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string item = key(k) + "[" + std::to_string(i) + "]";
      f(as_table(a[i], item), item);
    }
  }

 private:
  const toml::table& table_;
  std::string path_;
};

// ---------------------------------------------------------------------------------------------
// Conversion of the parsed table into the config structs.

/// What the readers need besides the table: where relative paths resolve.
struct ReadContext {
  fs::path file_folder;                ///< the scenario file's folder
  std::set<std::string> from_command;  ///< keys set by overrides: their paths resolve from cwd
};

const std::vector<std::string>& distribution_params(Distribution::Kind k) {
  static const std::vector<std::string> constant{"value"}, uniform{"low", "high"},
      exponential{"mean"}, lognormal{"mu", "sigma"};
  switch (k) {
    case Distribution::Kind::constant:
      return constant;
    case Distribution::Kind::uniform:
      return uniform;
    case Distribution::Kind::exponential:
      return exponential;
    case Distribution::Kind::lognormal:
      return lognormal;
  }
  return constant;
}

Distribution read_distribution(const toml::node& n, const std::string& key) {
  Distribution d;
  if (n.is_number()) {  // a bare number: constant seconds
    d.kind = Distribution::Kind::constant;
    d.value = as_number(n, key);
    return d;
  }
  if (!n.is_table())
    wrong_type(key,
               "a number (constant seconds) or an inline table like { kind = \"lognormal\", "
               "mu = -2.0, sigma = 0.5 }",
               n);
  const toml::table& t = *n.as_table();
  const toml::node* kind = t.get("kind");
  if (!kind) fail(key + ".kind", "missing (allowed: constant, uniform, exponential, lognormal)");
  d.kind = pick(*kind, key + ".kind", distribution_kinds, name_of);
  std::vector<std::string> allowed{"kind"};
  const auto& params = distribution_params(d.kind);
  allowed.insert(allowed.end(), params.begin(), params.end());
  const Section s(t, key, allowed, "for " + name_of(d.kind));
  for (const std::string& p : params)
    if (!s.find(p)) fail(s.key(p), "missing (" + name_of(d.kind) + " needs " + join(params) + ")");
  s.get("value", d.value);
  s.get("low", d.low);
  s.get("high", d.high);
  s.get("mean", d.mean);
  s.get("mu", d.mu);
  s.get("sigma", d.sigma);
  return d;
}

const std::vector<std::string> link_keys = {"compute",   "uplink", "downlink", "speed_factor",
                                            "bandwidth", "drop",   "duplicate"};

/// Reads the link keys present in `s` over `link` (a group starts from the default link).
void read_link(const Section& s, LinkModel& link) {
  if (auto n = s.find("compute")) link.compute = read_distribution(*n, s.key("compute"));
  if (auto n = s.find("uplink")) link.uplink = read_distribution(*n, s.key("uplink"));
  if (auto n = s.find("downlink")) link.downlink = read_distribution(*n, s.key("downlink"));
  s.get("speed_factor", link.speed_factor);
  s.get("bandwidth", link.bandwidth);
  s.get("drop", link.drop);
  s.get("duplicate", link.duplicate);
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

NetworkConfig read_network(const toml::table& t, const ReadContext& ctx) {
  NetworkConfig net;
  const Section s(t, "world.network",
                  with(link_keys, {"groups", "crashes", "partitions", "availability_file",
                                   "detection_delay", "malformed"}));
  read_link(s, net.link);
  s.each_table("groups", [&](const toml::table& g, const std::string& key) {
    const Section gs(g, key, with({"name", "agents", "fraction"}, link_keys));
    AgentGroup group;
    group.name = "group" + std::to_string(net.groups.size());
    group.link = net.link;
    gs.get("name", group.name);
    gs.get("agents", group.agents);
    gs.get("fraction", group.fraction);
    read_link(gs, group.link);
    net.groups.push_back(std::move(group));
  });
  s.each_table("crashes", [&](const toml::table& c, const std::string& key) {
    const Section cs(c, key, {"agents", "fraction", "time", "recover", "keep_state"});
    CrashSchedule crash;
    cs.get("agents", crash.agents);
    cs.get("fraction", crash.fraction);
    cs.get("time", crash.time);
    cs.get("recover", crash.recover);
    cs.get("keep_state", crash.keep_state);
    net.crashes.push_back(std::move(crash));
  });
  s.each_table("partitions", [&](const toml::table& p, const std::string& key) {
    const Section ps(p, key, {"agents", "fraction", "start", "end"});
    NetworkPartition part;
    ps.get("agents", part.agents);
    ps.get("fraction", part.fraction);
    ps.get("start", part.start);
    ps.get("end", part.end);
    net.partitions.push_back(std::move(part));
  });
  s.get("detection_delay", net.detection_delay);
  s.get("availability_file", net.availability_file);
  if (!net.availability_file.empty()) {
    // Stored absolute, so the resolved config reads back the same from any folder.
    const std::string key = s.key("availability_file");
    const fs::path base = ctx.from_command.count(key) ? fs::current_path() : ctx.file_folder;
    const fs::path file = fs::absolute(base / net.availability_file).lexically_normal();
    if (!fs::is_regular_file(file)) fail(key, "no such file: " + file.string());
    net.availability_file = file.string();
  }
  const Section ms(s.table("malformed"), s.key("malformed"), {"rate", "kinds"});
  ms.get("rate", net.malformed.rate);
  ms.get("kinds", net.malformed.kinds);
  return net;
}

// ---------------------------------------------------------------------------------------------
// The two algorithm families: FBO (FTS, DP-FTS-DE, ...) and X-armed (Fed-PNE, DP-Fed-PNE).
// Each has its own [algorithm] and [world.objective] keys; a key of the other family is an
// error naming the algorithm in use.

// clang-format off
const std::vector<std::string> fbo_algorithm_keys = {
    "name", "iterations", "n_init", "features", "subregions", "q", "z", "clip", "lambda",
    "kernel_lengthscale", "beta", "p_schedule", "p1_equals_p2", "fts_one_shot", "temperature",
    "weight_a", "explore_own_region", "local_sampler"};
const std::vector<std::string> xarmed_algorithm_keys = {
    "name", "budget", "k", "split", "point", "nu1", "rho", "c", "c1", "delta", "dp_epsilon",
    "dp_delta"};
// clang-format on
const std::vector<std::string> fbo_objective_keys = {"kind",         "grid_size", "lengthscale",
                                                     "perturbation", "alpha",     "seed"};
const std::vector<std::string> xarmed_objective_keys = {"kind", "offset_std", "noise"};

constexpr const char* fed_pne_name = "fed-pne";
constexpr const char* dp_fed_pne_name = "dp-fed-pne";

/// The algorithm a file names (validated) and the family it belongs to.
struct Family {
  std::string algorithm;  ///< [algorithm] name, or the default
  bool xarmed = false;
};

Family read_family(const toml::table& algorithm) {
  using fbo::Algorithm;
  Family f{fbo::to_string(fbo::ReferenceConfig{}.algorithm), false};
  if (auto n = algorithm.get("name")) f.algorithm = as_string(*n, "algorithm.name");
  std::vector<std::string> names;
  for (Algorithm a :
       {Algorithm::ts, Algorithm::fts, Algorithm::fts_de, Algorithm::dp_fts, Algorithm::dp_fts_de})
    names.push_back(fbo::to_string(a));
  names.push_back(fed_pne_name);
  names.push_back(dp_fed_pne_name);
  if (std::find(names.begin(), names.end(), f.algorithm) == names.end())
    fail("algorithm.name", "unknown value '" + f.algorithm + "' (allowed: " + join(names) + ")");
  f.xarmed = f.algorithm == fed_pne_name || f.algorithm == dp_fed_pne_name;
  return f;
}

/// Rejects the keys of `t` that only the other family uses, before Section rejects unknown ones.
void reject_other_family(const toml::table& t, const std::string& path,
                         const std::vector<std::string>& allowed,
                         const std::vector<std::string>& other, const Family& family) {
  for (auto&& [k, v] : t) {
    (void)v;
    const std::string name(k.str());
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end() &&
        std::find(other.begin(), other.end(), name) != other.end())
      fail(path + "." + name,
           "not used by " + family.algorithm + " (allowed: " + join(allowed) + ")");
  }
}

/// A family-specific section: keys of the other family named as such, others as unknown.
Section family_section(const toml::table& t, const std::string& path,
                       const std::vector<std::string>& allowed,
                       const std::vector<std::string>& other, const Family& family) {
  reject_other_family(t, path, allowed, other, family);
  return Section(t, path, allowed);
}

std::string name_of_xarmed(xarmed::ObjectiveKind k) { return xarmed::to_string(k); }

constexpr std::initializer_list<xarmed::ObjectiveKind> xarmed_objectives = {
    xarmed::ObjectiveKind::garland, xarmed::ObjectiveKind::double_sine,
    xarmed::ObjectiveKind::seir};
constexpr std::initializer_list<SyntheticConfig::Kind> fbo_objectives = {
    SyntheticConfig::Kind::perturbed, SyntheticConfig::Kind::mixture};

/// True if `n` is a string naming one of `kinds`.
template <class E>
bool names_one_of(const toml::node& n, std::initializer_list<E> kinds, std::string (*name)(E)) {
  auto s = n.as_string();
  if (!s) return false;
  for (E k : kinds)
    if (name(k) == s->get()) return true;
  return false;
}

template <class E>
std::string names(std::initializer_list<E> kinds, std::string (*name)(E)) {
  std::vector<std::string> out;
  for (E k : kinds) out.push_back(name(k));
  return join(out);
}

void read_objective(const toml::table& t, const Family& family, ScenarioConfig& c) {
  const std::string path = "world.objective";
  if (!family.xarmed) {
    const Section o = family_section(t, path, fbo_objective_keys, xarmed_objective_keys, family);
    if (auto n = o.find("kind"); n && names_one_of(*n, xarmed_objectives, name_of_xarmed))
      fail(o.key("kind"), "'" + as_string(*n, o.key("kind")) +
                              "' is an X-armed objective, for algorithm.name = fed-pne or "
                              "dp-fed-pne (allowed with " +
                              family.algorithm + ": " + names(fbo_objectives, name_of) + ")");
    SyntheticConfig& obj = c.world.objective;
    o.get("kind", obj.kind, fbo_objectives, name_of);
    o.get("grid_size", obj.grid_size);
    o.get("lengthscale", obj.lengthscale);
    o.get("perturbation", obj.perturbation);
    o.get("alpha", obj.alpha);
    if (auto n = o.find("seed")) {
      const std::int64_t seed = as_int64(*n, o.key("seed"));
      if (seed < 0)
        fail(o.key("seed"), "must be an integer >= 0 (0: the run seed), got " +
                                std::to_string(seed));
      obj.seed = static_cast<std::uint64_t>(seed);
    }
    return;
  }
  const Section o = family_section(t, path, xarmed_objective_keys, fbo_objective_keys, family);
  xarmed::ProblemConfig& problem = c.xarmed.fed_pne.problem;
  if (auto n = o.find("kind"); n && names_one_of(*n, fbo_objectives, name_of))
    fail(o.key("kind"), "'" + as_string(*n, o.key("kind")) + "' is an FBO objective, not used by " +
                            family.algorithm +
                            " (allowed: " + names(xarmed_objectives, name_of_xarmed) + ")");
  o.get("kind", problem.objective, xarmed_objectives, name_of_xarmed);
  o.get("offset_std", problem.offset_std);
  if (auto n = o.find("noise")) {
    // In the config a negative noise means "the engine's default"; a file says that by
    // leaving the key out.
    problem.noise = as_number(*n, o.key("noise"));
    if (!(std::isfinite(problem.noise) && problem.noise >= 0))
      fail(o.key("noise"),
           "must be a finite number >= 0 (absent: the engine's default, 0.1 for garland and "
           "double-sine, 0.01 for seir), got " +
               toml_number(problem.noise));
  }
}

void read_world(const toml::table& t, const ReadContext& ctx, const Family& family,
                ScenarioConfig& c) {
  WorldConfig& world = c.world;
  const std::vector<std::string> common{"agents", "objective", "network"};
  const std::vector<std::string> fbo_only{"noise_variance", "peer_observations"};
  const Section s = family.xarmed ? family_section(t, "world", common, fbo_only, family)
                                  : Section(t, "world", {"agents", "noise_variance",
                                                         "peer_observations", "objective",
                                                         "network"});
  s.get("agents", world.agents);
  s.get("noise_variance", world.noise_variance);
  s.get("peer_observations", world.peer_observations);
  read_objective(s.table("objective"), family, c);
  world.network = read_network(s.table("network"), ctx);
}

void read_algorithm(const toml::table& t, const Family& family, fbo::ReferenceConfig& a) {
  using namespace fbo;
  const Section s =
      family_section(t, "algorithm", fbo_algorithm_keys, xarmed_algorithm_keys, family);
  s.get("name", a.algorithm,
        {Algorithm::ts, Algorithm::fts, Algorithm::fts_de, Algorithm::dp_fts, Algorithm::dp_fts_de},
        to_string);
  s.get("iterations", a.iterations);
  s.get("n_init", a.n_init);
  s.get("features", a.features);
  s.get("subregions", a.subregions);
  s.get("q", a.q);
  s.get("z", a.z);
  s.get("clip", a.clip);
  s.get("lambda", a.lambda);
  s.get("kernel_lengthscale", a.kernel_lengthscale);
  s.get("beta", a.beta);
  s.get("p_schedule", a.p_schedule,
        {PSchedule::inv_sqrt, PSchedule::inv, PSchedule::inv_square, PSchedule::always_local},
        to_string);
  s.get("p1_equals_p2", a.p1_equals_p2);
  s.get("fts_one_shot", a.fts_one_shot);
  s.get("temperature", a.temperature,
        {TemperatureSchedule::synthetic, TemperatureSchedule::real_world,
         TemperatureSchedule::fixed, TemperatureSchedule::uniform},
        to_string);
  s.get("weight_a", a.weight_a);
  s.get("explore_own_region", a.explore_own_region);
  s.get("local_sampler", a.local_sampler, {LocalSampler::rff, LocalSampler::exact}, to_string);
}

/// [algorithm] for fed-pne / dp-fed-pne. The name is the only switch between the two: DP runs
/// iff dp_epsilon > 0, so each name checks dp_epsilon against itself.
void read_xarmed_algorithm(const toml::table& t, const Family& family, xarmed::FedPneConfig& f) {
  using xarmed::PointRule;
  using xarmed::SplitRule;
  const Section s =
      family_section(t, "algorithm", xarmed_algorithm_keys, fbo_algorithm_keys, family);
  s.get("budget", f.budget);
  s.get("k", f.k);
  s.get("split", f.split, {SplitRule::random_axis, SplitRule::cyclic}, xarmed::to_string);
  s.get("point", f.point, {PointRule::centre, PointRule::uniform}, xarmed::to_string);
  s.get("nu1", f.params.nu1);
  s.get("rho", f.params.rho);
  s.get("c", f.params.c);
  s.get("c1", f.params.c1);
  s.get("delta", f.params.delta);
  s.get("dp_epsilon", f.dp_epsilon);
  s.get("dp_delta", f.dp_delta);
  const std::string eps = s.key("dp_epsilon");
  if (family.algorithm == dp_fed_pne_name) {
    if (!s.find("dp_epsilon")) fail(eps, "required by dp-fed-pne (allowed: a finite number > 0)");
    if (!(std::isfinite(f.dp_epsilon) && f.dp_epsilon > 0))
      fail(eps, "must be a finite number > 0 for dp-fed-pne, got " + toml_number(f.dp_epsilon));
  } else if (f.dp_epsilon != 0) {
    fail(eps, "must be 0 or absent for fed-pne (name = \"dp-fed-pne\" runs DP-Fed-PNE), got " +
                  toml_number(f.dp_epsilon));
  }
}

void read_policy(const toml::table& t, PolicyConfig& p) {
  using K = PolicyConfig::Kind;
  using S = PolicyConfig::Staleness;
  const Section s(
      t, "policy",
      {"kind", "dead_after_missed", "round_timeout", "deadline", "carry_late", "quorum",
       "async_every", "async_period", "max_staleness", "staleness", "staleness_exponent"});
  s.get("kind", p.kind, {K::sync, K::deadline, K::quorum, K::async}, name_of);
  s.get("dead_after_missed", p.dead_after_missed);
  s.get("round_timeout", p.round_timeout);
  s.get("deadline", p.deadline);
  s.get("carry_late", p.carry_late);
  s.get("quorum", p.quorum);
  s.get("async_every", p.async_every);
  s.get("async_period", p.async_period);
  s.get("max_staleness", p.max_staleness);
  s.get("staleness", p.staleness, {S::constant, S::inverse, S::polynomial}, name_of);
  s.get("staleness_exponent", p.staleness_exponent);
}

ScenarioConfig read_scenario(const toml::table& root, const std::string& source,
                             const ReadContext& ctx) {
  ScenarioConfig c;
  c.source_file = source;
  c.name = fs::path(source).stem().string();
  const Section s(root, "", {"name", "seed", "world", "algorithm", "policy", "privacy", "output"});
  s.get("name", c.name);
  if (auto n = s.find("seed")) {
    const std::int64_t seed = as_int64(*n, "seed");
    if (seed < 0) fail("seed", "must be an integer >= 0, got " + std::to_string(seed));
    c.seed = static_cast<std::uint64_t>(seed);
  }
  // The algorithm's name decides which keys the other sections take.
  const Family family = read_family(s.table("algorithm"));
  read_world(s.table("world"), ctx, family, c);
  if (family.xarmed) {
    c.xarmed.enabled = true;
    read_xarmed_algorithm(s.table("algorithm"), family, c.xarmed.fed_pne);
  } else {
    read_algorithm(s.table("algorithm"), family, c.algorithm);
  }
  read_policy(s.table("policy"), c.policy);
  // The X-armed family keeps its privacy in [algorithm]; accountant may stay (at its default,
  // which finalize() checks) so that a file can switch families by its name alone.
  const Section p = family.xarmed
                        ? family_section(s.table("privacy"), "privacy", {"accountant"},
                                         {"delta", "budget"}, family)
                        : Section(s.table("privacy"), "privacy", {"accountant", "delta", "budget"});
  p.get("accountant", c.privacy.accountant);
  p.get("delta", c.privacy.delta);
  p.get("budget", c.privacy.budget);
  const Section out(s.table("output"), "output", {"events"});
  out.get("events", c.output.events);
  c.finalize();
  return c;
}

// ---------------------------------------------------------------------------------------------
// Overrides: "dotted.key=value" applied to the parsed table before conversion.

struct Override {
  std::string text;  ///< as given, for messages
  std::string key;   ///< the dotted key, as error messages name it
};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

/// One segment of a dotted key: a name and, for arrays of tables, an index ("groups[0]").
struct Segment {
  std::string name;
  std::optional<size_t> index;
};

std::vector<Segment> split_key(const std::string& key, const std::string& where) {
  std::vector<Segment> out;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    std::string part =
        key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    Segment seg;
    const size_t bracket = part.find('[');
    if (bracket != std::string::npos) {
      const std::string digits = part.substr(bracket + 1, part.size() - bracket - 2);
      if (part.back() != ']' || digits.empty() ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(where + ": bad index in " + quote(part) +
                                    " (expected name[N])");
      // No array is this long; more digits would overflow.
      if (digits.size() > 9)
        throw std::invalid_argument(where + ": index " + quote(digits) + " out of range");
      seg.index = std::stoul(digits);
      part = part.substr(0, bracket);
    }
    if (part.empty() ||
        part.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                               "0123456789_-") != std::string::npos)
      throw std::invalid_argument(where + ": bad key " + quote(key) +
                                  " (expected dotted names like algorithm.q)");
    seg.name = part;
    out.push_back(std::move(seg));
    if (out.size() > static_cast<size_t>(max_toml_depth))
      throw std::invalid_argument(where + ": key nested deeper than " +
                                  std::to_string(max_toml_depth) + " levels");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

/// The value of an override as a TOML node: a TOML value if it parses as one, else a bare string.
toml::table parse_value(const std::string& value, const std::string& where) {
  if (value.find_first_of("\r\n") != std::string::npos)
    throw std::invalid_argument(where + ": the value must be on one line");
  if (!valid_utf8(value)) throw std::invalid_argument(where + ": the value is not valid UTF-8");
  if (find_depth_excess("v = " + value))
    throw std::invalid_argument(where + ": the value nests deeper than " +
                                std::to_string(max_toml_depth) + " levels");
  try {
    toml::table t = toml::parse("v = " + value);
    if (t.size() == 1 && t.get("v")) return t;
  } catch (const toml::parse_error& e) {
    // Something meant as an array, table or quoted string must parse; a bare word need not.
    if (std::string("[{\"'").find(value.front()) != std::string::npos)
      throw std::invalid_argument(where +
                                  ": value is not valid TOML: " + std::string(e.description()));
  }
  toml::table t;
  t.insert("v", value);
  return t;
}

Override apply_override(toml::table& root, const std::string& text) {
  const std::string where = "--set " + quote(text);
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw std::invalid_argument(where + ": expected key=value, e.g. algorithm.q=0.5");
  Override o{text, trim(std::string_view(text).substr(0, eq))};
  const std::string value = trim(std::string_view(text).substr(eq + 1));
  if (o.key.empty()) throw std::invalid_argument(where + ": missing key before '='");
  if (value.empty()) throw std::invalid_argument(where + ": missing value after '='");
  const std::vector<Segment> segments = split_key(o.key, where);
  toml::table parsed = parse_value(value, where);
  const toml::node& node = *parsed.get("v");

  toml::table* table = &root;
  std::string path;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& seg = segments[i];
    path += (path.empty() ? "" : ".") + seg.name;
    const bool last = i + 1 == segments.size();
    if (last && !seg.index) {
      table->insert_or_assign(seg.name, node);
      break;
    }
    toml::node* n = table->get(seg.name);
    if (!n) {
      if (seg.index)
        throw std::invalid_argument(where + ": key '" + path + "' has no entries to index");
      n = table->insert(seg.name, toml::table{}).first->second.as_table();
    }
    if (seg.index) {
      toml::array* array = n->as_array();
      if (!array) throw std::invalid_argument(where + ": key '" + path + "' is not an array");
      if (*seg.index >= array->size())
        throw std::invalid_argument(where + ": index " + std::to_string(*seg.index) +
                                    " out of range (key '" + path + "' has " +
                                    std::to_string(array->size()) + " entries)");
      path += "[" + std::to_string(*seg.index) + "]";
      if (last) {
        array->replace(array->cbegin() + static_cast<std::ptrdiff_t>(*seg.index), node);
        break;
      }
      n = array->get(*seg.index);
    }
    table = n->as_table();
    if (!table) throw std::invalid_argument(where + ": key '" + path + "' is not a table");
  }
  return o;
}

/// Says which override set the key an error message is about (the first quoted name), if one
/// did: the same key, a key inside it, or a table it created.
std::string blame(const std::string& message, const std::vector<Override>& overrides) {
  const size_t open = message.find('\'');
  const size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
  if (close == std::string::npos) return "";
  const std::string key = message.substr(open + 1, close - open - 1);
  auto within = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
           (inner[outer.size()] == '.' || inner[outer.size()] == '[');
  };
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
    if (key == it->key || within(key, it->key) || within(it->key, key))
      return " (from --set " + one_line(it->text, 120) + ")";
  return "";
}

ScenarioConfig parse_with_overrides(const std::string& text, const std::string& source,
                                    const std::vector<std::string>& overrides) {
  toml::table root;
  if (const auto excess = find_depth_excess(text))
    throw ScenarioError(source + ":" + std::to_string(excess->line) + ":" +
                        std::to_string(excess->column) + ": nested deeper than " +
                        std::to_string(max_toml_depth) + " levels of tables and arrays");
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& pos = e.source().begin;
    throw ScenarioError(source + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                        ": TOML syntax error: " + std::string(e.description()));
  }
  std::vector<Override> applied;
  ReadContext ctx;
  ctx.file_folder = fs::path(source).parent_path();
  if (ctx.file_folder.empty()) ctx.file_folder = fs::current_path();
  try {
    for (const std::string& o : overrides) {
      applied.push_back(apply_override(root, o));
      ctx.from_command.insert(applied.back().key);
    }
    return read_scenario(root, source, ctx);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(source + ": " + e.what() + blame(e.what(), applied));
  }
}

// ---------------------------------------------------------------------------------------------
// Writing TOML.

/// A TOML float that reads back to the same double: shortest digits, always with '.' or 'e'.
std::string toml_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string toml_bool(bool b) { return b ? "true" : "false"; }

std::string toml_ints(const std::vector<int>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string toml_strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + toml_string(v[i]);
  return out + "]";
}

std::string toml_distribution(const Distribution& d) {
  std::string out = "{ kind = " + toml_string(name_of(d.kind));
  switch (d.kind) {
    case Distribution::Kind::constant:
      out += ", value = " + toml_float(d.value);
      break;
    case Distribution::Kind::uniform:
      out += ", low = " + toml_float(d.low) + ", high = " + toml_float(d.high);
      break;
    case Distribution::Kind::exponential:
      out += ", mean = " + toml_float(d.mean);
      break;
    case Distribution::Kind::lognormal:
      out += ", mu = " + toml_float(d.mu) + ", sigma = " + toml_float(d.sigma);
      break;
  }
  return out + " }";
}

void write_link(std::ostream& out, const LinkModel& l) {
  out << "compute = " << toml_distribution(l.compute) << "\n"
      << "uplink = " << toml_distribution(l.uplink) << "\n"
      << "downlink = " << toml_distribution(l.downlink) << "\n"
      << "speed_factor = " << toml_float(l.speed_factor) << "\n"
      << "bandwidth = " << toml_float(l.bandwidth) << "\n"
      << "drop = " << toml_float(l.drop) << "\n"
      << "duplicate = " << toml_float(l.duplicate) << "\n";
}

void write_fbo_algorithm(std::ostream& out, const fbo::ReferenceConfig& a) {
  out << "\n[algorithm]\n"
      << "name = " << toml_string(fbo::to_string(a.algorithm)) << "\n"
      << "iterations = " << a.iterations << "\n"
      << "n_init = " << a.n_init << "\n"
      << "features = " << a.features << "\n"
      << "subregions = " << a.subregions << "\n"
      << "q = " << toml_float(a.q) << "\n"
      << "z = " << toml_float(a.z) << "\n"
      << "clip = " << toml_float(a.clip) << "\n"
      << "lambda = " << toml_float(a.lambda) << "\n"
      << "kernel_lengthscale = " << toml_float(a.kernel_lengthscale) << "\n"
      << "beta = " << toml_float(a.beta) << "\n"
      << "p_schedule = " << toml_string(fbo::to_string(a.p_schedule)) << "\n"
      << "p1_equals_p2 = " << toml_bool(a.p1_equals_p2) << "\n"
      << "fts_one_shot = " << toml_bool(a.fts_one_shot) << "\n"
      << "temperature = " << toml_string(fbo::to_string(a.temperature)) << "\n"
      << "weight_a = " << toml_float(a.weight_a) << "\n"
      << "explore_own_region = " << toml_bool(a.explore_own_region) << "\n"
      << "local_sampler = " << toml_string(fbo::to_string(a.local_sampler)) << "\n";
}

void write_policy(std::ostream& out, const PolicyConfig& p) {
  out << "\n[policy]\n"
      << "kind = " << toml_string(name_of(p.kind)) << "\n"
      << "dead_after_missed = " << p.dead_after_missed << "\n"
      << "round_timeout = " << toml_float(p.round_timeout) << "\n"
      << "deadline = " << toml_float(p.deadline) << "\n"
      << "carry_late = " << toml_bool(p.carry_late) << "\n"
      << "quorum = " << toml_float(p.quorum) << "\n"
      << "async_every = " << p.async_every << "\n"
      << "async_period = " << toml_float(p.async_period) << "\n"
      << "max_staleness = " << p.max_staleness << "\n"
      << "staleness = " << toml_string(name_of(p.staleness)) << "\n"
      << "staleness_exponent = " << toml_float(p.staleness_exponent) << "\n";
}

/// [world.objective] of the X-armed family; an absent noise (the engine's default) stays absent
/// so that it keeps following the objective kind.
void write_xarmed_objective(std::ostream& out, const xarmed::ProblemConfig& p) {
  out << "\n[world.objective]\n"
      << "kind = " << toml_string(xarmed::to_string(p.objective)) << "\n"
      << "offset_std = " << toml_float(p.offset_std) << "\n";
  if (p.noise >= 0)
    out << "noise = " << toml_float(p.noise) << "\n\n";
  else
    out << "# noise: absent, the engine's default for " << xarmed::to_string(p.objective) << " = "
        << toml_float(p.default_noise()) << "\n\n";
}

void write_xarmed_algorithm(std::ostream& out, const xarmed::FedPneConfig& f, int clients) {
  const double one_over_m = 1.0 / static_cast<double>(clients);
  out << "\n[algorithm]\n"
      << "name = " << toml_string(f.is_private() ? dp_fed_pne_name : fed_pne_name) << "\n"
      << "budget = " << f.budget << "\n"
      << "k = " << f.k << "\n"
      << "split = " << toml_string(xarmed::to_string(f.split)) << "\n"
      << "point = " << toml_string(xarmed::to_string(f.point)) << "\n"
      << "nu1 = " << toml_float(f.params.nu1) << "\n"
      << "rho = " << toml_float(f.params.rho) << "\n"
      << "c = " << toml_float(f.params.c) << "\n"
      << "c1 = " << toml_float(f.params.c1) << "\n"
      << "delta = " << toml_float(f.params.delta);
  if (f.params.delta == 0) out << "  # 0: 1/M = " << toml_float(one_over_m);
  out << "\n"
      << "dp_epsilon = " << toml_float(f.dp_epsilon) << "\n"
      << "dp_delta = " << toml_float(f.dp_delta);
  if (f.dp_delta == 0 && f.is_private()) out << "  # 0: 1/M = " << toml_float(one_over_m);
  out << "\n";
}

}  // namespace

ScenarioConfig parse_scenario(const std::string& text, const std::string& source,
                              const std::vector<std::string>& overrides) {
  return parse_with_overrides(text, source, overrides);
}

ScenarioConfig load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ScenarioError(path + ": no such scenario file");
  if (fs::is_directory(path, ec)) throw ScenarioError(path + ": is a folder, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (!in || !(text << in.rdbuf())) throw ScenarioError(path + ": cannot read the scenario file");
  return parse_with_overrides(text.str(), path, overrides);
}

std::string to_toml(const ScenarioConfig& c) {
  std::ostringstream out;
  const fbo::ReferenceConfig& a = c.algorithm;
  const WorldConfig& w = c.world;
  const NetworkConfig& net = w.network;
  out << "# fedsim scenario, fully resolved: every default filled in.\n";
  if (!c.source_file.empty()) out << "# Loaded from " << c.source_file << "\n";
  out << "name = " << toml_string(c.name) << "\n"
      << "seed = " << c.seed << "\n\n"
      << "[world]\n"
      << "agents = " << w.agents << "\n";
  if (c.xarmed.enabled) {
    write_xarmed_objective(out, c.xarmed.fed_pne.problem);
  } else {
    out << "noise_variance = " << toml_float(w.noise_variance) << "\n"
        << "peer_observations = " << w.peer_observations << "\n\n"
        << "[world.objective]\n"
        << "kind = " << toml_string(name_of(w.objective.kind)) << "\n"
        << "grid_size = " << w.objective.grid_size << "\n"
        << "lengthscale = " << toml_float(w.objective.lengthscale) << "\n"
        << "perturbation = " << toml_float(w.objective.perturbation) << "\n"
        << "alpha = " << toml_float(w.objective.alpha) << "\n"
        << "seed = " << w.objective.seed << "  # 0: the run seed\n\n";
  }
  out << "[world.network]\n";
  write_link(out, net.link);
  out << "detection_delay = " << toml_float(net.detection_delay) << "\n"
      << "availability_file = " << toml_string(net.availability_file) << "\n";
  // Empty arrays of tables are written inline; non-empty ones as [[...]] below.
  if (net.groups.empty()) out << "groups = []\n";
  if (net.crashes.empty()) out << "crashes = []\n";
  if (net.partitions.empty()) out << "partitions = []\n";
  out << "\n[world.network.malformed]\n"
      << "rate = " << toml_float(net.malformed.rate) << "\n"
      << "kinds = " << toml_strings(net.malformed.kinds) << "\n";
  for (const AgentGroup& g : net.groups) {
    out << "\n[[world.network.groups]]\n"
        << "name = " << toml_string(g.name) << "\n"
        << "agents = " << toml_ints(g.agents) << "\n"
        << "fraction = " << toml_float(g.fraction) << "\n";
    write_link(out, g.link);
  }
  for (const CrashSchedule& cr : net.crashes)
    out << "\n[[world.network.crashes]]\n"
        << "agents = " << toml_ints(cr.agents) << "\n"
        << "fraction = " << toml_float(cr.fraction) << "\n"
        << "time = " << toml_float(cr.time) << "\n"
        << "recover = " << toml_float(cr.recover) << "\n"
        << "keep_state = " << toml_bool(cr.keep_state) << "\n";
  for (const NetworkPartition& p : net.partitions)
    out << "\n[[world.network.partitions]]\n"
        << "agents = " << toml_ints(p.agents) << "\n"
        << "fraction = " << toml_float(p.fraction) << "\n"
        << "start = " << toml_float(p.start) << "\n"
        << "end = " << toml_float(p.end) << "\n";
  if (c.xarmed.enabled)
    write_xarmed_algorithm(out, c.xarmed.fed_pne, w.agents);
  else
    write_fbo_algorithm(out, a);
  write_policy(out, c.policy);
  if (c.xarmed.enabled) {
    out << "\n# [privacy] is not used by the X-armed family: see algorithm.dp_epsilon, dp_delta.\n";
  } else {
    out << "\n[privacy]\n"
        << "accountant = " << toml_string(c.privacy.accountant) << "\n"
        << "delta = " << toml_float(c.privacy.delta);
    if (c.privacy.delta == 0)
      out << "  # 0: 1/N^1.1 = " << toml_float(1.0 / std::pow(static_cast<double>(w.agents), 1.1));
    out << "\n"
        << "budget = " << toml_float(c.privacy.budget) << "\n";
  }
  out << "\n[output]\n"
      << "events = " << toml_bool(c.output.events) << "\n";
  return out.str();
}

}  // namespace fedsim::scenario
