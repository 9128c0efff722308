#pragma once
/// Every message exchanged by fedsim's actors: plain structs with a CAF inspect overload (so
/// they can cross a process boundary; every double through `wire()`, bit for bit), registered in
/// one type-ID block. The records the recorder writes are messages too, declared with their
/// fields in records.hpp. Nothing else lives here.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/records.hpp"
#include "actors/wire_double.hpp"

namespace fedsim::actors {

/// An immutable vector shared by reference: one broadcast buffer serves every recipient.
struct shared_buffer {
  std::shared_ptr<const std::vector<double>> data;
  std::size_t size() const { return data ? data->size() : 0; }
  const double* begin() const { return data ? data->data() : nullptr; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, shared_buffer& x) {
  // Serialisation copies the contents; loading makes a fresh shared buffer.
  std::vector<double> tmp = x.data ? *x.data : std::vector<double>{};
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.data = std::make_shared<const std::vector<double>>(std::move(tmp));
    return caf::none;
  });
  auto values = wire(tmp);
  return f(caf::meta::type_name("shared_buffer"), values, load);
}

/// An immutable list shared by reference: every recipient of a broadcast (and the copy each
/// keeps) shares the one list instead of holding its own. Serialised as the std::vector it
/// holds (checkpoints and the wire are those of a plain vector).
template <class T>
struct shared_list {
  std::shared_ptr<const std::vector<T>> data;
  shared_list() = default;
  explicit shared_list(std::vector<T> values)
      : data(std::make_shared<const std::vector<T>>(std::move(values))) {}
  std::size_t size() const { return data ? data->size() : 0; }
  bool empty() const { return size() == 0; }
  const T* begin() const { return data ? data->data() : nullptr; }
  const T* end() const { return begin() + size(); }
  T operator[](std::size_t k) const { return (*data)[k]; }
  /// A copy of the values, as a vector of one's own.
  std::vector<T> to_vector() const { return {begin(), end()}; }
};

template <class Inspector, class T>
typename Inspector::result_type inspect(Inspector& f, shared_list<T>& x) {
  std::vector<T> tmp = x.data ? *x.data : std::vector<T>{};
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.data = std::make_shared<const std::vector<T>>(std::move(tmp));
    return caf::none;
  });
  return f(caf::meta::type_name("shared_list"), tmp, load);
}

/// FTS's broadcast names the source of each relayed vector, N of them: shared, it keeps FTS's
/// memory from growing as N^2.
using shared_ids = shared_list<std::int32_t>;

/// What every federation actor sends to the network: a payload for `to`, leaving the sender
/// after `delay` virtual seconds (its compute time, or a timer's delay), `bytes` long on the
/// wire. A timer is an envelope addressed to its sender.
struct envelope {
  node_id from = 0;
  node_id to = 0;
  double delay = 0.0;
  std::uint64_t bytes = 0;
  caf::message payload;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, envelope& x) {
  auto w_delay = wire(x.delay);
  return f(caf::meta::type_name("envelope"), x.from, x.to, w_delay, x.bytes, x.payload);
}

/// Appended by the network to every payload it delivers: the virtual time of delivery, and
/// (`settle`, virtual time only) leave to settle a timer at once. It is given when a timer the
/// recipient sent itself now would be its next delivery, at this same time, with nothing
/// added by its link, and no live view groups records by wave: the recipient is an agent that
/// is up, this is its last delivery of this time's wave (the timer would be the first of the next, as no other member sends to an
/// agent), and its link charges no compute time per evaluation. A handler that sends such a
/// timer with no delay may then go on as if it had been delivered, posting the timer as
/// settled (actors/outbox.hpp): the network logs and counts its delivery in turn and only
/// then takes what the handler sent after it. The schedule and every output are those of the
/// delivered timer; what is saved is its round trip through the recipient's mailbox.
struct virtual_time {
  double seconds = 0.0;
  bool settle = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, virtual_time& x) {
  auto w_seconds = wire(x.seconds);
  return f(caf::meta::type_name("virtual_time"), w_seconds, x.settle);
}

