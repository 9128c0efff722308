// The scenario schema: one field list per config struct. This file is the one C++ place where
// a scenario key is spelled (see scenarios/schema.hpp for how to add one).
#include "scenarios/schema_fields.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <variant>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/faults/corruptions.hpp"
#include "actors/faults/loss_model.hpp"
#include "actors/network_availability.hpp"
#include "actors/network_keys.hpp"
#include "actors/privacy_basis.hpp"
#include "actors/policy/keys.hpp"
#include "actors/policy/registry.hpp"
#include "actors/run_keys.hpp"
#include "data/datasets.hpp"
#include "engine/xarmed/dp_fed_pne.hpp"
#include "external/settings.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/program_path.hpp"
#include "scenarios/schema.hpp"
#include "scenarios/tuning_split.hpp"
#include "scenarios/wall_compute_warning.hpp"

namespace fedsim::scenario {

namespace {

using namespace schema;
using fbo::Algorithm;
namespace al = actors::algorithms;
using Policy = PolicyConfig::Kind;
// The [policy] keys the policies' messages name are spelled once, in actors/policy/keys.hpp.
namespace policy_keys = actors::policy::keys;
namespace nk = actors::network_keys;
namespace rk = actors::run_keys;

// ---------------------------------------------------------------------------------------------
// When a key has an effect.

using Inert = std::function<std::string(const ScenarioConfig&)>;

/// The key acts only under these policies.
Inert policy_is(std::vector<Policy> kinds) {
  return [kinds](const ScenarioConfig& c) -> std::string {
    for (Policy k : kinds)
      if (c.policy.kind == k) return "";
    std::vector<std::string> names;
    for (Policy k : kinds) names.push_back(name_of(k));
    return "used by policy.kind = " + join(names) + ", not " + name_of(c.policy.kind);
  };
}

/// What an FBO algorithm does that makes a key act (its traits, named in the engine).
using FboUse = bool (*)(const fbo::AlgorithmTraits&);
bool sends_messages(const fbo::AlgorithmTraits& t) { return t.sends_messages; }
bool regional(const fbo::AlgorithmTraits& t) { return t.regional; }
bool is_private(const fbo::AlgorithmTraits& t) { return t.is_private; }
bool relayed(const fbo::AlgorithmTraits& t) { return t.server == fbo::ServerKind::relay; }
/// The target-agent setting (world.peer_observations > 0): the peers' one message each before
/// the start is all a server could pass on.
bool target_agent(const fbo::AlgorithmTraits& t) { return t.server != fbo::ServerKind::de; }

/// The registered FBO algorithms for which `use` holds: "dp-fts, dp-fts-de".
std::string fbo_names(FboUse use) {
  return join(al::names_where([use](const al::AlgorithmKind& k) { return k.fbo && use(k.fbo->traits); }));
}

/// The key acts only with the FBO algorithms for which `use` holds ("what" says which).
Inert fbo_algorithm_uses(FboUse use, std::string what) {
  return [use, what](const ScenarioConfig& c) -> std::string {
    const al::AlgorithmKind& k = algorithm_kind(c);
    if (!k.fbo || use(k.fbo->traits)) return "";
    return "used by " + what + " (" + fbo_names(use) + "), not by " + k.name;
  };
}

/// What an X-armed algorithm does that makes a key act (its traits).
using XarmedUse = bool (*)(const al::XarmedTraits&);
/// Searches the partition tree (Fed-PNE, DP-Fed-PNE, HCT).
bool tree_search(const al::XarmedTraits& t) { return t.tree; }
/// Fed-PNE's phase schedule: the tree searched by clients and a server.
bool phase_schedule(const al::XarmedTraits& t) { return t.tree && t.federated; }
/// HCT: the tree searched by one central learner.
bool central_tree(const al::XarmedTraits& t) { return t.tree && !t.federated; }

/// The key acts only with the X-armed algorithms for which `use` holds ("what" says which).
Inert xarmed_algorithm_uses(XarmedUse use, std::string what) {
  return [use, what](const ScenarioConfig& c) -> std::string {
    const al::AlgorithmKind& k = algorithm_kind(c);
    if (!k.xarmed || use(*k.xarmed)) return "";
    return "used by " + what + " (" +
           join(al::names_where([use](const al::AlgorithmKind& o) {
             return o.xarmed && use(*o.xarmed);
           })) +
           "), not by " + k.name;
  };
}

/// Whether the configuration runs an X-armed algorithm for which `use` holds.
bool xarmed_uses(const ScenarioConfig& c, XarmedUse use) {
  const al::AlgorithmKind& k = algorithm_kind(c);
  return k.xarmed && use(*k.xarmed);
}

/// Fails with `key` if the Fed-PNE schedule or partition limit is broken and blames `p`.
template <class S>
std::function<void(const S&, const std::string&, Context&)> blamed_for(FedPneParameter p) {
  return [p](const S&, const std::string& key, Context& ctx) {
    if (!xarmed_uses(ctx.root, phase_schedule)) return;  // no phase schedule
    const FedPneLimit limit = fed_pne_limit(fed_pne_config(ctx.root));
    if (limit.blame == p) fail(key, limit.what);
  };
}

/// What a Fed-PNE "0 means 1/M" value stands for.
std::string one_over_m(const ScenarioConfig& c) {
  return "  # 0: 1/M = " + toml_float(1.0 / static_cast<double>(c.world.agents));
}

/// Agents picked by id or by fraction, one way or the other (named by the entry's key).
template <class S>
void check_selection(const S& s, const std::string& path, Context&) {
  if (!s.agents.empty() && s.fraction > 0)
    fail(path, "give either agents = [ids] or fraction, not both");
  if (s.agents.empty() && s.fraction == 0)
    fail(path, "selects no agent: give agents = [ids] or fraction in (0, 1]");
}

template <class S>
std::vector<Field<S>> selection_fields(const std::string& who) {
  return {value("agents", &S::agents, any<std::vector<int>>(), who + ", by id (ids in 0 .. N-1) ...")
              .also([](const S& s, const std::string& key, Context& ctx) {
                const int n = ctx.root.world.agents;
                for (int id : s.agents)
                  if (id < 0 || id >= n)
                    fail(key, "agent id must be in 0.." + std::to_string(n - 1) +
                                  " (world.agents = " + std::to_string(n) + "), got " +
                                  std::to_string(id));
              }),
          value("fraction", &S::fraction, probability(),
                "... or the first ceil(fraction N) agents of a keyed shuffle (not both)")};
}

// ---------------------------------------------------------------------------------------------
// [world.network]

/// `drop = p`, the Bernoulli shorthand; in a group it replaces the default link's loss model.
Field<LinkModel> drop_field() {
  Field<LinkModel> f =
      value(nk::drop, &LinkModel::drop, in("[0, 1)", [](double v) { return v >= 0 && v < 1; }),
            "probability a message is lost (Bernoulli; or give `loss`)");
  f.read = [read = f.read](const toml::node& n, LinkModel& l, const std::string& key, Context& c) {
    l.loss = {};
    read(n, l, key, c);
  };
  return f;
}

/// The loss models' names, for "did you mean".
std::vector<std::string> loss_kind_list() {
  std::vector<std::string> out;
  for (const actors::faults::LossKind& k : actors::faults::loss_kinds()) out.push_back(k.name);
  return out;
}

/// `loss = { kind = "gilbert-elliott", p = 0.01, r = 0.2 }`: a loss model registered in
/// actors/faults/loss_registry.cpp, its missing parameters set to the kind's defaults. In a
/// group it replaces the default link's drop or loss; drop and loss together are an error.
Field<LinkModel> loss_field() {
  namespace faults = actors::faults;
  Field<LinkModel> f;
  f.name = nk::loss;
  f.type = "loss model";
  f.allowed = faults::loss_kind_names();
  f.doc = "a loss model instead of drop, e.g. { kind = \"gilbert-elliott\", p = 0.01, r = 0.2 } "
          "(bursty loss); the kinds and their parameters are listed below";
  f.default_text = "none";
  f.read = [](const toml::node& n, LinkModel& l, const std::string& key, Context& ctx) {
    if (!n.is_table())
      wrong_type(key, "an inline table like { kind = \"gilbert-elliott\", p = 0.01, r = 0.2 }",
                 n);
    const toml::table& t = *n.as_table();
    const toml::node* kind_node = t.get("kind");
    if (!kind_node) fail(key + ".kind", "missing (allowed: " + faults::loss_kind_names() + ")");
    LossSpec loss;
    loss.kind = Value<std::string>::read(*kind_node, key + ".kind");
    const faults::LossKind* kind = faults::find_loss_kind(loss.kind);
    if (!kind)
      fail(key + ".kind", "unknown value '" + loss.kind + "'" +
                              did_you_mean(loss.kind, loss_kind_list()) +
                              " (allowed: " + faults::loss_kind_names() + ")");
    for (auto&& [k, v] : t)
      if (k.str() != "kind")
        loss.params[std::string(k.str())] =
            Value<double>::read(v, key + "." + std::string(k.str()));
    l.loss.params = faults::complete_params(*kind, loss.params, key);
    l.loss.kind = loss.kind;
    // A drop given beside it (read before it) stays, for the check to refuse both.
    const std::string drop_key = key.substr(0, key.size() - std::string(nk::loss).size()) + nk::drop;
    if (!ctx.present.count(drop_key)) l.drop = 0.0;
  };
  f.check = [](const LinkModel& l, const std::string& key, Context&) {
    if (l.loss.kind.empty()) return;
    if (l.drop != 0) fail(key, "give either drop (Bernoulli loss) or loss, not both");
    const faults::LossKind* kind = faults::find_loss_kind(l.loss.kind);
    if (!kind)
      fail(key + ".kind",
           "unknown kind '" + l.loss.kind + "' (allowed: " + faults::loss_kind_names() + ")");
    kind->validate(faults::complete_params(*kind, l.loss.params, key), key);
  };
  // Written only when set, so that configs without one read back byte for byte.
  f.text = [](const LinkModel& l, Context&) -> std::string {
    if (l.loss.kind.empty()) return "";
    std::string out = "{ kind = " + toml_string(l.loss.kind);
    for (const auto& [name, v] : l.loss.params) out += ", " + name + " = " + toml_float(v);
    return out + " }";
  };
  return f;
}

const Table<LinkModel>& link_table() {
  static const Table<LinkModel> t{{
      value(nk::compute, &LinkModel::compute, any<Distribution>(), "time of one agent step"),
      value(nk::uplink, &LinkModel::uplink, any<Distribution>(), "latency agent -> server"),
      value(nk::downlink, &LinkModel::downlink, any<Distribution>(), "latency server -> agent"),
      value("speed_factor", &LinkModel::speed_factor,
            in("(0, 1e6]", [](double v) { return v > 0 && v <= 1e6; }),
            "multiplies compute time; > 1 is a persistent straggler"),
      value(nk::bandwidth, &LinkModel::bandwidth,
            {"must be >= 1 byte per second (inf: unlimited)", [](double v) { return v >= 1; },
             ">= 1, inf"},
            "bytes per second; adds payload size / bandwidth to each message"),
      drop_field(),
      loss_field(),
      value(nk::duplicate, &LinkModel::duplicate, probability(),
            "probability a message is delivered twice"),
  }};
  return t;
}

const Table<AgentGroup>& group_table() {
  static const Table<AgentGroup> t{
      std::vector<Field<AgentGroup>>{
          value("name", &AgentGroup::name, any<std::string>(), "for logs")
              .defaults("\"group<i>\"")} +
          selection_fields<AgentGroup>("the group's agents") +
          inlined(&AgentGroup::link, link_table()),
      check_selection<AgentGroup>};
  return t;
}

const Table<CrashSchedule>& crash_table() {
  static const Table<CrashSchedule> t{
      selection_fields<CrashSchedule>("the agents that crash") +
          std::vector<Field<CrashSchedule>>{
              value("time", &CrashSchedule::time, seconds(false), "virtual time of the crash"),
              value("recover", &CrashSchedule::recover, seconds(true, "crash-stop"),
                    "when they come back (> time); inf: crash-stop")
                  .also([](const CrashSchedule& c, const std::string& key, Context&) {
                    if (!(c.recover > c.time))
                      fail(key, "must be > time (" + number_text(c.time) +
                                    "), or inf for crash-stop, got " + number_text(c.recover));
                  }),
              value("keep_state", &CrashSchedule::keep_state, any<bool>(),
                    "whether they come back with their observations")},
      check_selection<CrashSchedule>};
  return t;
}

const Table<NetworkPartition>& partition_table() {
  static const Table<NetworkPartition> t{
      selection_fields<NetworkPartition>("the agents cut off") +
          std::vector<Field<NetworkPartition>>{
              value("start", &NetworkPartition::start, seconds(false), "start of the cut"),
              value("end", &NetworkPartition::end, seconds(true, "never ends"),
                    "end of the cut (exclusive, > start, inf allowed)")
                  .also([](const NetworkPartition& p, const std::string& key, Context&) {
                    if (!(p.end > p.start))
                      fail(key, "must be > start (" + number_text(p.start) + "), or inf, got " +
                                    number_text(p.end));
                  })},
      check_selection<NetworkPartition>};
  return t;
}

/// The corruptions of actors/faults/corruptions.cpp, every report type (report, phase_report).
const Table<MalformedInjection>& malformed_table() {
  namespace faults = actors::faults;
  static const Table<MalformedInjection> t{
      {value(nk::malformed_rate, &MalformedInjection::rate, probability(),
             "probability that a report (FBO's report, Fed-PNE's phase report) is corrupted"),
       value("kinds", &MalformedInjection::kinds, {"", nullptr, faults::corruption_names()},
             "corruptions, drawn uniformly")
           .also([](const MalformedInjection& m, const std::string& key, Context&) {
        for (const std::string& kind : m.kinds)
          if (!faults::find_corruption(kind))
            fail(key, "unknown kind '" + kind + "'" +
                          did_you_mean(kind, faults::all_corruption_names()) +
                          " (allowed: " + faults::corruption_names() + ")");
        if (m.rate > 0 && m.kinds.empty())
          fail(key, "must name at least one kind when rate > 0 (allowed: " +
                        faults::corruption_names() + ")");
      })}};
  return t;
}

/// availability_file: stored absolute, so the resolved config reads back the same anywhere.
Field<NetworkConfig> availability_file() {
  Field<NetworkConfig> f = value(nk::availability_file, &NetworkConfig::availability_file,
                                 any<std::string>(),
                                 "CSV agent,start,end of up-intervals; relative to the scenario "
                                 "file's folder (to the current folder from --set); \"\": always up");
  f.read = [](const toml::node& n, NetworkConfig& net, const std::string& key, Context& ctx) {
    net.availability_file = Value<std::string>::read(n, key);
    if (net.availability_file.empty()) return;
    const std::filesystem::path base =
        ctx.from_command.count(key) ? std::filesystem::current_path() : ctx.file_folder;
    const std::filesystem::path file =
        std::filesystem::absolute(base / net.availability_file).lexically_normal();
    if (!std::filesystem::is_regular_file(file)) fail(key, "no such file: " + file.string());
    net.availability_file = file.string();
  };
  // The trace is parsed when the scenario is loaded, so a bad one fails before a run writes
  // anything (the network reads it again when the run starts).
  f.also([](const NetworkConfig& net, const std::string& key, Context& ctx) {
    if (net.availability_file.empty()) return;
    try {
      actors::read_availability_file(net.availability_file, ctx.root.world.agents);
    } catch (const std::invalid_argument& e) {
      fail(key, e.what());
    }
  });
  return f;
}

const Table<NetworkConfig>& network_table() {
  static const Table<NetworkConfig> t{
      inlined(&NetworkConfig::link, link_table()) +
      std::vector<Field<NetworkConfig>>{
          value(nk::detection_delay, &NetworkConfig::detection_delay,
                seconds(false, "never"),
                "the network tells the server a crashed agent is down this long after the "
                "crash; inf: never (the server relies on missed rounds)"),
          availability_file(),
          tables<NetworkConfig, AgentGroup>(
              nk::groups, &NetworkConfig::groups, group_table,
              [](AgentGroup& g, const NetworkConfig& net, size_t i) {
                g.name = "group" + std::to_string(i);
                g.link = net.link;  // a group changes only the link keys it names
              },
              "agents whose link differs"),
          tables<NetworkConfig, CrashSchedule>(nk::crashes, &NetworkConfig::crashes, crash_table,
                                               nullptr, "agents that crash"),
          tables<NetworkConfig, NetworkPartition>(nk::partitions, &NetworkConfig::partitions,
                                                  partition_table, nullptr,
                                                  "agents cut off from the server"),
          table(nk::malformed, &NetworkConfig::malformed, malformed_table)}};
  return t;
}

// ---------------------------------------------------------------------------------------------
// [world] and [world.objective]

/// An objective kind of the other family is named as such.
template <class Own, class Other>
void reject_other_kind(const toml::node& n, const std::string& key, const Context& ctx) {
  const auto s = n.as_string();
  if (!s) return;
  const auto own = Value<Own>::allowed();
  if (std::find(own.begin(), own.end(), s->get()) != own.end()) return;  // shared ("tuning")
  for (const auto& entry : names(Other{}))
    if (entry.second == s->get()) {
      if (ctx.family == Family::fbo)
        fail(key, "'" + entry.second + "' is an X-armed objective, for algorithm.name = " +
                      join(al::algorithm_names(al::Family::xarmed)) + " (allowed with " +
                      ctx.algorithm +
                      ": " + join(Value<Own>::allowed()) + ")");
      fail(key, "'" + entry.second + "' is an FBO objective, not used by " + ctx.algorithm +
                    " (allowed: " + join(Value<Own>::allowed()) + ")");
    }
}

template <class S, class Own, class Other>
Field<S> objective_kind(Own S::*m, std::string doc) {
  Field<S> f = value("kind", m, one_of<Own>(), std::move(doc));
  f.read = [m](const toml::node& n, S& s, const std::string& key, Context& ctx) {
    reject_other_kind<Own, Other>(n, key, ctx);
    s.*m = Value<Own>::read(n, key);
  };
  return f;
}

using ObjectiveKind = SyntheticConfig::Kind;
const std::vector<ObjectiveKind> grid_kinds = {ObjectiveKind::perturbed, ObjectiveKind::mixture};
const std::vector<ObjectiveKind> box_kinds = {ObjectiveKind::branin, ObjectiveKind::hartmann3,
                                              ObjectiveKind::hartmann6, ObjectiveKind::ackley};
const std::vector<ObjectiveKind> external_kinds = {ObjectiveKind::command, ObjectiveKind::tcp};
const std::vector<ObjectiveKind> tuning_kinds = {ObjectiveKind::tuning};

std::vector<ObjectiveKind> operator+(std::vector<ObjectiveKind> a,
                                     const std::vector<ObjectiveKind>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool is_one_of(ObjectiveKind k, const std::vector<ObjectiveKind>& kinds) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

/// A [world.objective] key that only these kinds read. Under another kind it has no effect:
/// given in a file it is a warning ("has no effect: used by world.objective.kind = ..."), and
/// config.resolved.toml leaves it out (so a grid kind resolves to the same text as before the
/// other kinds existed).
Field<SyntheticConfig> for_kinds(Field<SyntheticConfig> f, std::vector<ObjectiveKind> kinds) {
  f.when([kinds](const ScenarioConfig& c) -> std::string {
    if (is_one_of(c.world.objective.kind, kinds)) return "";
    std::vector<std::string> names;
    for (ObjectiveKind k : kinds) names.push_back(name_of(k));
    return "used by world.objective.kind = " + join(names) + ", not " +
           name_of(c.world.objective.kind);
  });
  f.text = [text = f.text, kinds](const SyntheticConfig& o, Context& c) {
    return is_one_of(o.kind, kinds) ? text(o, c) : "";
  };
  return f;
}

std::string kind_text(ObjectiveKind k) { return "world.objective.kind = \"" + name_of(k) + "\""; }

/// dimension: 0 (absent) is the kind's own; written as the dimension in use.
Field<SyntheticConfig> dimension_field() {
  const int most = SyntheticConfig::max_dimension;
  Field<SyntheticConfig> f = value(
      "dimension", &SyntheticConfig::dimension,
      Rule<int>{"must be an integer in 1.." + std::to_string(most),
                [](int v) { return v >= 0 && v <= SyntheticConfig::max_dimension; },
                "1.." + std::to_string(most)},
      "d: ackley any (absent: 2); command, tcp: required; branin 2, hartmann3 3, hartmann6 6 "
      "(absent or that)");
  f.defaults("absent");
  f.also([](const SyntheticConfig& o, const std::string& key, Context&) {
    if (o.is_external() && o.dimension == 0)
      fail(key, "required with " + kind_text(o.kind) + " (the number of coordinates of x, 1.." +
                    std::to_string(SyntheticConfig::max_dimension) + ")");
    if (o.is_box() && o.kind != ObjectiveKind::ackley && o.dimension != 0 &&
        o.dimension != o.effective_dimension())
      fail(key, name_of(o.kind) + " is " + std::to_string(o.effective_dimension()) +
                    "-dimensional: leave it out or give " +
                    std::to_string(o.effective_dimension()) + ", got " +
                    std::to_string(o.dimension));
  });
  f = for_kinds(std::move(f), box_kinds + external_kinds);
  // A tuning task's dimension is its hyperparameters': another one is refused (the engine
  // would), not ignored.
  f.also([](const SyntheticConfig& o, const std::string& key, Context&) {
    if (o.is_tuning() && o.dimension != 0 && o.dimension != o.effective_dimension())
      fail(key, "the tuning task has " + std::to_string(o.effective_dimension()) +
                    " hyperparameters: leave it out or give " +
                    std::to_string(o.effective_dimension()) + ", got " +
                    std::to_string(o.dimension));
  });
  f.text = [](const SyntheticConfig& o, Context&) -> std::string {
    if (o.kind != ObjectiveKind::ackley && !o.is_external()) return "";  // fixed by the kind
    return std::to_string(o.effective_dimension());
  };
  return f;
}

/// command: the argv; an element starting with "./" or "../" is a path relative to the scenario
/// file's folder (to the current folder from --set), stored absolute like every path key. The
/// program must be executable and such a path must exist (the worker's script): checked at load,
/// where a run would fail every evaluation.
Field<SyntheticConfig> command_field() {
  Field<SyntheticConfig> f =
      value("command", &SyntheticConfig::command, any<std::vector<std::string>>(),
            "the worker's program and arguments (argv[0] looked up in PATH, an executable "
            "file); elements starting with ./ or ../ are relative to the scenario file's folder "
            "and must exist; an interpreter's (python3, sh, ...) first argument, unless an "
            "option, is its script and must exist");
  f.allowed = "non-empty";
  f.read = [](const toml::node& n, SyntheticConfig& o, const std::string& key, Context& ctx) {
    o.command = Value<std::vector<std::string>>::read(n, key);
    const std::filesystem::path base =
        ctx.from_command.count(key) ? std::filesystem::current_path() : ctx.file_folder;
    for (std::size_t i = 0; i < o.command.size(); ++i) {
      std::string& arg = o.command[i];
      if (arg.rfind("./", 0) != 0 && arg.rfind("../", 0) != 0) continue;
      const std::string given = arg;
      arg = std::filesystem::absolute(base / arg).lexically_normal().string();
      // The program (i = 0) is checked with the kind, below; an argument only for a command.
      std::error_code ec;
      if (i > 0 && o.kind == ObjectiveKind::command && !std::filesystem::exists(arg, ec))
        fail(key, quote(arg) + " (" + quote(given) + ") does not exist");
    }
  };
  f.also([](const SyntheticConfig& o, const std::string& key, Context&) {
    if (o.kind != ObjectiveKind::command) return;
    if (o.command.empty() || o.command.front().empty())
      fail(key, "required with " + kind_text(o.kind) +
                    ": a non-empty list of strings, the program and its arguments");
    const std::string problem = program_problem(o.command.front());
    if (!problem.empty()) fail(key, problem + " (allowed: an executable file)");
    const std::string script = script_problem(o.command);
    if (!script.empty())
      fail(key,
           script + " (allowed: an interpreter's script that exists; scenarios/program_path.hpp)");
  });
  return for_kinds(std::move(f), {ObjectiveKind::command});
}

Field<SyntheticConfig> address_field() {
  Field<SyntheticConfig> f =
      value("address", &SyntheticConfig::address, any<std::string>(),
            "the evaluation service, \"HOST:PORT\" with HOST an IP literal (127.0.0.1, [::1])");
  f.allowed = "HOST:PORT";
  // The syntax is external::parse_address's, the one the evaluator connects with.
  f.also([](const SyntheticConfig& o, const std::string& key, Context&) {
    if (o.kind == ObjectiveKind::tcp && !external::parse_address(o.address))
      fail(key, "must be \"HOST:PORT\" with HOST an IP literal (127.0.0.1, [::1]) and PORT in "
                "1..65535, got " + message_text(o.address));
  });
  return for_kinds(std::move(f), {ObjectiveKind::tcp});
}

/// lower / upper: one finite number per axis (absent: 0 / 1 per axis), lower < upper.
Field<SyntheticConfig> bound_field(const std::string& name, std::vector<double> SyntheticConfig::*m,
                                   const std::string& doc) {
  Field<SyntheticConfig> f = value(name, m, any<std::vector<double>>(), doc);
  f.defaults(name == "lower" ? "0 per axis" : "1 per axis");
  f.allowed = "dimension finite numbers, lower < upper";
  f.also([m, name](const SyntheticConfig& o, const std::string& key, Context&) {
    if (!o.is_external()) return;
    const std::vector<double>& v = o.*m;
    if (!v.empty() && static_cast<int>(v.size()) != o.dimension)
      fail(key, "must have one number per dimension (world.objective.dimension = " +
                    std::to_string(o.dimension) + "), got " + std::to_string(v.size()));
    for (std::size_t j = 0; j < v.size(); ++j)
      if (!std::isfinite(v[j]))
        fail(key, "must be finite numbers, got " + number_text(v[j]) + " at [" +
                      std::to_string(j) + "]");
    if (name != "upper") return;
    const Box b = o.bounds();
    for (int j = 0; j < b.dim(); ++j)
      if (!(b.lower(j) < b.upper(j)))
        fail(key, "must exceed world.objective.lower on every axis, got upper[" +
                      std::to_string(j) + "] = " + number_text(b.upper(j)) + " <= lower[" +
                      std::to_string(j) + "] = " + number_text(b.lower(j)));
  });
  f = for_kinds(std::move(f), external_kinds);
  f.text = [name](const SyntheticConfig& o, Context&) -> std::string {
    if (!o.is_external()) return "";
    const Box b = o.bounds();  // written filled in
    const Eigen::VectorXd& v = name == "lower" ? b.lower : b.upper;
    return Value<std::vector<double>>::text(std::vector<double>(v.data(), v.data() + v.size()));
  };
  return f;
}

/// world.objective.optimum: absent (not known) unless given; written only when given.
Field<SyntheticConfig> optimum_field() {
  static const std::string rule = "must be a finite number (absent: not known)";
  Field<SyntheticConfig> f = value(
      "optimum", &SyntheticConfig::optimum,
      {rule, [](double v) { return !std::isinf(v); }, "finite, absent"},  // NaN: absent
      "the function's largest noise-free value, where known: regret from the workers' f");
  f.defaults("absent");
  f.read = [](const toml::node& n, SyntheticConfig& o, const std::string& key, Context&) {
    o.optimum = Value<double>::read(n, key);
    if (!std::isfinite(o.optimum)) fail(key, rule + ", got " + number_text(o.optimum));
  };
  f = for_kinds(std::move(f), external_kinds);
  f.text = [](const SyntheticConfig& o, Context&) -> std::string {
    return o.is_external() && std::isfinite(o.optimum) ? toml_float(o.optimum) : "";
  };
  return f;
}

/// The seed of a tuning objective's split and training, 0 for the run's (FBO and X-armed name
/// the member differently).
std::uint64_t objective_seed_of(const SyntheticConfig& o) { return o.seed; }
std::uint64_t objective_seed_of(const xarmed::ProblemConfig& o) { return o.objective_seed; }

/// The samples a tuning objective uses (its data set's first `samples`, 0: all), or -1 when
/// the objective is not tuning or names no known data set (the dataset key's rule says so).
template <class S>
int tuning_samples_used(const S& o) {
  if (!o.is_tuning()) return -1;
  const auto& names = data::dataset_names();
  if (std::find(names.begin(), names.end(), o.dataset) == names.end()) return -1;
  const int all = data::dataset_shape(o.dataset).samples;
  return o.samples == 0 ? all : std::min(o.samples, all);
}

/// The keys of the tuning objective (docs/real-data.md), read by both families into members of
/// the same names: SyntheticConfig (FBO) and xarmed::ProblemConfig (Fed-PNE, HCT). Each is
/// wrapped by the family's own "used by world.objective.kind = tuning" rule.
template <class S>
std::vector<Field<S>> tuning_fields() {
  return {
      value("task", &S::task, one_of<TuningSettings::Task>(),
            "tuning: logistic (batch size, L2, learning rate), mlp (learning rate, decay, L2), "
            "svm (RBF gamma, penalty; AUC of positive_class against the rest); "
            "docs/real-data.md"),
      value("dataset", &S::dataset,
            Rule<std::string>{"must be one of fashion-mnist, digits, breast-cancer",
                              [](const std::string& v) {
                                const auto& n = data::dataset_names();
                                return std::find(n.begin(), n.end(), v) != n.end();
                              },
                              "fashion-mnist, digits, breast-cancer"},
            "tuning: the data set, from Debian's packages (dataset-fashion-mnist, "
            "python3-sklearn)"),
      value("samples", &S::samples, at_least(0),
            "tuning: the data set's first this many samples (0: all)")
          .also([](const S& o, const std::string& key, Context& c) {
            const int used = tuning_samples_used(o);
            if (used < 0) return;
            const int agents = c.root.world.agents;
            if (used < 4 * agents)
              fail(key, "gives " + std::to_string(used) + " samples of '" + o.dataset +
                            "' for world.agents = " + std::to_string(agents) +
                            ": every agent needs at least 4 (2 to train, 2 to validate)");
          }),
      value("label_skew", &S::label_skew,
            // Below 0.01 a class's shares are (nearly) all on one agent, and the split finds
            // no draw that leaves every agent its minimum of samples (5e-324 failed the run).
            Rule<double>{"must be a number >= 0.01 (inf: proportional shares)",
                         [](double v) { return v >= 0.01; }, ">= 0.01, inf"},
            "tuning: Dirichlet alpha of each class's shares over the agents (small: few "
            "classes per agent)")
          .also([](const S& o, const std::string& key, Context& c) {
            // Enough samples in all (samples' rule), but the run's own draws may still leave
            // an agent short (skewed shares, rounding per class): drawn here, as the run would
            // at its start, from the labels and the run's seed.
            const int used = tuning_samples_used(o);
            if (used < 0) return;
            const int agents = c.root.world.agents;
            const std::uint64_t seed = objective_seed_of(o) != 0 ? objective_seed_of(o) : c.root.seed;
            const std::string split = tuning_split_problem(
                {o.dataset, o.samples, agents, o.label_skew, o.quantity_skew, seed});
            if (!split.empty())
              fail(key, "the " + std::to_string(used) + " samples of '" + o.dataset +
                            "' cannot be split over world.agents = " + std::to_string(agents) +
                            " with label_skew = " + number_text(o.label_skew) +
                            ", quantity_skew = " + number_text(o.quantity_skew) + " and seed " +
                            std::to_string(seed) + " (" + split +
                            "; allowed: a split that leaves every agent at least 4 samples)");
          }),
      value("quantity_skew", &S::quantity_skew, at_least(0.0),
            "tuning: sigma of the agents' lognormal size weights (0: none)"),
      value("positive_class", &S::positive_class, at_least(0),
            "tuning, svm: the class scored against the rest")
          .also([](const S& o, const std::string& key, Context&) {
            const auto& names = data::dataset_names();
            if (!o.is_tuning() || o.task != TuningSettings::Task::svm ||
                std::find(names.begin(), names.end(), o.dataset) == names.end())
              return;
            const int classes = data::dataset_shape(o.dataset).classes;
            if (o.positive_class >= classes)
              fail(key, "must be a class of '" + o.dataset + "' (0.." +
                            std::to_string(classes - 1) + "), got " +
                            std::to_string(o.positive_class));
          }),
      value("epochs", &S::epochs,
            Rule<int>{"must be an integer in 1..10000",
                      [](int v) { return v >= 1 && v <= 10000; }, "1..10000"},
            "tuning, logistic and mlp: passes over the training half"),
  };
}

const Table<SyntheticConfig>& synthetic_table() {
  static const Table<SyntheticConfig> t = [] {
    std::vector<Field<SyntheticConfig>> fields{
      objective_kind<SyntheticConfig, SyntheticConfig::Kind, xarmed::ObjectiveKind>(
          &SyntheticConfig::kind,
          "perturbed: f_n = f + d_n(x), +-perturbation per point (B.1.1); mixture: f_n = "
          "alpha g_n + (1 - alpha) f (B.1.2); branin, hartmann3, hartmann6, ackley: test "
          "functions on [0, 1]^d, shifted per agent; command, tcp: an external black box "
          "(docs/external-objectives.md)"),
      for_kinds(value("grid_size", &SyntheticConfig::grid_size, at_least(2),
                      "points of the 1-D grid (perturbed, mixture)"),
                grid_kinds),
      for_kinds(value("lengthscale", &SyntheticConfig::lengthscale, between(1e-6, 1e6),
                      "SE kernel of the sampled functions (perturbed, mixture)"),
                grid_kinds),
      for_kinds(value("perturbation", &SyntheticConfig::perturbation, between(0.0, 1e6),
                      "d (perturbed)"),
                grid_kinds),
      for_kinds(value("alpha", &SyntheticConfig::alpha, probability(), "heterogeneity (mixture)"),
                grid_kinds),
      for_kinds(value("seed", &SyntheticConfig::seed, any<std::uint64_t>(),
                      "seed of the objective functions alone (grid kinds; box kinds: the "
                      "shifts; tuning: the data split and the training); 0: the run seed")
                    .noting([](const SyntheticConfig& o, Context&) -> std::string {
                      return o.is_external() ? "" : "  # 0: the run seed";
                    }),
                grid_kinds + box_kinds + tuning_kinds),
      dimension_field(),
      for_kinds(value("shift", &SyntheticConfig::shift, between(0.0, 1e6),
                      "box kinds: agent n's function is the base shifted by a uniform draw in "
                      "[-shift, shift] per axis"),
                box_kinds),
      command_field(),
      address_field(),
      bound_field("lower", &SyntheticConfig::lower,
                  "lower corner of the worker's box; agents search [0, 1]^d mapped onto it"),
      bound_field("upper", &SyntheticConfig::upper, "upper corner of the worker's box"),
      for_kinds(value("workers", &SyntheticConfig::workers,
                      Rule<int>{"must be an integer in 1..256",
                                [](int v) { return v >= 1 && v <= 256; }, "1..256"},
                      "processes (connections) kept alive and reused"),
                external_kinds),
      for_kinds(value("timeout", &SyntheticConfig::timeout,
                      // Below 0.1 s every attempt of a worker that must start times out, and
                      // the run crawls through retries and back-offs.
                      between(0.1, 1e7), "wall seconds per evaluation attempt"),
                external_kinds),
      for_kinds(value("on_failure", &SyntheticConfig::on_failure,
                      one_of<SyntheticConfig::OnFailure>(),
                      "a failed evaluation: skip it, retry it up to max_retries times, or abort "
                      "the run"),
                external_kinds),
      optimum_field(),
      for_kinds(value("max_retries", &SyntheticConfig::max_retries,
                      Rule<int>{"must be an integer in 0..100",
                                [](int v) { return v >= 0 && v <= 100; }, "0..100"},
                      "attempts beyond the first (on_failure = retry)"),
                external_kinds),
    };
    for (auto& f : tuning_fields<SyntheticConfig>()) fields.push_back(for_kinds(f, tuning_kinds));
    fields.push_back(
        for_kinds(value("cost_per_sample", &SyntheticConfig::cost_per_sample, between(0.0, 1e3),
                        "tuning: virtual seconds charged per training sample and epoch (0: the "
                        "network's compute model)"),
                  tuning_kinds));
    return Table<SyntheticConfig>{std::move(fields)};
  }();
  return t;
}

const Table<xarmed::ProblemConfig>& problem_table() {
  using xarmed::ProblemConfig;
  static const std::string noise_rule =
      "must be a finite number in [0, 1e6] (absent: the engine's default, 0.1 for garland and "
      "double-sine, 0.01 for seir, 0 for tuning)";
  static const Table<ProblemConfig> t = [] {
    Field<ProblemConfig> noise = value(
        "noise", &ProblemConfig::noise,
        {noise_rule, [](double v) { return std::isfinite(v); }, "[0, 1e6], absent"},
        "half-width a of the reward noise U[-a, a]; absent: the engine's default");
    noise.defaults("absent");
    // In the config a negative noise means "the engine's default"; a file says that by
    // leaving the key out.
    noise.read = [](const toml::node& n, ProblemConfig& p, const std::string& key, Context&) {
      p.noise = Value<double>::read(n, key);
      if (!(std::isfinite(p.noise) && p.noise >= 0 && p.noise <= 1e6)) fail(key, noise_rule + ", got " + number_text(p.noise));
    };
    noise.text = [](const ProblemConfig& p, Context&) {
      return p.noise >= 0 ? toml_float(p.noise) : "";
    };
    noise.note = [](const ProblemConfig& p, Context&) -> std::string {
      if (p.noise >= 0) return "";
      return "# noise: absent, the engine's default for " + name_of(p.objective) + " = " +
             toml_float(p.default_noise()) + "\n";
    };
    std::vector<Field<ProblemConfig>> fields{
        objective_kind<ProblemConfig, xarmed::ObjectiveKind, SyntheticConfig::Kind>(
            &ProblemConfig::objective,
            "garland, double-sine: client m's objective is the global one plus a constant from "
            "N(0, offset_std^2); seir: client m is region m; tuning: client m's validation "
            "score on its shard of a real data set, the global objective their mean "
            "(docs/real-data.md)"),
        value("offset_std", &ProblemConfig::offset_std, between(0.0, 1e6),
              "sd of the clients' constants (garland, double-sine)")
            .when([](const ScenarioConfig& c) -> std::string {
              const auto k = c.xarmed.fed_pne.problem.objective;
              return k == xarmed::ObjectiveKind::tuning
                         ? "used by world.objective.kind = garland, double-sine, not tuning"
                         : "";
            }),
        noise,
    };
    // offset_std: not written for tuning, which does not read it.
    fields[1].text = [text = fields[1].text](const ProblemConfig& p, Context& c) {
      return p.is_tuning() ? std::string() : text(p, c);
    };
    // Inert unless the objective is tuning: a warning in a file, left out of the resolved
    // config (so the other kinds resolve to the same text as before tuning existed).
    const auto xarmed_tuning = [](Field<ProblemConfig> f) {
      f.when([](const ScenarioConfig& c) -> std::string {
        const auto k = c.xarmed.fed_pne.problem.objective;
        return k == xarmed::ObjectiveKind::tuning
                   ? ""
                   : "used by world.objective.kind = tuning, not " + name_of(k);
      });
      f.text = [text = f.text](const ProblemConfig& p, Context& c) {
        return p.is_tuning() ? text(p, c) : "";
      };
      return f;
    };
    for (auto& f : tuning_fields<ProblemConfig>()) fields.push_back(xarmed_tuning(f));
    fields.push_back(xarmed_tuning(
        value("seed", &ProblemConfig::objective_seed, any<std::uint64_t>(),
              "tuning: seed of the data split and the training; 0: the run seed")
            .noting([](const ProblemConfig& p, Context&) -> std::string {
              return p.is_tuning() ? "  # 0: the run seed" : "";
            })));
    return Table<ProblemConfig>{std::move(fields)};
  }();
  return t;
}

const Table<WorldConfig>& world_table() {
  static const Table<WorldConfig> t{{
      value("agents", &WorldConfig::agents, at_least(1),
            "N, the number of agents (X-armed: M, the clients)")
          .also([](const WorldConfig& w, const std::string& key, Context& ctx) {
            if (ctx.family != Family::fbo || w.agents >= 2) return;
            const al::AlgorithmKind& kind = al::algorithm(ctx.root.algorithm.algorithm);
            if (relayed(kind.fbo->traits))
              fail(key, kind.name + " needs at least 2 agents (it relays each agent's messages to "
                                    "the others), got " + std::to_string(w.agents));
            if (w.peer_observations > 0)
              fail(key, "must be >= 2 with world.peer_observations > 0 (the target agent and "
                        "at least one peer), got " + std::to_string(w.agents));
          }),
      value("noise_variance", &WorldConfig::noise_variance, between(0.0, 1e6),
            "sigma^2 of each observation's Gaussian noise (not external kinds: their workers "
            "answer y with its noise)")
          .only(Family::fbo)
          .when([](const ScenarioConfig& c) -> std::string {
            if (!c.world.objective.is_external()) return "";
            return "an external objective's workers give y, noise included (world.objective."
                   "kind = " + name_of(c.world.objective.kind) + ")";
          }),
      value("peer_observations", &WorldConfig::peer_observations,
            {"must be an integer >= 0 (0: every agent optimises)", [](int v) { return v >= 0; },
             ">= 0"},
            "FTS's target-agent setting: agents 1..N-1 are peers holding this many "
            "observations; 0: every agent optimises")
          .only(Family::fbo),
      table("objective", &WorldConfig::objective, synthetic_table).only(Family::fbo),
      table<WorldConfig, xarmed::ProblemConfig>(
          "objective",
          [](WorldConfig&, Context& c) -> xarmed::ProblemConfig& {
            return c.root.xarmed.fed_pne.problem;
          },
          problem_table)
          .only(Family::xarmed),
      table(nk::network, &WorldConfig::network, network_table),
  }};
  return t;
}

// ---------------------------------------------------------------------------------------------
// [algorithm]

/// When a refit key acts: refit_every always; refit_restarts with refits on; the noise bounds
/// with refits on or the bounded authors' sampler; the length-scale bounds with the exact
/// sampler's refits or the bounded authors' sampler (the rff sampler's fits hold the
/// features' length scale).
enum class RefitUse { always, refits, bounds, lengthscale_bounds };

bool bounded_authors_sampler(const ScenarioConfig& c) {
  return c.algorithm.local_sampler == fbo::LocalSampler::refit_rff_bounded;
}

bool authors_sampler(const ScenarioConfig& c) {
  return c.algorithm.local_sampler == fbo::LocalSampler::refit_rff ||
         bounded_authors_sampler(c);
}

/// A key of the hyperparameter refits (engine/fbo/refit.hpp). It is written to
/// config.resolved.toml only when it acts, so a config without refits resolves to the same
/// text as before refits existed.
Field<fbo::ReferenceConfig> refit_key(Field<fbo::ReferenceConfig> f,
                                      RefitUse use = RefitUse::refits) {
  const auto inert = [use](const ScenarioConfig& c) -> std::string {
    const bool bounds = use == RefitUse::bounds || use == RefitUse::lengthscale_bounds;
    if (bounds && bounded_authors_sampler(c)) return "";
    if (!c.algorithm.refit.enabled())
      return bounds ? "used only with algorithm.refit_every > 0 or algorithm.local_sampler = "
                      "\"refit-rff-bounded\""
                    : "used only with algorithm.refit_every > 0";
    if (use == RefitUse::lengthscale_bounds &&
        c.algorithm.local_sampler != fbo::LocalSampler::exact)
      return "used only with algorithm.local_sampler = \"exact\" or \"refit-rff-bounded\" (the "
             "rff sampler's fits hold algorithm.kernel_lengthscale)";
    return "";
  };
  if (use != RefitUse::always) f.when(inert);
  f.text = [text = f.text, use](const fbo::ReferenceConfig& a, Context& c) {
    const bool bounds = use == RefitUse::bounds || use == RefitUse::lengthscale_bounds;
    return a.refit.enabled() || (bounds && bounded_authors_sampler(c.root)) ? text(a, c) : "";
  };
  return f;
}

/// A key of the authors' local sampler (engine/fbo/refit_rff.hpp), written to
/// config.resolved.toml only with that sampler.
Field<fbo::ReferenceConfig> authors_key(Field<fbo::ReferenceConfig> f) {
  f.when([](const ScenarioConfig& c) -> std::string {
    return authors_sampler(c) ? ""
                              : "used only with algorithm.local_sampler = \"refit-rff\" or "
                                "\"refit-rff-bounded\"";
  });
  f.text = [text = f.text](const fbo::ReferenceConfig& a, Context& c) {
    return authors_sampler(c.root) ? text(a, c) : "";
  };
  return f;
}

/// Whether the world's objective is a continuous box (no candidate set).
bool box_objective(const ScenarioConfig& c) { return !c.world.objective.is_grid(); }

/// A key of the acquisition on a box (engine/acquisition.hpp), unused on a candidate set. It is
/// written to config.resolved.toml only for box objectives, so a grid scenario resolves to the
/// same text as before boxes existed.
Field<fbo::ReferenceConfig> box_key(Field<fbo::ReferenceConfig> f) {
  f.when([](const ScenarioConfig& c) -> std::string {
    return box_objective(c) ? "" : "used only with a box objective (world.objective.kind)";
  });
  f.text = [text = f.text](const fbo::ReferenceConfig& a, Context& c) {
    return box_objective(c.root) ? text(a, c) : "";
  };
  return f;
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

/// The key's value must exceed the one of `lower_name`: the refit's bounds are intervals.
std::function<void(const fbo::ReferenceConfig&, const std::string&, Context&)> above(
    double fbo::RefitConfig::*upper, double fbo::RefitConfig::*lower, std::string lower_name) {
  return [=](const fbo::ReferenceConfig& a, const std::string& key, Context&) {
    if (!(a.refit.*upper > a.refit.*lower))
      fail(key, "must be > algorithm." + lower_name + " (" + number_text(a.refit.*lower) +
                    "), got " + number_text(a.refit.*upper));
  };
}

/// A parameter's value as the scenario's TOML writes it.
std::string parameter_text(const al::ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return Value<std::int64_t>::text(*i);
  if (const auto* d = std::get_if<double>(&v)) return toml_float(*d);
  if (const auto* b = std::get_if<bool>(&v)) return Value<bool>::text(*b);
  return toml_string(std::get<std::string>(v));
}

/// A parameter's value read as its declared type (its rule is checked with the others').
al::ParamValue read_parameter(const al::Parameter& p, const toml::node& n, const std::string& key) {
  switch (p.type) {
    case al::Parameter::Type::integer: return Value<std::int64_t>::read(n, key);
    case al::Parameter::Type::real: return Value<double>::read(n, key);
    case al::Parameter::Type::boolean: return Value<bool>::read(n, key);
    case al::Parameter::Type::choice: return Value<std::string>::read(n, key);
  }
  throw std::logic_error("read_parameter: not a parameter type");
}

/// The table [algorithm.NAME] of each registered algorithm of `family` that declares parameters
/// (AlgorithmKind::parameters): read into config.algorithm_params[NAME]; checked (each
/// parameter's rule, then the kind's own check) and written to config.resolved.toml, every
/// parameter with its value, only when NAME is the run's algorithm. Given for another algorithm
/// it has no effect (a warning).
template <class S>
std::vector<Field<S>> algorithm_parameter_tables(al::Family family) {
  std::vector<Field<S>> out;
  for (const al::AlgorithmKind& kind : al::algorithm_kinds()) {
    if (kind.family != family || kind.parameters.empty()) continue;
    const std::string name = kind.name;
    const auto names = [name] {
      std::vector<std::string> n;
      for (const al::Parameter& p : al::algorithm(name).parameters) n.push_back(p.name);
      return n;
    };
    Field<S> f;
    f.name = name;
    f.kind = Field<S>::Kind::table;
    f.inert = [name](const ScenarioConfig& c) -> std::string {
      const std::string run = algorithm_kind(c).name;
      return run == name ? "" : "the keys of algorithm.name = \"" + name + "\", not of " + run;
    };
    f.read = [name, names](const toml::node& n, S&, const std::string& key, Context& c) {
      const al::AlgorithmKind& k = al::algorithm(name);
      al::Params& given = c.root.algorithm_params[name];
      for (auto&& [pk, v] : as_table(n, key)) {
        const std::string param(pk.str());
        const auto d = std::find_if(k.parameters.begin(), k.parameters.end(),
                                    [&param](const al::Parameter& p) { return p.name == param; });
        if (d == k.parameters.end())
          throw std::invalid_argument("unknown key '" + child_key(key, param) + "'" +
                                      did_you_mean(param, names(), key + ".") + " (allowed: " +
                                      join(names()) + ")");
        given.values[param] = read_parameter(*d, v, child_key(key, param));
        c.present.insert(child_key(key, param));
      }
    };
    f.check = [name](const S&, const std::string& key, Context& c) {
      if (algorithm_kind(c.root).name != name) return;
      const al::Params params = algorithm_params(c.root);  // each parameter's rule
      if (const auto check = al::algorithm(name).check) check(params, c.root, key);
    };
    f.write = [name](std::string& out, const S&, const std::string& key, Context& c) {
      if (algorithm_kind(c.root).name != name) return;
      const al::Params params = algorithm_params(c.root);
      out += "\n[" + key + "]\n";
      for (const al::Parameter& p : al::algorithm(name).parameters)
        out += p.name + " = " + parameter_text(params.values.at(p.name)) + "\n";
    };
    f.rows = [name](std::vector<Row>& rows, const std::string& key, Family fam) {
      for (const al::Parameter& p : al::algorithm(name).parameters)
        rows.push_back({child_key(key, p.name), family_name(fam), p.type_name(),
                        parameter_text(p.default_value), p.allowed(), p.doc});
    };
    f.keys = names;
    out.push_back(std::move(f));
  }
  return out;
}

/// The FBO [algorithm] name: every registered FBO algorithm (read before the tables, in
/// read_family); an engine variant is kept in ReferenceConfig::algorithm, the others in
/// ScenarioConfig::plugin.
Field<fbo::ReferenceConfig> fbo_name_field() {
  Field<fbo::ReferenceConfig> f =
      value("name", &fbo::ReferenceConfig::algorithm, one_of<Algorithm>(), "the algorithm");
  f.allowed = join(al::algorithm_names(al::Family::fbo));
  f.read = [](const toml::node& n, fbo::ReferenceConfig& a, const std::string& key, Context&) {
    const al::AlgorithmKind* k = al::find_algorithm(Value<std::string>::read(n, key));
    if (k && k->fbo && k->fbo->variant) a.algorithm = *k->fbo->variant;
  };
  f.text = [](const fbo::ReferenceConfig&, Context& ctx) {
    return toml_string(algorithm_kind(ctx.root).name);
  };
  return f;
}

/// The FBO table with its algorithms' own tables, every key of it having no effect with an
/// algorithm that runs its own engine and does not read it (AlgorithmKind::family_keys).
Table<fbo::ReferenceConfig> with_plugins(Table<fbo::ReferenceConfig> t) {
  // Whether the run's algorithm runs its own engine and does not read the key `name`.
  const auto unread = [](const ScenarioConfig& c, const std::string& name) {
    const al::AlgorithmKind& k = algorithm_kind(c);
    return k.fbo && !k.fbo->variant &&
           std::find(k.family_keys.begin(), k.family_keys.end(), name) == k.family_keys.end();
  };
  for (Field<fbo::ReferenceConfig>& f : t.fields) {
    if (f.name == "name") continue;
    // Not written to config.resolved.toml for such an algorithm (it reads its defaults back).
    if (f.kind == Field<fbo::ReferenceConfig>::Kind::value)
      f.text = [unread, name = f.name, text = f.text](const fbo::ReferenceConfig& a,
                                                       Context& c) -> std::string {
        return unread(c.root, name) ? "" : text(a, c);
      };
    f.inert = [unread, name = f.name, first = f.inert](const ScenarioConfig& c) -> std::string {
      if (unread(c, name)) return "not used by " + algorithm_kind(c).name;
      return first ? first(c) : "";
    };
  }
  t.fields = t.fields + algorithm_parameter_tables<fbo::ReferenceConfig>(al::Family::fbo);
  return t;
}

const Table<fbo::ReferenceConfig>& reference_table() {
  using fbo::ReferenceConfig;
  static const Table<ReferenceConfig> t = with_plugins(Table<ReferenceConfig>{
      {fbo_name_field()
           .also([](const ReferenceConfig&, const std::string& key, Context& ctx) {
             if (ctx.root.world.peer_observations > 0 &&
                 !target_agent(algorithm_kind(ctx.root).fbo->traits))
               fail(key, "'" + algorithm_kind(ctx.root).name +
                             "' does not run in the target-agent setting "
                             "(world.peer_observations > 0): allowed " + fbo_names(target_agent));
           }),
       value("iterations", &ReferenceConfig::iterations, at_least(1),
             "T, iterations after the initial design"),
       value("n_init", &ReferenceConfig::n_init, at_least(1), "N_init, initial points per agent"),
       value("features", &ReferenceConfig::features, at_least(1), "M, random Fourier features"),
       value("subregions", &ReferenceConfig::subregions, at_least(1),
             "P, DE sub-regions (grid kinds: <= world.objective.grid_size)")
           .when(fbo_algorithm_uses(regional, "distributed exploration"))
           .also([](const ReferenceConfig& a, const std::string& key, Context& ctx) {
             // A grid has grid_size points to share out; a box any number of sub-regions.
             if (!ctx.root.world.objective.is_grid()) return;
             const int grid = ctx.root.world.objective.grid_size;
             if (a.subregions > grid)
               fail(key, "must not exceed world.objective.grid_size (" + std::to_string(grid) +
                             "), got " + std::to_string(a.subregions));
           }),
       // At least 1e-9: a sub-normal q (5e-324) overflows 1 / q to inf and the aggregate to
       // NaN; below 1e-9 no run draws an agent anyway.
       value("q", &ReferenceConfig::q,
             in("[1e-9, 1]", [](double v) { return v >= 1e-9 && v <= 1; }),
             "subsampling probability")
           .when(fbo_algorithm_uses(is_private, "the private algorithms")),
       value("z", &ReferenceConfig::z, in("(0, 1e6]", [](double v) { return v > 0 && v <= 1e6; }),
             "noise multiplier")
           .when(fbo_algorithm_uses(is_private, "the private algorithms")),
       value("clip", &ReferenceConfig::clip,
             in("(0, 1e12]", [](double v) { return v > 0 && v <= 1e12; }), "S, clipping threshold")
           .when(fbo_algorithm_uses(is_private, "the private algorithms")),
       value("lambda", &ReferenceConfig::lambda, between(1e-12, 1e12),
             "regulariser of the feature-space posterior"),
       value("kernel_lengthscale", &ReferenceConfig::kernel_lengthscale, between(1e-6, 1e6),
             "SE kernel behind the random features"),
       value("beta", &ReferenceConfig::beta, in("(0, 1e6]", [](double v) { return v > 0 && v <= 1e6; }),
             "Thompson-sampling scale"),
       value("p_schedule", &ReferenceConfig::p_schedule, one_of<fbo::PSchedule>(),
             "1 - p_t, the probability of using the server's information")
           .when(fbo_algorithm_uses(sends_messages, "the federated algorithms")),
       value("p1_equals_p2", &ReferenceConfig::p1_equals_p2, any<bool>(), "FTS's p_1 = p_2")
           .when(fbo_algorithm_uses(sends_messages, "the federated algorithms")),
       value("fts_one_shot", &ReferenceConfig::fts_one_shot, any<bool>(),
             "FTS: messages sent once before the start, each used once")
           .when(fbo_algorithm_uses(relayed, "the relaying algorithms"))
           .also([](const ReferenceConfig& a, const std::string& key, Context& ctx) {
             if (ctx.root.world.peer_observations > 0 &&
                 relayed(algorithm_kind(ctx.root).fbo->traits) &&
                 !a.fts_one_shot)
               fail(key, "must be true with world.peer_observations > 0: the peers send one "
                         "message each, before the start");
           }),
       value("temperature", &ReferenceConfig::temperature, one_of<fbo::TemperatureSchedule>(),
             "DE weight temperature schedule")
           .when(fbo_algorithm_uses(regional, "distributed exploration")),
       value("weight_a", &ReferenceConfig::weight_a, positive(),
             "a, DE softmax weight constant (< ln(DBL_MAX / N))")
           .when(fbo_algorithm_uses(regional, "distributed exploration"))
           .also([](const ReferenceConfig& a, const std::string& key, Context& ctx) {
             const int n = ctx.root.world.agents;
             const double limit = max_weight_a(n);
             const bool de = regional(algorithm_kind(ctx.root).fbo->traits);
             if (de && a.temperature != fbo::TemperatureSchedule::uniform && !(a.weight_a < limit))
               fail(key, "must be < ln(DBL_MAX / N) = " + number_text(limit) +
                             " with world.agents = " + std::to_string(n) +
                             " (larger, the DE weights exp(a / T) overflow), got " +
                             number_text(a.weight_a));
           }),
       value("explore_own_region", &ReferenceConfig::explore_own_region, any<bool>(),
             "DE: initial points drawn from the agent's own sub-region")
           .when(fbo_algorithm_uses(regional, "distributed exploration")),
       value("local_sampler", &ReferenceConfig::local_sampler, one_of<fbo::LocalSampler>(),
             "how local TS draws from the agent's own posterior: the shared features' posterior "
             "(rff), the exact GP on the grid (exact), or the DP-FTS-DE authors' sampler, fresh "
             "features and GP refits every local_refit_every observations, unbounded as theirs "
             "(refit-rff) or within refit_lengthscale_min/max and refit_noise_min/max "
             "(refit-rff-bounded)"),
       value("posterior_memory", &ReferenceConfig::posterior_memory,
             one_of<fbo::PosteriorMemory>(),
             "what an agent keeps of its posterior over the M feature weights, for the same "
             "results: its Cholesky factor (factor; M x M doubles, 19.5 KiB at M = 50) or its "
             "observations alone (history), the factor rebuilt from them at each draw, O(n M^2) "
             "for n observations: for runs whose agents would not fit in memory"),
       authors_key(value("local_refit_every", &ReferenceConfig::refit_rff,
                         &fbo::RefitRffConfig::every, at_least(1),
                         "authors' sampler: refit the local GP (length scale, signal and noise "
                         "variance, warm-started) at every iteration whose observation count is "
                         "a multiple of this (their 5)")),
       authors_key(value("local_refit_restarts", &ReferenceConfig::refit_rff,
                         &fbo::RefitRffConfig::restarts, at_least(1),
                         "authors' sampler: L-BFGS runs per refit, the first from the current "
                         "values (their optimize_restarts(10))")),
       authors_key(value("local_features", &ReferenceConfig::refit_rff,
                         &fbo::RefitRffConfig::features,
                         // A draw factors an M x M matrix: O(M^3), 0.1 s at M = 1000 and
                         // 100 s at 10,000, for each of the N T draws of a run.
                         {"must be an integer in [1, 1000] (a draw holds and factors an M x M "
                          "matrix, O(M^3) per draw; the authors used 100)",
                          [](int v) { return v >= 1 && v <= 1000; }, "[1, 1000]"},
                         "authors' sampler: fresh random features drawn for every local TS "
                         "draw (their M_target)")),
       authors_key(value("local_lambda_floor", &ReferenceConfig::refit_rff,
                         &fbo::RefitRffConfig::lambda_floor, between(1e-12, 1e6),
                         "authors' sampler: regulariser max(this, fitted noise variance)")),
       box_key(value("acquisition_candidates", &ReferenceConfig::acquisition_candidates,
                     at_least(1),
                     "box objectives: uniform random points scored per maximisation of a "
                     "sampled function (per sub-region for DE's), the best refined with NLopt")),
       box_key(value("acquisition_refine", &ReferenceConfig::acquisition_refine, at_least(0),
                     "box objectives: the best random points refined by bounded L-BFGS")),
       refit_key(value("refit_every", &ReferenceConfig::refit, &fbo::RefitConfig::every,
                       {"must be an integer >= 0 (0: no refits)", [](int v) { return v >= 0; },
                        ">= 0"},
                       "k: after every k-th observation an agent refits its local GP's signal "
                       "variance, noise variance and (exact sampler) length scale by maximum "
                       "marginal likelihood; the shared features and the messages keep "
                       "kernel_lengthscale and lambda; 0: off (the papers' authors used 5)")
                     .also([](const ReferenceConfig& a, const std::string& key, Context&) {
                       if (a.refit.enabled() &&
                           (a.local_sampler == fbo::LocalSampler::refit_rff ||
                            a.local_sampler == fbo::LocalSampler::refit_rff_bounded))
                         fail(key, "must be 0 with algorithm.local_sampler = \"" +
                                       name_of(a.local_sampler) +
                                       "\", which refits on its own period "
                                       "(algorithm.local_refit_every)");
                     }),
                 RefitUse::always),
       refit_key(value("refit_restarts", &ReferenceConfig::refit, &fbo::RefitConfig::restarts,
                       at_least(1), "L-BFGS runs per refit (restarts keyed by agent and count)")),
       refit_key(value("refit_lengthscale_min", &ReferenceConfig::refit,
                       &fbo::RefitConfig::lengthscale_min, between(1e-6, 1e6),
                       "length-scale bound of the exact sampler's fits (the rff sampler holds "
                       "kernel_lengthscale): the papers' smallest, ~10 grid spacings"),
                 RefitUse::lengthscale_bounds),
       refit_key(value("refit_lengthscale_max", &ReferenceConfig::refit,
                       &fbo::RefitConfig::lengthscale_max,
                       {"must be a finite number in (0, 1e6]",
                        [](double v) { return finite_positive(v) && v <= 1e6; },
                        "> refit_lengthscale_min, <= 1e6"},
                       "upper bound: the unit box's side; unbounded fits on scattered points "
                       "drift to length scales of hundreds")
                     .also(above(&fbo::RefitConfig::lengthscale_max,
                                 &fbo::RefitConfig::lengthscale_min, "refit_lengthscale_min")),
                 RefitUse::lengthscale_bounds),
       refit_key(value("refit_noise_min", &ReferenceConfig::refit, &fbo::RefitConfig::noise_min,
                       between(1e-12, 1e6), "noise-variance bound of the fits: the papers' smallest "
                                   "noise variance, keeps K + n2 I well conditioned"),
                 RefitUse::bounds),
       refit_key(value("refit_noise_max", &ReferenceConfig::refit, &fbo::RefitConfig::noise_max,
                       {"must be a finite number in (0, 1e6]",
                        [](double v) { return finite_positive(v) && v <= 1e6; },
                        "> refit_noise_min, <= 1e6"},
                       "upper bound: above the variance of outputs in [0, 1]")
                     .also(above(&fbo::RefitConfig::noise_max, &fbo::RefitConfig::noise_min,
                                 "refit_noise_min")),
                 RefitUse::bounds)}});
  return t;
}

const Table<xarmed::FedPneParams>& fed_pne_params_table() {
  using xarmed::FedPneParams;
  static const Table<FedPneParams> t{{
      value("nu1", &FedPneParams::nu1, positive(), "smoothness nu_1")
          .when(xarmed_algorithm_uses(tree_search, "the tree searches"))
          .also(blamed_for<FedPneParams>(FedPneParameter::nu1)),
      value("rho", &FedPneParams::rho, in("(0, 1)", [](double v) { return v > 0 && v < 1; }),
            "smoothness rho")
          .when(xarmed_algorithm_uses(tree_search, "the tree searches"))
          .also(blamed_for<FedPneParams>(FedPneParameter::rho)),
      value("c", &FedPneParams::c, positive(), "confidence constant c")
          .when(xarmed_algorithm_uses(tree_search, "the tree searches"))
          .also(blamed_for<FedPneParams>(FedPneParameter::c)),
      value("c1", &FedPneParams::c1, positive(),
            "confidence constant c_1; log(c1 T / delta) must be > 0")
          .when(xarmed_algorithm_uses(phase_schedule, "the phased tree search"))
          .also([](const FedPneParams& p, const std::string& key, Context& ctx) {
            if (!xarmed_uses(ctx.root, phase_schedule)) return;
            const int m = ctx.root.world.agents;
            const std::int64_t budget = ctx.root.xarmed.fed_pne.budget;
            if (!(std::log(p.c1 * static_cast<double>(budget) / p.effective_delta(m)) > 0))
              fail(key, "log(c1 T / delta) must be > 0 (raise c1 or budget, or lower delta), "
                        "got c1 = " + number_text(p.c1) + ", budget = " +
                            std::to_string(budget) + ", delta = " +
                            number_text(p.effective_delta(m)));
          })
          .also(blamed_for<FedPneParams>(FedPneParameter::c1)),
      value("delta", &FedPneParams::delta,
            {"must be in (0, 1], or 0 for 1/M", [](double v) { return v >= 0 && v <= 1; },
             "[0, 1]"},
            "confidence delta; 0: the paper's 1/M (fed-pne; hct: in (0, 1), default 0.01)")
          .when(xarmed_algorithm_uses(tree_search, "the tree searches"))
          .also([](const FedPneParams& p, const std::string& key, Context& ctx) {
            if (xarmed_uses(ctx.root, central_tree) && !(p.delta > 0 && p.delta < 1))
              fail(key, "must be in (0, 1) for hct, got " + number_text(p.delta));
          })
          .also(blamed_for<FedPneParams>(FedPneParameter::delta))
          .noting([](const FedPneParams& p, Context& c) {
            return p.delta == 0 ? one_over_m(c.root) : "";
          }),
  }};
  return t;
}

const Table<xarmed::FedPneConfig>& fed_pne_table() {
  using xarmed::FedPneConfig;
  static const Table<FedPneConfig> t = [] {
    // The name is read before the tables (it picks the family); fed-pne or dp-fed-pne follows
    // dp_epsilon.
    Field<FedPneConfig> name = value("name", &FedPneConfig::dp_epsilon, any<double>(),
                                     "the algorithm; dp-fed-pne needs dp_epsilon > 0; hct "
                                     "(centralised baseline) runs with --driver loop only, "
                                     "its rho and delta default to 0.75 and 0.01");
    name.type = "string";
    name.allowed = join(al::algorithm_names(al::Family::xarmed));
    name.default_text = "";
    name.read = [](const toml::node&, FedPneConfig&, const std::string&, Context&) {};
    name.check = nullptr;
    name.text = [](const FedPneConfig&, Context& ctx) {
      return toml_string(algorithm_kind(ctx.root).name);
    };
    std::vector<Field<FedPneConfig>> fields{
        name,
        value("budget", &FedPneConfig::budget, at_least(std::int64_t{1}),
              "T, pulls per client (a central learner: its rounds)")
            .also(blamed_for<FedPneConfig>(FedPneParameter::budget)),
        value("k", &FedPneConfig::k, at_least(2), "arity of the partition")
            .when(xarmed_algorithm_uses(tree_search, "the tree searches"))
            .also(blamed_for<FedPneConfig>(FedPneParameter::k)),
        value("split", &FedPneConfig::split, one_of<xarmed::SplitRule>(),
              "the axis each cell is split along: uniform per node, or depth mod d")
            .when(xarmed_algorithm_uses(tree_search, "the tree searches")),
        value("point", &FedPneConfig::point, one_of<xarmed::PointRule>(),
              "the point a pull evaluates: the cell's centre, or uniform in the cell")
            .when(xarmed_algorithm_uses(tree_search, "the tree searches")),
        value("hct_variant", &FedPneConfig::hct_variant, one_of<xarmed::HctVariant>(),
              "hct: azar (Azar et al. 2014: only leaves are expanded) or pyxab (PyXAB's HCT, the "
              "Fed-PNE authors' baseline library: an inner node is expanded again after t+ "
              "doubles, orphaning its subtree)")
            .when(xarmed_algorithm_uses(central_tree, "the centralised tree search"))};
    fields = fields + inlined(&FedPneConfig::params, fed_pne_params_table()) +
             std::vector<Field<FedPneConfig>>{
                 value("dp_epsilon", &FedPneConfig::dp_epsilon,
                       {"must be a finite number > 0 (dp-fed-pne), or 0 (fed-pne)",
                        [](double v) { return std::isfinite(v) && v >= 0; },
                        "> 0 for dp-fed-pne, 0 for fed-pne"},
                       "epsilon of each client's per-node release")
                     .also([](const FedPneConfig& f, const std::string& key, Context& ctx) {
                       // In a file the name is the only switch: each checks dp_epsilon.
                       if (!ctx.from_file) return;
                       if (al::algorithm(ctx.algorithm).xarmed->is_private) {
                         if (!ctx.present.count(key))
                           fail(key, "required by dp-fed-pne (allowed: a finite number > 0)");
                         if (!(std::isfinite(f.dp_epsilon) && f.dp_epsilon > 0))
                           fail(key, "must be a finite number > 0 for dp-fed-pne, got " +
                                         number_text(f.dp_epsilon));
                       } else if (f.dp_epsilon != 0) {
                         fail(key, "must be 0 or absent for " + ctx.algorithm +
                                   " (name = \"dp-fed-pne\" runs DP-Fed-PNE), got " +
                                   number_text(f.dp_epsilon));
                       }
                     }),
                 value("dp_delta", &FedPneConfig::dp_delta,
                       {"must be in (0, 1), or 0 for min(1/M, 0.01)",
                        [](double v) { return v >= 0 && v < 1; }, "[0, 1) (dp-fed-pne)"},
                       "the DP delta; 0: min(1/M, 0.01), the paper's 1/M for M >= 100 (below, "
                       "1/M is the delta of publishing one client's data: 0.5 at M = 2)")
                     .noting([](const FedPneConfig& f, Context& c) -> std::string {
                       if (f.dp_delta != 0 || !f.is_private()) return "";
                       return "  # 0: min(1/M, 0.01) = " +
                              toml_float(xarmed::dp_fed_pne_delta(0, c.root.world.agents));
                     })};
    // dp_delta's rules depend on DP being on: checked before its range.
    const auto range = fields.back().check;
    fields.back().check = [range](const FedPneConfig& f, const std::string& key, Context& c) {
      if (!f.is_private() && f.dp_delta != 0)
        fail(key, "not used by fed-pne (only by dp-fed-pne, dp_epsilon > 0): must be 0 or "
                  "absent, got " + number_text(f.dp_delta));
      range(f, key, c);
    };
    // The baselines (no partition tree) read the budget and the problem: the keys that have no
    // effect with them are left out of config.resolved.toml (they read their defaults back).
    for (Field<FedPneConfig>& f : fields) {
      if (f.kind != Field<FedPneConfig>::Kind::value || !f.inert || f.name == "name") continue;
      f.text = [inert = f.inert, text = f.text](const FedPneConfig& a, Context& c) -> std::string {
        return !xarmed_uses(c.root, tree_search) && !inert(c.root).empty() ? "" : text(a, c);
      };
      if (f.note)
        f.note = [inert = f.inert, note = f.note](const FedPneConfig& a, Context& c) -> std::string {
          return !xarmed_uses(c.root, tree_search) && !inert(c.root).empty() ? "" : note(a, c);
        };
    }
    return Table<FedPneConfig>{fields +
                               algorithm_parameter_tables<FedPneConfig>(al::Family::xarmed)};
  }();
  return t;
}

// ---------------------------------------------------------------------------------------------
// [policy], [privacy], [output] and the top level.

const Table<PolicyConfig>& policy_table() {
  static const Table<PolicyConfig> t{
      {value("kind", &PolicyConfig::kind, one_of<Policy>(),
             "sync: wait for every live agent; deadline: aggregate what arrived by the deadline; "
             "quorum: the first K, with a deadline fallback; async: aggregate every K arrivals "
             "or every period; fedbuff: aggregate every buffer_size reports, weighted "
             "1/sqrt(1 + staleness)")
           .also([](const PolicyConfig& p, const std::string& key, Context& ctx) {
             // A phase closes on every live client's node means; a quorum or stale reports
             // would bias the elimination, which assumes each node's mean covers all M clients.
             using actors::policy::make_round_policy;
             constexpr auto xarmed = actors::policy::Family::xarmed;
             if (ctx.family == Family::xarmed && !make_round_policy(p)->supports(xarmed))
               fail(key, "'" + name_of(p.kind) + "' is not supported by " + ctx.algorithm +
                             " (allowed: " + actors::policy::names(xarmed) + ")");
           }),
       value("dead_after_missed", &PolicyConfig::dead_after_missed, at_least(1),
             "rounds in a row an agent's report is missing before it is presumed dead "
             "(at most the run's rounds)")
           .also([](const PolicyConfig& p, const std::string& key, Context& ctx) {
             // A round or phase per iteration or pull at most: a larger count never presumes a
             // silent agent dead before the run's work is over, so a crashed agent would keep
             // the server opening empty rounds (2^31 of them) long after the others finished.
             const ScenarioConfig& c = ctx.root;
             const bool xarmed = ctx.family == Family::xarmed;
             // The default (3) is accepted however short the run: a few empty rounds at most.
             const double rounds = xarmed ? static_cast<double>(c.xarmed.fed_pne.budget)
                                          : c.algorithm.iterations + 1.0;
             const int defaults = PolicyConfig{}.dead_after_missed;
             if (p.dead_after_missed > std::max(rounds, static_cast<double>(defaults)))
               fail(key, "must be at most the run's rounds, " +
                             std::string(xarmed ? "algorithm.budget = "
                                                : "algorithm.iterations + 1 = ") +
                             number_text(rounds) + ", or the default " +
                             std::to_string(defaults) +
                             " (a larger count never presumes a crashed agent dead and the "
                             "server opens empty rounds long after the run's work), got " +
                             std::to_string(p.dead_after_missed));
           }),
       value(policy_keys::round_timeout, &PolicyConfig::round_timeout,
             seconds(true, "no timeout"),
             "sync: seconds after the broadcast before missing agents count as having missed "
             "the round (X-armed: per pull)")
           .when(policy_is({Policy::sync})),
       value(policy_keys::deadline, &PolicyConfig::deadline,
             seconds(true, "no deadline"),
             "deadline, quorum fallback: seconds after the broadcast (X-armed: per pull)")
           .when(policy_is({Policy::deadline, Policy::quorum})),
       value("carry_late", &PolicyConfig::carry_late, any<bool>(),
             "deadline: late vectors join the next round (else dropped)")
           .when(policy_is({Policy::deadline})),
       value("quorum", &PolicyConfig::quorum, {"", nullptr, "(0, 1] or a whole count 2 .. N"},
             "quorum: <= 1 a fraction of N, > 1 a count K")
           .when(policy_is({Policy::quorum}))
           .also([](const PolicyConfig& p, const std::string& key, Context& ctx) {
             // <= 1 is a fraction of N; above 1 a count, which must be whole and <= N.
             const int n = ctx.root.world.agents;
             const bool fraction = p.quorum > 0 && p.quorum <= 1;
             const bool count = p.quorum > 1 && p.quorum == std::floor(p.quorum) && p.quorum <= n;
             if (!fraction && !count)
               fail(key, "must be a fraction in (0, 1] or a whole count in 2.." +
                             std::to_string(n) + " (world.agents), got " + number_text(p.quorum));
           }),
       value("async_every", &PolicyConfig::async_every, at_least(0),
             "async: aggregate every K arrivals (0: use the period)")
           .when(policy_is({Policy::async}))
           .also([](const PolicyConfig& p, const std::string& key, Context&) {
             if (p.kind == Policy::async && p.async_every == 0 && p.async_period == 0)
               fail(key, "the async policy needs async_every > 0 (arrivals) or async_period > 0 "
                         "(seconds)");
           }),
       value("async_period", &PolicyConfig::async_period, seconds(false),
             "async: aggregate every period seconds (0: use K)")
           .when(policy_is({Policy::async})),
       value("max_staleness", &PolicyConfig::max_staleness, at_least(0),
             "async: vectors older than this many rounds are dropped")
           .when(policy_is({Policy::async})),
       value("staleness", &PolicyConfig::staleness, one_of<PolicyConfig::Staleness>(),
             "async weight of a vector s rounds old: 1, 1/(1 + s), (1 + s)^-exponent")
           .when(policy_is({Policy::async})),
       value("staleness_exponent", &PolicyConfig::staleness_exponent, between(1e-6, 100.0),
             "async, polynomial staleness: the exponent")
           .when([](const ScenarioConfig& c) -> std::string {
             if (const std::string why = policy_is({Policy::async})(c); !why.empty()) return why;
             return c.policy.staleness == PolicyConfig::Staleness::polynomial
                        ? ""
                        : "used by policy.staleness = polynomial, not " +
                              name_of(c.policy.staleness);
           }),
       value(policy_keys::buffer_size, &PolicyConfig::buffer_size, at_least(1),
             "fedbuff: K, the reports buffered (several per agent) per aggregation")
           .when(policy_is({Policy::fedbuff}))}};
  return t;
}

const std::vector<std::string> accountants = {"moments", "moments-paper", "tight"};

/// Why a privacy key has no effect: the algorithm releases nothing private ("" when it does).
std::string not_private(const ScenarioConfig& c) {
  return fbo_algorithm_uses(is_private, "the private algorithms")(c);
}

const Table<PrivacyConfig>& privacy_table() {
  static const Table<PrivacyConfig> t{
      {value("accountant", &PrivacyConfig::accountant, {"", nullptr, join(accountants)},
             "tight: PLD accounting (the default); moments: RDP accountant; moments-paper: "
             "DP-FTS-DE's published convention. The one that enforces privacy.budget and gives "
             "epsilon; epsilon_rdp and epsilon_pld report the other two ways")
           .also([](const PrivacyConfig& p, const std::string& key, Context& ctx) {
             if (std::find(accountants.begin(), accountants.end(), p.accountant) ==
                 accountants.end())
               fail(key, "unknown value '" + p.accountant + "'" +
                             did_you_mean(p.accountant, accountants) + " (allowed: " +
                             join(accountants) + ")");
             // Kept by the X-armed family so that a file switches families by its name alone.
             const std::string defaults = PrivacyConfig{}.accountant;
             if (ctx.family == Family::xarmed && p.accountant != defaults)
               fail(key, "not used by " + ctx.algorithm + " (its privacy is algorithm.dp_epsilon "
                         "/ dp_delta): only the default '" + defaults + "' is accepted, got '" +
                             p.accountant + "'");
           }),
       value("delta", &PrivacyConfig::delta,
             {"must be in (0, 1), or 0 for min(1/N^1.1, 0.01)",
              [](double v) { return v >= 0 && v < 1; }, "[0, 1)"},
             "the delta of (epsilon, delta)-DP; 0: min(1/N^1.1, 0.01), the papers' 1/N^1.1 "
             "for N >= 66 (below, 1/N^1.1 nears 1/N: 0.47 at N = 2)")
           .only(Family::fbo)
           .noting([](const PrivacyConfig& p, Context& c) -> std::string {
             if (p.delta != 0) return "";
             fbo::ReferenceConfig r;
             r.agents = c.root.world.agents;
             return "  # 0: min(1/N^1.1, 0.01) = " + toml_float(r.effective_delta());
           }),
       value("budget", &PrivacyConfig::budget,
             {"must be an epsilon > 0 (inf: no budget)", [](double v) { return v > 0; }, "> 0, inf"},
             "epsilon budget: past it the server stops releasing")
           .only(Family::fbo)
           .when(not_private),
       value("agent_budget", &PrivacyConfig::agent_budget,
             {"must be an epsilon > 0 (inf: no per-agent budget)", [](double v) { return v > 0; },
              "> 0, inf"},
             "each agent's own epsilon budget (a privacy filter): an agent's reports are no longer "
             "aggregated once one more release would take its own epsilon past it")
           .only(Family::fbo)
           .when(not_private),
       value("filter", &PrivacyConfig::filter, one_of<PrivacyConfig::Filter>(),
             "how agents are priced (agent_budget, privacy_agents.csv): pld, by privacy.accountant "
             "on each agent's count (valid only when participation is not adaptive); rdp, a "
             "Renyi filter at one order fixed at load (valid under adaptive participation); "
             "auto: rdp where participation is adaptive (wall-clock time, served agents, external "
             "objectives, tuning with cost_per_sample > 0; docs/privacy.md) and agent_budget "
             "filters, else pld")
           .only(Family::fbo)
           .when(not_private)
           .also([](const PrivacyConfig&, const std::string&, Context& ctx) {
             // pld under adaptive participation: refused here, naming the reason (what the
             // scenario cannot say, a served run, is checked again when it is served).
             if (!ctx.root.algorithm.is_private() || ctx.root.xarmed.enabled) return;
             actors::resolved_filter(ctx.root, actors::adaptive_reasons(ctx.root, {}));
           }),
       value("assume_nonadaptive", &PrivacyConfig::assume_nonadaptive, any<bool>(),
             "lets filter = \"pld\" run where participation is adaptive: you state that which "
             "releases an agent joins cannot depend on its data (recorded in summary.json)")
           .only(Family::fbo)
           .when(not_private)}};
  return t;
}

const Table<OutputConfig>& output_table() {
  static const Table<OutputConfig> t = [] {
    using E = OutputConfig::EventLog;
    Field<OutputConfig> events = value(
        "events", &OutputConfig::events, one_of<E>(),
        "events.jsonl, the per-event log: all (every send, delivery and fault), faults (drops, "
        "duplicates, corruptions, rejections, late reports, lost processes; not the traffic), "
        "none (no file); true and false are read as all and none");
    events.read = [](const toml::node& n, OutputConfig& o, const std::string& key, Context&) {
      if (const auto b = n.as_boolean()) o.events = b->get() ? E::all : E::none;
      else o.events = Value<E>::read(n, key);
    };
    events.allowed += ", true, false";
    return Table<OutputConfig>{{events}};
  }();
  return t;
}

// ---------------------------------------------------------------------------------------------
// [run]

/// The key acts only in wall-clock time.
std::string unless_wall(const ScenarioConfig& c) {
  return c.run.wall() ? ""
                      : "used by " + rk::full(rk::time) + " = wall, not " + name_of(c.run.time);
}

/// The key acts only for an FBO run's external objective (its evaluations can fail).
std::string unless_external(const ScenarioConfig& c) {
  using Kind = SyntheticConfig::Kind;
  const Kind k = c.world.objective.kind;
  if (c.xarmed.enabled || (k != Kind::command && k != Kind::tcp))
    return "used by world.objective.kind = command or tcp (evaluations that can fail)";
  return "";
}

const Table<RunClockConfig>& run_table() {
  using Time = RunClockConfig::Time;
  static const Table<RunClockConfig> t{
      {value(rk::time, &RunClockConfig::time, one_of<Time>(),
             "virtual: discrete events, the clock jumps from event to event; wall: the network "
             "delivers each event when the real clock reaches its time x time_scale, and "
             "compute time is the real time evaluations take (actors driver only; no "
             "checkpoints; docs/wall-clock.md)"),
       value(rk::time_scale, &RunClockConfig::time_scale, between(1e-6, 1e3),
             "wall: wall seconds per model second (0.01: a model second lasts 10 ms)")
           .when(unless_wall),
       value(rk::injected_compute, &RunClockConfig::injected_compute, any<bool>(),
             "wall: also hold each agent's evaluations for their modelled compute time (the "
             "objective's cost, else world.network.compute), as virtual time charges it")
           .when(unless_wall),
       value(rk::wall_horizon, &RunClockConfig::wall_horizon,
             {"must be a number > 0 (inf: no horizon)", [](double v) { return v > 0; }, "> 0, inf"},
             "wall: real seconds; when no delivery is outstanding and the next event is further "
             "away than this, the run ends as not completed (exit 3) instead of waiting for it")
           .when(unless_wall),
       value(rk::max_consecutive_failures, &RunClockConfig::max_consecutive_failures,
             at_least(0),
             "external objectives: this many failed evaluations in a row of one agent stop the "
             "run as not completed (exit 3), naming the failure and the worker logs; 0: never")
           .when(unless_external),
       value(rk::max_failure_rate, &RunClockConfig::max_failure_rate, probability(),
             "external objectives: a share of one agent's evaluations failed above this stops "
             "the run as not completed (exit 3), judged from its 10th evaluation on; 1: never")
           .when(unless_external)}};
  return t;
}

/// [run], written only when a key differs from its default: a virtual-time configuration's
/// config.resolved.toml (and its hash) reads as it did before the table existed.
Field<ScenarioConfig> run_field() {
  Field<ScenarioConfig> f = table(rk::table, &ScenarioConfig::run, run_table);
  f.write = [write = f.write](std::string& out, const ScenarioConfig& c, const std::string& key,
                              Context& ctx) {
    const RunClockConfig defaults;
    if (c.run.time == defaults.time && c.run.time_scale == defaults.time_scale &&
        c.run.injected_compute == defaults.injected_compute &&
        c.run.wall_horizon == defaults.wall_horizon &&
        c.run.max_consecutive_failures == defaults.max_consecutive_failures &&
        c.run.max_failure_rate == defaults.max_failure_rate)
      return;
    write(out, c, key, ctx);
  };
  return f;
}

const Table<ScenarioConfig>& root_table() {
  static const Table<ScenarioConfig> t{{
      value("name", &ScenarioConfig::name,
            {"must be a non-empty name without '/' and other than \".\" and \"..\" (it names "
             "the default output folder out/<name>)",
             [](const std::string& s) {
               return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
                      s.find('\0') == std::string::npos;
             },
             "non-empty, no '/'"},
            "the run's name (the default output folder is out/<name>)")
          .defaults("the file's name"),
      value("seed", &ScenarioConfig::seed,
            {"must be in 0..9223372036854775807",
             [](std::uint64_t s) {
               return s <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
             },
             "0 .. 2^63-1"},
            "the run seed; every random stream is keyed by it"),
      table(nk::world, &ScenarioConfig::world, world_table),
      table("algorithm", &ScenarioConfig::algorithm, reference_table).only(Family::fbo),
      table<ScenarioConfig, xarmed::FedPneConfig>(
          "algorithm",
          [](ScenarioConfig& c, Context&) -> xarmed::FedPneConfig& { return c.xarmed.fed_pne; },
          fed_pne_table)
          .only(Family::xarmed),
      table(policy_keys::table, &ScenarioConfig::policy, policy_table),
      table("privacy", &ScenarioConfig::privacy, privacy_table,
            [](const Context& c) -> std::string {
              return c.family == Family::xarmed
                         ? "\n# [privacy] is not used by the X-armed family: see "
                           "algorithm.dp_epsilon, dp_delta.\n"
                         : "";
            }),
      table("output", &ScenarioConfig::output, output_table),
      run_field(),
  }};
  return t;
}

/// The algorithm a file names (validated) and its family.
void read_family(const toml::table& root, Context& ctx) {
  // [algorithm] name: the first key of the FBO [algorithm] table.
  const Field<ScenarioConfig>& table = *std::find_if(
      root_table().fields.begin(), root_table().fields.end(),
      [](const auto& f) { return f.kind == Field<ScenarioConfig>::Kind::table && f.family == Family::fbo; });
  const Field<fbo::ReferenceConfig>& name_field = reference_table().fields.front();
  const std::string key = child_key(table.name, name_field.name);
  ctx.algorithm = name_of(fbo::ReferenceConfig{}.algorithm);
  const toml::node* algorithm = root.get(table.name);
  const toml::node* name =
      algorithm && algorithm->is_table() ? algorithm->as_table()->get(name_field.name) : nullptr;
  if (name) ctx.algorithm = Value<std::string>::read(*name, key);
  const al::AlgorithmKind* kind = al::find_algorithm(ctx.algorithm);
  if (!kind)
    fail(key, "unknown value '" + ctx.algorithm + "'" +
                  did_you_mean(ctx.algorithm, al::algorithm_names()) +
                  " (allowed: " + join(al::algorithm_names()) + ")");
  const bool is_xarmed = kind->family == al::Family::xarmed;
  ctx.family = is_xarmed ? Family::xarmed : Family::fbo;
  ctx.root.xarmed.enabled = is_xarmed;
  ctx.root.xarmed.hct = is_xarmed && central_tree(*kind->xarmed);
  // The engine's FBO variants are named by algorithm.algorithm, the tree searchers by their
  // traits and dp_epsilon, the others (the baselines) by name.
  if ((is_xarmed && !kind->xarmed->tree) || (!is_xarmed && !kind->fbo->variant))
    ctx.root.plugin = kind->name;
  // What the rest of a run reads of an FBO algorithm (is it private? does it send messages?)
  // it reads from the engine variant with the plug-in's traits (one exists: registry.cpp).
  if (!is_xarmed && !kind->fbo->variant)
    ctx.root.algorithm.algorithm = *al::variant_with_traits(kind->fbo->traits);
  if (ctx.root.xarmed.hct) {  // keys left out take HCT's defaults, not Fed-PNE's
    const xarmed::HctParams hct;
    auto& p = ctx.root.xarmed.fed_pne.params;
    p.nu1 = hct.nu1;
    p.rho = hct.rho;
    p.c = hct.c;
    p.delta = hct.delta;
  }
}

/// Every rule of every key, then the engine's own validation as a safety net: a config the
/// schema accepts and the engine rejects is a bug of the schema.
void check_all(Context& ctx) {
  check_table(ctx.root, "", ctx, root_table());
  try {
    // (An algorithm's own parameters: its kind's check builds and validates its engine's.)
    if (ctx.root.xarmed.hct)
      hct_config(ctx.root).validate();
    else if (xarmed_uses(ctx.root, tree_search))
      fed_pne_config(ctx.root).validate();
    else if (!ctx.root.xarmed.enabled && ctx.root.plugin.empty())
      reference_config(ctx.root).validate();
  } catch (const std::invalid_argument& e) {
    throw std::logic_error(std::string("internal error: the scenario schema accepted a "
                                       "configuration the engine rejects: ") + e.what());
  }
}

}  // namespace

LoadedScenario read_scenario(const toml::table& root, const std::string& source,
                             const std::set<std::string>& from_command, bool warn_file_keys) {
  LoadedScenario out;
  ScenarioConfig& c = out.config;
  c.source_file = source;
  c.name = std::filesystem::path(source).stem().string();
  Context ctx{c};
  ctx.file_folder = std::filesystem::path(source).parent_path();
  if (ctx.file_folder.empty()) ctx.file_folder = std::filesystem::current_path();
  ctx.from_command = from_command;
  ctx.from_file = true;
  read_family(root, ctx);
  read_table(root, c, "", ctx, root_table());
  check_all(ctx);
  for (const Conditional& k : ctx.conditional) {
    if (!warn_file_keys && !from_command.count(k.key)) continue;
    if (const std::string why = k.inert(c); !why.empty())
      out.warnings.push_back("key '" + k.key + "' has no effect: " + why);
  }
  // A resolved config warns of it only when an override chose the clock.
  const bool clock_from_command = from_command.count(rk::full(rk::time)) ||
                                  from_command.count(rk::full(rk::injected_compute));
  if (warn_file_keys || clock_from_command)
    if (std::string why = unused_compute_model_warning(c); !why.empty())
      out.warnings.push_back(std::move(why));
  return out;
}

void validate(const ScenarioConfig& config) {
  ScenarioConfig c = config;
  Context ctx{c};
  ctx.family = c.xarmed.enabled ? Family::xarmed : Family::fbo;
  ctx.algorithm = algorithm_kind(c).name;
  check_all(ctx);
}

std::string to_toml(const ScenarioConfig& config) {
  ScenarioConfig c = config;
  Context ctx{c};
  ctx.family = c.xarmed.enabled ? Family::xarmed : Family::fbo;
  std::string out = resolved_header;
  out += "\n";
  if (!c.source_file.empty()) out += "# Loaded from " + c.source_file + "\n";
  write_table(out, c, "", ctx, root_table(), "");
  return out;
}

std::string schema_markdown() {
  std::vector<Row> rows;
  describe(rows, "", root_table(), Family::any);
  std::string out =
      "| key | family | type | default | allowed | meaning |\n|---|---|---|---|---|---|\n";
  auto cell = [](const std::string& s) {
    std::string o;
    for (char ch : s) o += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return o;
  };
  for (const Row& r : rows)
    out += "| `" + r.key + "` | " + r.family + " | " + r.type + " | " +
           (r.default_text.empty() ? "" : "`" + r.default_text + "`") + " | " + cell(r.allowed) +
           " | " + cell(r.doc) + " |\n";
  return out;
}

}  // namespace fedsim::scenario
