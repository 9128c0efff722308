#pragma once
/// The records a run emits, each declared once: the struct the actors send to the recorder and
/// the list of its fields (record_fields.hpp says what follows from the list). The order of a
/// list is the order of `inspect` (so of checkpoints: never reorder a field, append it) and of
/// the file's columns; the stream's line takes the fields marked for it in the same order.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "actors/record_fields.hpp"

namespace fedsim::actors {

/// Address of a federation member on the simulated network: agents are 0 .. N-1.
using node_id = std::uint32_t;
constexpr node_id server_node = 0xFFFFFF00u;

/// A node id as events.jsonl (and the live stream) write it: agents keep their ids, the server
/// is -1 and the network itself -2 (network.hpp's network_node, any id above the server's);
/// node_from_json is the inverse.
inline long long json_node(node_id n) {
  if (n == server_node) return -1;
  if (n > server_node) return -2;
  return static_cast<long long>(n);
}
inline node_id node_from_json(long long n) {
  if (n == -1) return server_node;
  if (n < 0) return server_node + 1;
  return static_cast<node_id>(n);
}

/// Agent -> recorder: one query (fbo::ObservationRecord plus the virtual time). A row of
/// observations.csv (FBO runs).
struct observation_event {
  std::int32_t agent = 0;
  std::int32_t iteration = 0;
  std::int32_t index = 0;  ///< the candidate queried, -1 on a box
  double time = 0.0;
  std::vector<double> x;   ///< every coordinate, in the objective's own coordinates
  double y = 0.0;
  double f = 0.0;
  double simple_regret = 0.0;
  double best_y = 0.0;     ///< the largest y this agent has observed so far
  std::int32_t branch = 0;  ///< fbo::Branch
  std::int32_t source = -1;
  /// Measured wall seconds of an external evaluation (NaN: not measured; never in
  /// observations.csv, which stays reproducible: evaluation_times.csv holds them).
  double wall_seconds = 0.0;
};

/// fbo::Branch's names, in its order (a test checks them against fbo::to_string).
inline constexpr const char* branch_names[] = {"init", "local", "federated"};

template <>
struct record<observation_event> {
  using R = observation_event;
  static constexpr const char* type_name = "observation_event";
  static constexpr const char* file = "observations.csv";
  static constexpr const char* stream_type = "observation";
  static constexpr auto fields = std::make_tuple(
      count_field("agent", &R::agent, "the agent that queried"),
      integer_field("iteration", &R::iteration, "its iteration (negative: the initial design)"),
      integer_field("index", &R::index, "the candidate queried, -1 on a box", in_inspect_only),
      number_field("time", &R::time, "virtual time of the query's outcome", in_file),
      numbers_field("x", &R::x, "the point queried, in the objective's own coordinates"),
      number_field("y", &R::y, "the noisy observation"),
      number_field("f", &R::f, "the noise-free value (nan in files, null in the stream: not known)"),
      number_field("simple_regret", &R::simple_regret, "f* minus the best f observed so far"),
      number_field("best_y", &R::best_y, "the largest y this agent has observed so far"),
      label_field("branch", &R::branch, branch_names, "what chose the query", in_file),
      integer_field("source", &R::source, "FTS: the agent whose message was used (-1: none)", in_file),
      number_field("wall_seconds", &R::wall_seconds,
                   "measured wall seconds of an external evaluation (evaluation_times.csv)",
                   in_inspect_only));
};

/// Server -> recorder: what one round did. A row of rounds.csv (FBO runs).
struct round_event {
  std::int32_t round = 0;
  double time = 0.0;
  std::int32_t participants = 0;  ///< well-formed vectors the round had
  std::int32_t selected = 0;      ///< of those, chosen by subsampling and aggregated
  std::int32_t late = 0;
  std::int32_t dropped = 0;
  std::int32_t rejected = 0;
  std::int32_t clipped = 0;
  std::int32_t alive = 0;
  double noise_std = 0.0;
  double epsilon = 0.0;           ///< by privacy.accountant, spent so far
  bool released = true;
  double aggregate_norm = 0.0;  ///< L2 norm of the broadcast vector
  double epsilon_rdp = 0.0;     ///< the same releases by the moments accountant
  double epsilon_pld = 0.0;     ///< ... and by the tight accountant
  /// Reports the per-agent privacy filter left out (their agents' own budget reached).
  std::int32_t filtered = 0;
};

template <>
struct record<round_event> {
  using R = round_event;
  static constexpr const char* type_name = "round_event";
  static constexpr const char* file = "rounds.csv";
  static constexpr const char* stream_type = "round";
  static constexpr auto fields = std::make_tuple(
      count_field("round", &R::round, "the round"),
      number_field("time", &R::time, "virtual time at which it closed", in_file),
      count_field("participants", &R::participants, "well-formed vectors the round had"),
      count_field("selected", &R::selected, "of those, chosen by subsampling and aggregated"),
      count_field("late", &R::late, "vectors that came after the round closed"),
      count_field("dropped", &R::dropped, "vectors the network lost on the way"),
      count_field("rejected", &R::rejected, "malformed vectors refused"),
      count_field("clipped", &R::clipped, "vectors clipped to the sensitivity bound"),
      count_field("alive", &R::alive, "agents the server still expects"),
      number_field("noise_std", &R::noise_std, "standard deviation of the noise added"),
      number_field("epsilon", &R::epsilon, "epsilon spent so far, by privacy.accountant"),
      flag_field("released", &R::released, "the round broadcast an aggregate"),
      number_field("aggregate_norm", &R::aggregate_norm, "L2 norm of the broadcast vector"),
      number_field("epsilon_rdp", &R::epsilon_rdp, "the same releases by the moments accountant",
                   in_file),
      number_field("epsilon_pld", &R::epsilon_pld, "the same releases by the tight accountant",
                   in_file),
      count_field("filtered", &R::filtered, "reports the per-agent privacy filter left out"));
};

/// The kinds of network_event the stream shows (the file also has the traffic: send, deliver).
inline constexpr const char* fault_kinds[] = {"drop", "duplicate", "corrupt", "reject", "late",
                                              "lost", "rejoin", "evaluation_failed"};

/// Network or server -> recorder: one line of events.jsonl. `seq` orders events of the same
/// source and time.
struct network_event {
  double time = 0.0;
  std::uint64_t seq = 0;
  /// network: send, deliver, drop, duplicate, corrupt; server: reject, late
  std::string kind;
  node_id from = 0;
  node_id to = 0;
  std::string payload;  ///< payload type
  std::int32_t round = -1;
  std::uint64_t bytes = 0;
  std::string reason;
};

template <>
struct record<network_event> {
  using R = network_event;
  static constexpr const char* type_name = "network_event";
  static constexpr const char* file = "events.jsonl";
  static constexpr const char* stream_type = "fault";
  static constexpr auto fields = std::make_tuple(
      number_field("time", &R::time, "virtual time of the event", in_file),
      count_field("seq", &R::seq, "orders events of one source and time", in_inspect_only),
      text_field("event", &R::kind, "what happened").streamed_as("kind").one_of(fault_kinds),
      node_field("from", &R::from, "sender: an agent, the server (-1) or the network (-2)"),
      node_field("to", &R::to, "addressee: an agent, the server (-1) or the network (-2)"),
      text_field("payload", &R::payload, "the message's type"),
      integer_field("round", &R::round, "the round it belongs to (-1: none)"),
      count_field("bytes", &R::bytes, "its size on the wire"),
      text_field("reason", &R::reason, "why (a rejection's or a failure's cause)").omitted_when_empty());
};

/// The states an agent_state_event names.
inline constexpr const char* agent_states[] = {"crashed",  "recovered",    "offline", "online",
                                               "partitioned", "healed",    "straggling", "lost",
                                               "rejoined", "presumed_dead", "revived"};

/// Network or server -> recorder: an agent's (client's) state changed. For the live view only
/// (RunObserver::agent, `fedsim run --stream`); never in the output files, and sent only when
/// an observer asked for it. From the network's plan, as its clock passes the time: crashed,
/// recovered, offline, online (availability), partitioned, healed, straggling (at 0, a
/// persistent straggler), and in wall-clock runs lost, rejoined (an agent's process); from the
/// server's membership: presumed_dead, revived.
struct agent_state_event {
  double time = 0.0;
  std::int32_t agent = 0;
  std::string state;
};

template <>
struct record<agent_state_event> {
  using R = agent_state_event;
  static constexpr const char* type_name = "agent_state_event";
  static constexpr const char* file = nullptr;
  static constexpr const char* stream_type = "agent";
  static constexpr auto fields = std::make_tuple(
      number_field("time", &R::time, "virtual time of the change", in_inspect_only),
      count_field("agent", &R::agent, "the agent (client)"),
      text_field("state", &R::state, "its new state").one_of(agent_states));
};

/// Fed-PNE client -> recorder: its cumulative regret after a phase's pulls. A row of
/// observations.csv (X-armed runs).
struct pull_event {
  std::int32_t client = 0;
  std::int64_t phase = 0;
  std::int64_t steps = 0;  ///< pulls made so far
  double time = 0.0;
  double cumulative_regret = 0.0;
};

template <>
struct record<pull_event> {
  using R = pull_event;
  static constexpr const char* type_name = "pull_event";
  static constexpr const char* file = "observations.csv";
  static constexpr const char* stream_type = "pull";
  static constexpr auto fields = std::make_tuple(
      count_field("client", &R::client, "the client"),
      count_field("phase", &R::phase, "the phase whose pulls these are"),
      count_field("step", &R::steps, "pulls made so far").streamed_as("steps"),
      number_field("time", &R::time, "virtual time", in_file),
      number_field("cumulative_regret", &R::cumulative_regret, "the client's cumulative regret R(t)"));
};

/// Fed-PNE server -> recorder: what closing a phase did. A row of phases.csv.
struct phase_event {
  std::int64_t phase = 0;
  double time = 0.0;
  std::int32_t depth = 0;
  std::int64_t nodes = 0;
  std::int64_t pulls_per_node = 0;
  std::int32_t reporters = 0;
  std::int32_t excluded = 0;  ///< clients alive but not in the global mean
  std::int32_t late = 0;
  std::int32_t rejected = 0;
  std::int32_t alive = 0;
  std::int64_t survivors = 0;
  double best_mean = 0.0;
  double confidence_width = 0.0;
};

template <>
struct record<phase_event> {
  using R = phase_event;
  static constexpr const char* type_name = "phase_event";
  static constexpr const char* file = "phases.csv";
  static constexpr const char* stream_type = "phase";
  static constexpr auto fields = std::make_tuple(
      count_field("phase", &R::phase, "the phase"),
      number_field("time", &R::time, "virtual time at which it closed", in_file),
      count_field("depth", &R::depth, "the depth of its active nodes"),
      count_field("nodes", &R::nodes, "active nodes"),
      count_field("pulls_per_node", &R::pulls_per_node, "pulls each client made per node"),
      count_field("reporters", &R::reporters, "clients whose means were averaged"),
      count_field("excluded", &R::excluded, "clients alive but not in the global mean"),
      count_field("late", &R::late, "reports that came after the phase closed"),
      count_field("rejected", &R::rejected, "malformed reports refused"),
      count_field("alive", &R::alive, "clients the server still expects"),
      count_field("survivors", &R::survivors, "nodes kept for the next phase"),
      number_field("best_mean", &R::best_mean, "the largest global mean"),
      number_field("confidence_width", &R::confidence_width, "the elimination's confidence width"));
};

/// A row of evaluation_times.csv: the measured wall time of one external evaluation (the one
/// output that is not reproducible; written beside observations.csv when any was measured).
struct evaluation_time_row {
  std::int32_t agent = 0;
  std::int32_t iteration = 0;
  double wall_seconds = 0.0;
};

template <>
struct record<evaluation_time_row> {
  using R = evaluation_time_row;
  static constexpr const char* type_name = "evaluation_time_row";
  static constexpr const char* file = "evaluation_times.csv";
  static constexpr const char* stream_type = nullptr;
  static constexpr auto fields = std::make_tuple(
      count_field("agent", &R::agent, "the agent", in_file),
      integer_field("iteration", &R::iteration, "its iteration", in_file),
      number_field("wall_seconds", &R::wall_seconds, "measured wall seconds of the evaluation", in_file));
};

/// A row of privacy_agents.csv: one agent's privacy over a private FBO run.
struct agent_privacy_row {
  std::int32_t agent = 0;
  std::int64_t releases = 0;
  double epsilon = 0.0;
  std::int64_t filtered = 0;
};

template <>
struct record<agent_privacy_row> {
  using R = agent_privacy_row;
  static constexpr const char* type_name = "agent_privacy_row";
  static constexpr const char* file = "privacy_agents.csv";
  static constexpr const char* stream_type = nullptr;
  static constexpr auto fields = std::make_tuple(
      count_field("agent", &R::agent, "the agent", in_file),
      count_field("releases", &R::releases, "releases its report took part in", in_file),
      number_field("epsilon", &R::epsilon, "its own epsilon, by privacy.accountant", in_file),
      count_field("filtered", &R::filtered, "its reports the per-agent filter left out", in_file));
};

/// The files of a run folder that records make, one row each: what a new output file adds
/// (with its record above). `fedsim` writes the others itself (summary.json,
/// config.resolved.toml); docs/cli.md's table of output files is generated from this one.
struct OutputFile {
  const char* name;
  const char* when;                     ///< which runs have it
  std::string (*columns_markdown)();   ///< its columns with their docs, for the table
};
const std::vector<OutputFile>& output_files();
/// The table of output_files() in markdown (docs/cli.md holds it between markers).
std::string output_files_markdown();

}  // namespace fedsim::actors