/// A member of fedsim's own -> network, in virtual time: the envelopes one handler of a
/// delivery sent, in order, and (`answers`) its answer to that delivery, in one message where
/// there were n + 1 (actors/outbox.hpp). A member may still answer with caf::ok_atom and send
/// envelope by envelope (a server of one's own does). `settled`: the index of a timer the
/// handler settled at once (virtual_time::settle), or -1; the envelopes after it were sent as
/// if it had been delivered, and the network takes them when it delivers it.
struct outbox {
  std::vector<envelope> envelopes;
  bool answers = false;
  std::int32_t settled = -1;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, outbox& x) {
  return f(caf::meta::type_name("outbox"), x.envelopes, x.answers, x.settled);
}

/// Server -> agents at time 0: run the initial design (round 0).
struct kickoff {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, kickoff&) {
  return f(caf::meta::type_name("kickoff"));
}

/// Server -> agents: the result of round `round`. `joint` is column-major `rows` = M by
/// `cols`: DE's omega^joint (cols = P), or for FTS the relayed vectors of the agents listed
/// in `sources` (one column each). released = false when the server released nothing: the
/// privacy budget is exhausted, or nobody took part in the round (docs/privacy.md, "What is
/// charged"); agents then continue with local TS.
struct broadcast {
  std::int32_t round = 0;
  std::int32_t rows = 0;
  std::int32_t cols = 0;
  bool released = true;
  shared_buffer joint;
  shared_ids sources;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, broadcast& x) {
  return f(caf::meta::type_name("broadcast"), x.round, x.rows, x.cols, x.released, x.joint,
           x.sources);
}

/// Agent -> server: omega_{n,t}, meant for the server's round `round` (the round after the
/// broadcast the agent last used; 0 after the initial design). `digest` is set by the sender
/// (actors/integrity.hpp: seal) and checked by the server (intact).
struct report {
  std::int32_t round = 0;
  node_id agent = 0;
  std::vector<double> omega;
  std::uint64_t digest = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, report& x) {
  auto w_omega = wire(x.omega);
  return f(caf::meta::type_name("report"), x.round, x.agent, w_omega, x.digest);
}

/// A self-addressed wake-up: the server's deadline for a round, or an agent's evaluations
/// finishing (the network charges `evaluations` times the agent's compute time).
struct timer {
  std::int32_t tag = 0;
  std::int32_t round = 0;
  std::int32_t evaluations = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, timer& x) {
  return f(caf::meta::type_name("timer"), x.tag, x.round, x.evaluations);
}

/// Agent -> server: this agent has finished its T iterations and will report no more.
struct agent_done {
  node_id agent = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, agent_done& x) {
  return f(caf::meta::type_name("agent_done"), x.agent);
}

/// Network -> a node: you crash now (state kept or lost on recovery).
struct crash_notice {
  bool keep_state = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, crash_notice& x) {
  return f(caf::meta::type_name("crash_notice"), x.keep_state);
}

/// Network -> a node: you are back.
struct recover_notice {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, recover_notice&) {
  return f(caf::meta::type_name("recover_notice"));
}

/// Network -> server: the failure detector saw `agent` crash (or come back).
struct membership_notice {
  node_id agent = 0;
  bool alive = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, membership_notice& x) {
  return f(caf::meta::type_name("membership_notice"), x.agent, x.alive);
}

/// An external evaluator -> the agent that submitted the query (posted from the evaluator's
/// thread): how evaluation `slot` of the agent's batch `generation` ended. Absent values
/// (f, cost) are NaN.
struct evaluation_result {
  std::uint64_t generation = 0;
  std::int32_t slot = 0;
  bool ok = false;
  double y = 0.0;
  double f = 0.0;
  double cost = 0.0;
  double wall_seconds = 0.0;
  std::int32_t attempts = 0;
  std::string failure_kind;
  std::string failure_message;
  bool fatal = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, evaluation_result& x) {
  auto w_y = wire(x.y);
  auto w_f = wire(x.f);
  auto w_cost = wire(x.cost);
  auto w_wall_seconds = wire(x.wall_seconds);
  return f(caf::meta::type_name("evaluation_result"), x.generation, x.slot, x.ok, w_y, w_f,
           w_cost, w_wall_seconds, x.attempts, x.failure_kind, x.failure_message, x.fatal);
}

