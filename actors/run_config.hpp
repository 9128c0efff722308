#pragma once
/// The validated configuration of one federation run: what the actors consume, and what the
/// scenario loader (scenarios/) fills from a TOML file.
/// The "world" (agents, objective, network) is kept apart from the "algorithm" and the
/// server's round "policy". Every field has its default here; the scenario schema
/// (scenarios/schema_fields.cpp) names each field's key and checks it.
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/xarmed/hct_run.hpp"
#include "engine/rng.hpp"

namespace fedsim::scenario {

/// A non-negative random duration in virtual seconds.
struct Distribution {
  enum class Kind { constant, uniform, exponential, lognormal };
  Kind kind = Kind::constant;
  double value = 0.0;  ///< constant: the value
  double low = 0.0;    ///< uniform: [low, high]
  double high = 0.0;
  double mean = 0.0;   ///< exponential: the mean
  double mu = 0.0;     ///< lognormal: parameters of log(X) ~ N(mu, sigma^2)
  double sigma = 0.0;

  double sample(RandomStream& rng) const;
  double expected() const;
};

/// A loss model chosen by name, with its numeric parameters: the scenario key
/// `loss = { kind = "gilbert-elliott", p = 0.01, r = 0.2 }` (kinds and their parameters are
/// registered in actors/faults/loss_registry.cpp).
struct LossSpec {
  std::string kind;                      ///< "": none, the Bernoulli shorthand `drop` applies
  std::map<std::string, double> params;  ///< missing ones take the kind's defaults
};

/// How one agent's device and link behave. Times are virtual seconds.
struct LinkModel {
  Distribution compute;             ///< time per evaluation (one agent step)
  Distribution uplink;              ///< latency agent -> server
  Distribution downlink;            ///< latency server -> agent
  double speed_factor = 1.0;        ///< multiplies compute time: > 1 is a persistent straggler
  double bandwidth = std::numeric_limits<double>::infinity();  ///< bytes per second
  double drop = 0.0;                ///< probability a message is lost (Bernoulli shorthand)
  LossSpec loss;                    ///< a loss model instead of `drop` (give one or the other)
  double duplicate = 0.0;           ///< probability a message is delivered twice
};

/// A group of agents that differ from the default link model. Agents are chosen by explicit
/// ids, or as a fraction of all agents (the first ceil(fraction * N) ids after a keyed shuffle).
struct AgentGroup {
  std::string name;
  std::vector<int> agents;
  double fraction = 0.0;
  LinkModel link;
};

/// Agents that crash at `time`; they come back at `recover` (infinity: crash-stop) with their
/// state kept or lost.
struct CrashSchedule {
  std::vector<int> agents;
  double fraction = 0.0;
  double time = 0.0;
  double recover = std::numeric_limits<double>::infinity();
  bool keep_state = true;
};

/// A set of agents cut off from the server during [start, end).
struct NetworkPartition {
  std::vector<int> agents;
  double fraction = 0.0;
  double start = 0.0;
  double end = 0.0;
};

/// Malformed payloads injected into agents' reports (report, phase_report) at a rate.
struct MalformedInjection {
  double rate = 0.0;  ///< probability that a report is corrupted
  /// Kinds drawn uniformly, named in the table of actors/faults/corruptions.cpp (the default
  /// is every name, in table order: a test checks it).
  std::vector<std::string> kinds = {"nan", "inf", "wrong_dimension", "huge_norm", "stale_round"};
};

struct NetworkConfig {
  LinkModel link;                     ///< the default for every agent
  std::vector<AgentGroup> groups;     ///< overrides, applied in order
  std::vector<CrashSchedule> crashes;
  std::vector<NetworkPartition> partitions;
  std::string availability_file;      ///< CSV agent,start,end of up-intervals ("" = always up)
  MalformedInjection malformed;
  /// The network tells the server that a crashed agent is down after this many seconds
  /// (infinity: never; the server then relies on missed rounds alone).
  double detection_delay = std::numeric_limits<double>::infinity();
};

struct WorldConfig {
  int agents = 200;
  SyntheticConfig objective;
  double noise_variance = 0.01;
  /// FTS's target-agent setting when > 0 (fbo::ReferenceConfig::peer_observations): agent 0
  /// optimises, agents 1..N-1 are peers holding this many observations each.
  int peer_observations = 0;
  NetworkConfig network;
};

/// The server's round policy (DESIGN.md, "server").
struct PolicyConfig {
  enum class Kind { sync, deadline, quorum, async, fedbuff };
  Kind kind = Kind::sync;
  int dead_after_missed = 3;       ///< sync: rounds missed before an agent is presumed dead
  double round_timeout = 10.0;     ///< sync: seconds after the broadcast before missing
                                   ///< agents are counted as having missed the round
  double deadline = 1.0;           ///< deadline, quorum fallback: seconds after the broadcast
  bool carry_late = false;         ///< deadline: late vectors join the next round (else dropped)
  double quorum = 1.0;             ///< quorum: > 1 an absolute count K, <= 1 a fraction of N
  int async_every = 0;             ///< async: aggregate every K arrivals (0: use the period)
  double async_period = 0.0;       ///< async: aggregate every period seconds (0: use K)
  int max_staleness = 5;           ///< async: older vectors (in rounds) are dropped
  enum class Staleness { constant, inverse, polynomial } staleness = Staleness::inverse;
  double staleness_exponent = 0.5; ///< polynomial: weight (1 + s)^-exponent
  int buffer_size = 10;            ///< fedbuff: aggregate when the buffer holds K reports
};

struct PrivacyConfig {
  /// tight (the default since the tight accountant became fast: docs/privacy.md) | moments |
  /// moments-paper. Whichever it is, rounds.csv and summary.json also report the moments and
  /// the tight accountant's epsilon; this one enforces privacy.budget.
  std::string accountant = "tight";
  double delta = 0.0;                  ///< 0: 1 / N^1.1
  double budget = std::numeric_limits<double>::infinity();  ///< epsilon budget
  /// Each agent's own epsilon budget (a privacy filter, docs/privacy.md): an agent is charged
  /// only for the releases its report took part in, and its reports stop being aggregated
  /// once one more would take its own epsilon past this. inf: no filter.
  double agent_budget = std::numeric_limits<double>::infinity();
  /// How the per-agent filter prices an agent's releases (actors/privacy_basis.hpp):
  /// automatic: pld where participation is not adaptive, rdp where it is; pld: the agent's
  /// epsilon of its count by privacy.accountant (exact, valid only when the count does not
  /// depend on its data or earlier releases); rdp: a Rényi filter at one order fixed at load
  /// (valid under full adaptivity).
  enum class Filter { automatic, pld, rdp };
  Filter filter = Filter::automatic;
  /// Lets filter = pld run where fedsim finds participation adaptive: the user states that
  /// the count is independent of the data anyway (recorded in summary.json).
  bool assume_nonadaptive = false;
};

/// The federated X-armed bandit family (Fed-PNE, DP-Fed-PNE, and HCT, the paper's centralised
/// baseline) in place of an FBO algorithm. Scenario files select it with [algorithm] name =
/// "fed-pne", "dp-fed-pne" or "hct" and an X-armed objective (world.objective.kind = garland,
/// double-sine or seir).
struct XarmedConfig {
  bool enabled = false;
  /// HCT on the global objective (`fedsim run --driver loop` only): reads budget, k, split,
  /// point, nu1, rho, c and delta from `fed_pne` (see hct_config()).
  bool hct = false;
  /// problem.clients, problem.seed and record_curve are not read: fed_pne_config() sets them.
  /// A baseline (a kind without the tree trait) reads its problem and budget from here.
  xarmed::FedPneConfig fed_pne;
};

/// What a run writes besides the always-written files.
struct OutputConfig {
  /// What events.jsonl logs: all: every send, delivery and fault (large for big runs: a few
  /// lines per agent and round); faults: drops, duplicates, corruptions, rejections, late
  /// reports, lost and rejoined processes, not the traffic itself; none: no file.
  enum class EventLog { all, faults, none };
  EventLog events = EventLog::all;
  bool logs_events() const { return events != EventLog::none; }
  /// Whether sends and deliveries are logged (the bulk of the log).
  bool logs_traffic() const { return events == EventLog::all; }
};

/// Which clock a run keeps and when a run that makes no progress ends ([run] in a scenario
/// file; docs/wall-clock.md). Actors driver only.
struct RunClockConfig {
  /// virtual: a discrete-event simulation, the clock jumps from event to event and waits for
  /// every handler; wall: the network delivers each event when the real clock reaches its
  /// model time x time_scale, and an agent's compute time is the real time its evaluations take.
  enum class Time { virtual_time, wall };
  Time time = Time::virtual_time;
  double time_scale = 1.0;         ///< wall: wall seconds per model second (finite, > 0)
  /// wall: an agent's self-timer is also held for its modelled compute time (the objective's
  /// cost, else the link's compute model per evaluation), as virtual time charges it.
  bool injected_compute = false;
  /// wall: the run ends (exit 3, not completed) when nothing is outstanding and its next event
  /// is more than this many real seconds away (infinity: never).
  double wall_horizon = 3600.0;
  /// External objectives: this many failed evaluations in a row of one agent stop the run
  /// (exit 3, not completed; 0: never).
  int max_consecutive_failures = 3;
  /// External objectives: a share of one agent's evaluations failed above this stops the run
  /// (exit 3, not completed), judged once the agent has had failure_rate_after evaluations
  /// (1: never).
  double max_failure_rate = 0.5;
  static constexpr int failure_rate_after = 10;
  bool wall() const { return time == Time::wall; }
};

struct ScenarioConfig {
  std::string name = "unnamed";
  std::string source_file;          ///< the file it was loaded from, for messages
  std::uint64_t seed = 1;
  WorldConfig world;
  /// The algorithm and its parameters. Its `agents`, `objective`, `noise_variance`,
  /// `peer_observations`, `seed`, `accountant` and `delta` are not read: reference_config()
  /// takes them from the world, the seed and the privacy section.
  fbo::ReferenceConfig algorithm;
  XarmedConfig xarmed;  ///< used instead of `algorithm` when xarmed.enabled
  /// The registered name of an algorithm that its family's configuration does not name (the
  /// baselines: an FBO kind without an engine variant, an X-armed kind that does not search the
  /// partition tree; the loader sets it); empty for the others, which `algorithm.algorithm`,
  /// `xarmed.hct` and `xarmed.fed_pne.dp_epsilon` name.
  std::string plugin;
  /// The tables [algorithm.NAME] as given, by algorithm name: an algorithm's own keys
  /// (AlgorithmKind::parameters). Only the run's algorithm's are read, through
  /// algorithm_params(), which adds the defaults.
  std::map<std::string, actors::algorithms::Params> algorithm_params;
  PolicyConfig policy;
  PrivacyConfig privacy;
  OutputConfig output;
  RunClockConfig run;
};

/// The engine's configuration of an FBO run: `algorithm` with the world's, the seed's and the
/// privacy section's values filled in. Derived on use, so no caller can forget a copy.
fbo::ReferenceConfig reference_config(const ScenarioConfig& config);
/// The run's algorithm's own parameters ([algorithm.NAME]), every declared one present (the
/// defaults added); std::invalid_argument "key 'algorithm.NAME.P': ..." for one its rule refuses.
actors::algorithms::Params algorithm_params(const ScenarioConfig& config);
/// The engine's configuration of an X-armed run: `xarmed.fed_pne` with problem.clients =
/// world.agents, problem.seed = seed and record_curve = false (the actors record per phase).
xarmed::FedPneConfig fed_pne_config(const ScenarioConfig& config);
/// The engine's configuration of an HCT run (xarmed.hct): the problem, budget, partition,
/// point rule and nu1, rho, c, delta of `xarmed.fed_pne`, with problem.clients = world.agents
/// and problem.seed = seed.
xarmed::HctRunConfig hct_config(const ScenarioConfig& config);

/// One name table per enum: parsing, printing and the "allowed:" lists of errors all read it.
/// Engine enums take their names from the engine's to_string.
template <class E>
using NameTable = std::vector<std::pair<E, std::string>>;
const NameTable<Distribution::Kind>& names(Distribution::Kind);
const NameTable<PolicyConfig::Kind>& names(PolicyConfig::Kind);
const NameTable<PolicyConfig::Staleness>& names(PolicyConfig::Staleness);
const NameTable<RunClockConfig::Time>& names(RunClockConfig::Time);
const NameTable<PrivacyConfig::Filter>& names(PrivacyConfig::Filter);
const NameTable<OutputConfig::EventLog>& names(OutputConfig::EventLog);
const NameTable<SyntheticConfig::Kind>& names(SyntheticConfig::Kind);
const NameTable<SyntheticConfig::OnFailure>& names(SyntheticConfig::OnFailure);
const NameTable<fbo::Algorithm>& names(fbo::Algorithm);
const NameTable<fbo::PSchedule>& names(fbo::PSchedule);
const NameTable<fbo::TemperatureSchedule>& names(fbo::TemperatureSchedule);
const NameTable<TuningSettings::Task>& names(TuningSettings::Task);
const NameTable<fbo::LocalSampler>& names(fbo::LocalSampler);
const NameTable<fbo::PosteriorMemory>& names(fbo::PosteriorMemory);
const NameTable<xarmed::ObjectiveKind>& names(xarmed::ObjectiveKind);
const NameTable<xarmed::SplitRule>& names(xarmed::SplitRule);
const NameTable<xarmed::PointRule>& names(xarmed::PointRule);
const NameTable<xarmed::HctVariant>& names(xarmed::HctVariant);
/// The registered algorithm a configuration runs (actors/algorithms/).
const actors::algorithms::AlgorithmKind& algorithm_kind(const ScenarioConfig& config);

/// The name of `value` in its enum's table; std::logic_error for a value the table misses (a
/// value added to an enum without its name: tests/scenarios/name_tables_test.cpp walks them).
template <class E>
std::string name_of(E value) {
  for (const auto& [v, name] : names(E{}))
    if (v == value) return name;
  throw std::logic_error("name_of: a value without a name (" +
                         std::to_string(static_cast<long long>(value)) + ")");
}

}  // namespace fedsim::scenario