/// Recorder -> driver, when the files are written (recorder.hpp, finish_atom).
struct finish_summary {
  std::vector<double> curve;  ///< FBO: the mean simple regret curve; Fed-PNE: client regrets
  double last_time = 0.0;
  std::int32_t without = 0;
  double mean_best_observed = std::numeric_limits<double>::quiet_NaN();  ///< NaN: none, Fed-PNE
  std::int64_t failed_evaluations = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, finish_summary& x) {
  auto w_last_time = wire(x.last_time);
  auto w_mean_best_observed = wire(x.mean_best_observed);
  auto w_curve = wire(x.curve);
  return f(caf::meta::type_name("finish_summary"), w_curve, w_last_time, x.without,
           w_mean_best_observed, x.failed_evaluations);
}

/// Network -> recorder, in virtual time: the events one wave (its deliveries, then what its
/// handlers sent) logged, in order, in one message instead of one each.
struct network_events {
  std::vector<network_event> events;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, network_events& x) {
  return f(caf::meta::type_name("network_events"), x.events);
}

/// Fed-PNE server -> clients: phase p's active nodes (xarmed::PhaseBroadcast on the wire); the
/// node list is shared by every client's copy.
struct phase_message {
  std::int64_t phase = 0;
  std::int32_t depth = 0;
  shared_list<std::uint64_t> indices;
  std::int64_t pulls_per_node = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, phase_message& x) {
  return f(caf::meta::type_name("phase_message"), x.phase, x.depth, x.indices, x.pulls_per_node);
}

/// Fed-PNE client -> server: its local means of phase p (xarmed::ClientReport on the wire),
/// sealed like `report`.
struct phase_report {
  std::int32_t client = 0;
  std::int64_t phase = 0;
  std::vector<double> means;
  std::vector<std::int64_t> pulls;
  std::uint64_t digest = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, phase_report& x) {
  auto w_means = wire(x.means);
  return f(caf::meta::type_name("phase_report"), x.client, x.phase, w_means, x.pulls, x.digest);
}

/// Server -> accountant: the price of one release (q, z) and the agents whose reports it would
/// aggregate, before the per-agent filter.
struct charge_request {
  double q = 1.0;
  double z = 1.0;
  std::vector<std::int32_t> candidates;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, charge_request& x) {
  auto w_q = wire(x.q);
  auto w_z = wire(x.z);
  return f(caf::meta::type_name("charge_request"), w_q, w_z, x.candidates);
}

/// Accountant replies: epsilon so far (by the scenario's accountant, and by the moments and
/// the tight accountant: dp::Ledger) and whether the requested step was granted; to a charge,
/// also which candidates its per-agent filter admitted (the release aggregates only those;
/// none admitted: nothing is released or charged).
struct privacy_status {
  bool granted = true;
  double epsilon = 0.0;
  std::int64_t steps = 0;
  double epsilon_rdp = 0.0;
  double epsilon_pld = 0.0;
  std::vector<std::int32_t> admitted;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, privacy_status& x) {
  auto w_epsilon = wire(x.epsilon);
  auto w_epsilon_rdp = wire(x.epsilon_rdp);
  auto w_epsilon_pld = wire(x.epsilon_pld);
  return f(caf::meta::type_name("privacy_status"), x.granted, w_epsilon, x.steps, w_epsilon_rdp,
           w_epsilon_pld, x.admitted);
}

/// Accountant -> (get_atom on the agents) the per-agent totals: releases each agent's report
/// took part in, and its epsilon by the scenario's accountant.
struct agent_privacy {
  std::vector<std::int64_t> releases;
  std::vector<double> epsilon;
  std::vector<std::int64_t> filtered;  ///< reports the per-agent filter left out
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, agent_privacy& x) {
  return f(caf::meta::type_name("agent_privacy"), x.releases, x.epsilon, x.filtered);
}

/// Remote join (actors/remote/, fedsim serve / fedsim agents). A process hosting agents asks
/// the server's gatekeeper for `ids` (join_hello) and gets a fresh nonce (join_challenge); it
/// answers HMAC-SHA256 of the nonce and the ids keyed by the shared secret (join_proof) and
/// gets the run's resolved scenario and one stand-in (proxy) per id (join_welcome); it spawns
/// its agents wired to those stand-ins and hands them over (join_agents).
struct join_hello {
  std::vector<std::uint32_t> ids;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_hello& x) {
  return f(caf::meta::type_name("join_hello"), x.ids);
}

struct join_challenge {
  std::vector<std::uint8_t> nonce;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_challenge& x) {
  return f(caf::meta::type_name("join_challenge"), x.nonce);
}

struct join_proof {
  std::vector<std::uint32_t> ids;
  std::vector<std::uint8_t> nonce;
  std::vector<std::uint8_t> mac;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_proof& x) {
  return f(caf::meta::type_name("join_proof"), x.ids, x.nonce, x.mac);
}

struct join_welcome {
  std::string scenario;  ///< the resolved scenario (config.resolved.toml's text)
  std::vector<caf::actor> proxies;  ///< one per id, in the order of the ids
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_welcome& x) {
  return f(caf::meta::type_name("join_welcome"), x.scenario, x.proxies);
}

struct join_agents {
  std::vector<std::uint32_t> ids;
  std::vector<caf::actor> agents;  ///< in the order of the ids
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_agents& x) {
  return f(caf::meta::type_name("join_agents"), x.ids, x.agents);
}

}  // namespace fedsim::actors

CAF_BEGIN_TYPE_ID_BLOCK(fedsim, caf::first_custom_type_id)
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::shared_buffer))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::envelope))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::virtual_time))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::kickoff))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::broadcast))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::report))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::timer))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::agent_done))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::crash_notice))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::recover_notice))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::membership_notice))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::observation_event))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::round_event))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::network_event))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::privacy_status))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::phase_message))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::phase_report))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::pull_event))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::phase_event))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::evaluation_result))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::finish_summary))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::join_hello))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::join_challenge))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::join_proof))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::join_welcome))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::join_agents))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::charge_request))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::agent_privacy))
CAF_ADD_ATOM(fedsim, fedsim::actors, run_atom, "run")
CAF_ADD_ATOM(fedsim, fedsim::actors, agents_atom, "agents")
CAF_ADD_ATOM(fedsim, fedsim::actors, finish_atom, "finish")
// Checkpoints (actors/checkpoint/checkpoint.hpp): (checkpoint_atom, ...) asks the network for one
// at the next quiet moment and announces it to the driver; (save_atom) -> the member's state
// bytes; (restore_atom, bytes) puts them back; (resume_atom) lets a paused network go on.
CAF_ADD_ATOM(fedsim, fedsim::actors, checkpoint_atom, "checkpoint")
CAF_ADD_ATOM(fedsim, fedsim::actors, save_atom, "save")
CAF_ADD_ATOM(fedsim, fedsim::actors, restore_atom, "restore")
CAF_ADD_ATOM(fedsim, fedsim::actors, resume_atom, "resume")
// Distributed runs (actors/remote/): (lost_atom, id) an agent's process is gone; (rejoin_atom,
// id) a new agent joined for that id.
CAF_ADD_ATOM(fedsim, fedsim::actors, lost_atom, "lost")
CAF_ADD_ATOM(fedsim, fedsim::actors, rejoin_atom, "rejoin")
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::agent_state_event))
// Network -> recorder, live views in virtual time: (wave_atom, time) before each wave of
// deliveries (every record of the waves before has arrived).
CAF_ADD_ATOM(fedsim, fedsim::actors, wave_atom, "wave")
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::outbox))
CAF_ADD_TYPE_ID(fedsim, (fedsim::actors::network_events))
CAF_END_TYPE_ID_BLOCK(fedsim)
