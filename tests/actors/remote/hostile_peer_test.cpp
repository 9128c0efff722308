// A malicious but authenticated peer (actors/remote/agent_proxy.hpp): it joins legitimately for
// ids 1-2 of a served run, but instead of agents it hands over hand-written actors that answer
// every delivery with ok and flood their proxies with envelopes, observations and events that
// are oversized, of the wrong dimension, non-finite, claim another agent, carry a wrong round,
// an unexpected payload, or come from an actor that is not the joined agent. Agent 0 is a real
// agent in an honest process (host_agents), so rounds happen.
//
// What must hold: every bad message is dropped by the proxy and counted under its reason in
// RemoteStats::dropped, exactly as many as were sent; the reports for a round the server never
// opened pass the proxy (it cannot know the server's round) and are rejected by the server
// ("unknown round", rounds.csv's rejected column); nothing reaches the aggregate.
//
// How "nothing reaches the aggregate" is made exact: the same served run is made twice, once
// with the hostile actors attacking and once with the same actors silent (they answer every
// delivery and send nothing). Virtual time makes a served run deterministic (the proxies keep
// the network's event order), so if every bad message was dropped the two runs must agree
// bit for bit on everything but the server's rejections: observations.csv identical, rounds.csv
// identical except for the rejected column (which differs by exactly the unopened-round
// reports, in round 0), events.jsonl identical once the unopened-round reports' own lines (send,
// deliver, reject) are removed. A bad report that got through would change aggregate_norm,
// participants or selected (DP-FTS-DE aggregates whatever it kept); a bad observation would
// change observations.csv. (Comparing with an in-process run where ids 1-2 crash at t = 0 is
// not exact: the crash model changes membership and the alive column.)
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "actors/integrity.hpp"
#include "tests/actors/remote/remote_test_support.hpp"
#include "tests/test_files.hpp"

using namespace fedsim;
using namespace fedsim::actors;
using namespace fedsim::actors::remote;
using namespace fedsim::test::remote;

namespace {

constexpr std::uint64_t max_bytes = 16384;  ///< ServeOptions::max_message_bytes of these runs
constexpr node_id honest_id = 0;
/// Rounds no server opens in this run (it has T = 5): the server must reject them.
constexpr std::int32_t unopened_round_near = 1;  // sent at kickoff, while round 0 is open
constexpr std::int32_t unopened_round_far = 1000000;

/// What the hostile actors sent, by the reason the proxy must drop it.
struct Ledger {
  std::mutex mutex;
  std::map<std::string, std::int64_t> dropped;
  std::int64_t unopened = 0;  ///< reports for a round the server never opened (not dropped)
  std::int64_t kickoffs = 0;
  std::int64_t broadcasts = 0;
  void add(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex);
    ++dropped[reason];
  }
  template <class F>
  void with(F&& f) {
    std::lock_guard<std::mutex> lock(mutex);
    f(*this);
  }
  std::map<std::string, std::int64_t> snapshot() {
    std::lock_guard<std::mutex> lock(mutex);
    return dropped;
  }
};

struct HostileSettings {
  node_id id = 0;
  caf::actor proxy;        ///< its own proxy
  node_id other_id = 0;    ///< the other hostile id of the same node
  caf::actor other_proxy;  ///< ... and its proxy
  int features = 0;
  bool attack = true;      ///< false: silent (answers every delivery, sends nothing)
  std::shared_ptr<Ledger> ledger;
};

report sealed_report(std::int32_t round, node_id agent, std::vector<double> omega) {
  report r;
  r.round = round;
  r.agent = agent;
  r.omega = std::move(omega);
  seal(r);
  return r;
}

envelope to_server(node_id from, report r, std::uint64_t bytes = 100) {
  return envelope{from, server_node, 0.0, bytes, caf::make_message(std::move(r))};
}

/// The attacks made once, at kickoff.
void attack_at_kickoff(caf::event_based_actor* self, const HostileSettings& s) {
  const node_id me = s.id;
  const std::vector<double> ok(s.features, 0.5);
  auto bad = [&](envelope env, const char* reason) {
    self->send(s.proxy, std::move(env));
    s.ledger->add(reason);
  };
  // Oversized: by content (80 kB of vector), and by the size it claims on the wire.
  bad(to_server(me, sealed_report(0, me, std::vector<double>(10000, 0.5))), "oversized");
  bad(to_server(me, sealed_report(0, me, ok), max_bytes + 1), "oversized");
  // Wrong dimension.
  bad(to_server(me, sealed_report(0, me, std::vector<double>(s.features - 1, 0.5))),
      "report of a wrong dimension");
  bad(to_server(me, sealed_report(0, me, std::vector<double>(s.features + 1, 0.5))),
      "report of a wrong dimension");
  // Not finite.
  {
    auto v = ok;
    v[3] = std::numeric_limits<double>::quiet_NaN();
    bad(to_server(me, sealed_report(0, me, v)), "report not finite");
    v[3] = std::numeric_limits<double>::infinity();
    bad(to_server(me, sealed_report(0, me, v)), "report not finite");
  }
  // Claiming another agent: the envelope's sender, or the report's agent.
  bad(to_server(honest_id, sealed_report(0, honest_id, ok)), "envelope not from its agent's id");
  bad(to_server(me, sealed_report(0, honest_id, ok)), "report of another agent");
  // A negative round.
  bad(to_server(me, sealed_report(-1, me, ok)), "report of a negative round");
  bad(to_server(me, sealed_report(std::numeric_limits<std::int32_t>::min(), me, ok)),
      "report of a negative round");
  // Not sealed (its digest does not match).
  {
    report r = sealed_report(0, me, ok);
    r.digest ^= 1;
    bad(to_server(me, r), "report not sealed");
  }
  // Addressed wrongly: a report to itself, anything to another agent.
  bad(envelope{me, me, 0.0, 100, caf::make_message(sealed_report(0, me, ok))},
      "report not to the server");
  bad(envelope{me, honest_id, 0.0, 100, caf::make_message(sealed_report(0, me, ok))},
      "envelope to neither the server nor itself");
  // A delay that is not a time.
  {
    envelope e = to_server(me, sealed_report(0, me, ok));
    e.delay = -1.0;
    bad(e, "delay not finite and >= 0");
    e.delay = std::numeric_limits<double>::quiet_NaN();
    bad(e, "delay not finite and >= 0");
  }
  // Payloads an agent never sends: a string, a broadcast, a report with an extra element.
  bad(envelope{me, server_node, 0.0, 10, caf::make_message(std::string("hello"))},
      "payload of a type an agent does not send");
  bad(envelope{me, server_node, 0.0, 10, caf::make_message(broadcast{})},
      "payload of a type an agent does not send");
  bad(envelope{me, server_node, 0.0, 10, caf::make_message(sealed_report(0, me, ok), virtual_time{})},
      "payload of a type an agent does not send");
  bad(envelope{me, server_node, 0.0, 10, caf::message{}}, "payload of a type an agent does not send");
  // Another agent's agent_done (it would make the server stop expecting agent 0).
  bad(envelope{me, server_node, 0.0, 10, caf::make_message(agent_done{honest_id})},
      "agent_done of another agent");
  // Timers: to the server (a fake deadline), or out of range.
  bad(envelope{me, server_node, 0.0, 0, caf::make_message(timer{1, 0, 0})}, "timer not to itself");
  bad(envelope{me, me, 0.0, 0, caf::make_message(timer{0, -1, 0})}, "timer out of range");
  bad(envelope{me, me, 0.0, 0, caf::make_message(timer{0, 0, -5})}, "timer out of range");
  // Records: another agent's observation, events an agent does not log, an oversized one.
  {
    observation_event o;
    o.agent = static_cast<std::int32_t>(honest_id);
    o.x = {0.5};
    o.y = 1e9;  // would be agent 0's best observation by far
    self->send(s.proxy, o);
    s.ledger->add("observation of another agent");
    network_event e;
    e.kind = "send";
    e.from = me;
    e.to = me;
    self->send(s.proxy, e);
    s.ledger->add("event of a kind an agent does not log");
    e.kind = "evaluation_failed";
    e.from = honest_id;
    e.to = honest_id;
    self->send(s.proxy, e);
    s.ledger->add("event of another agent");
    e.from = me;
    e.to = me;
    e.reason = std::string(2 * max_bytes, 'x');
    self->send(s.proxy, e);
    s.ledger->add("oversized");
  }
  // A delivery, as if it were the network.
  self->send(s.proxy, kickoff{}, virtual_time{0.0});
  s.ledger->add("delivery not from the network");
  // The other hostile id's proxy, with a message that would be valid from that id's agent.
  self->send(s.other_proxy, to_server(s.other_id, sealed_report(0, s.other_id, ok)));
  s.ledger->add("sender is not the joined agent");
  // Valid for the proxy, but for rounds the server never opened: rejected by the server.
  self->send(s.proxy, to_server(me, sealed_report(unopened_round_near, me, ok)));
  self->send(s.proxy, to_server(me, sealed_report(unopened_round_far, me, ok)));
  s.ledger->with([](Ledger& l) { l.unopened += 2; });
}

/// The attacks made at every broadcast: agent 0's report for the coming round, with a huge
/// vector, under its id (the envelope's or only the report's), and a fake observation of it.
void attack_at_broadcast(caf::event_based_actor* self, const HostileSettings& s, const broadcast& b) {
  const std::vector<double> huge(s.features, 50.0);
  self->send(s.proxy, to_server(honest_id, sealed_report(b.round + 1, honest_id, huge)));
  s.ledger->add("envelope not from its agent's id");
  self->send(s.proxy, to_server(s.id, sealed_report(b.round + 1, honest_id, huge)));
  s.ledger->add("report of another agent");
  observation_event o;
  o.agent = static_cast<std::int32_t>(honest_id);
  o.iteration = b.round + 1;
  o.x = {0.25};
  o.y = 1e9;
  self->send(s.proxy, o);
  s.ledger->add("observation of another agent");
}

caf::behavior hostile_agent(caf::event_based_actor* self, HostileSettings s) {
  return {
      [self, s](kickoff, virtual_time) {
        s.ledger->with([](Ledger& l) { ++l.kickoffs; });
        if (s.attack) attack_at_kickoff(self, s);
        return caf::ok_atom_v;  // answered after the attack: it reaches the proxy first
      },
      [self, s](const broadcast& b, virtual_time) {
        s.ledger->with([](Ledger& l) { ++l.broadcasts; });
        if (s.attack) attack_at_broadcast(self, s, b);
        return caf::ok_atom_v;
      },
      [](timer, virtual_time) { return caf::ok_atom_v; },
      [](crash_notice, virtual_time) { return caf::ok_atom_v; },
      [](recover_notice, virtual_time) { return caf::ok_atom_v; },
      [](caf::ok_atom) {},  // the proxy's answer to our fake delivery
  };
}

struct Outcome {
  fs::path dir;
  std::optional<RunResult> result;
  std::string error;
  std::string honest_error;
  std::shared_ptr<Ledger> ledger;
};

/// Called once ids 1-2 have joined, before agent 0 joins (and the run starts): the scoped
/// actor of node `a` and the proxies of ids 1-2.
using Before = std::function<void(caf::scoped_actor&, const std::vector<caf::actor>& proxies)>;

/// One served run: ids 1-2 joined by hand from node `a` with hostile (or silent) actors, id 0
/// from an honest process.
Outcome served_run(bool attack, const std::string& name, const Before& before = {}) {
  // Deadline policy: rounds close at their deadline without the hostile ids, which are presumed
  // dead after 2 missed rounds, so the run ends once agent 0 is done.
  const scenario::ScenarioConfig config =
      tiny({"world.agents=3", "policy.kind=deadline", "policy.deadline=1.0",
            "policy.dead_after_missed=2"});
  Outcome out;
  out.dir = test::fresh_dir("hostile-" + name);
  out.ledger = std::make_shared<Ledger>();
  ServeOptions serve;
  serve.join_timeout = 20;
  serve.max_message_bytes = max_bytes;
  ServedRun run(config, out.dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  {
    Node a;
    KillOnExit spawned;
    caf::scoped_actor self{a.sys};
    const caf::actor gk = a.connect(port);
    const std::vector<std::uint32_t> ids = {1, 2};
    auto c = ask<join_challenge>(self, gk, join_hello{ids});
    REQUIRE(c);
    auto w = ask<join_welcome>(self, gk, join_proof{ids, c.value->nonce, join_mac(secret, c.value->nonce, ids)});
    REQUIRE(w);
    REQUIRE(w.value->proxies.size() == 2);
    std::vector<caf::actor> hostile;
    for (int k = 0; k < 2; ++k) {
      HostileSettings h;
      h.id = ids[k];
      h.proxy = w.value->proxies[k];
      h.other_id = ids[1 - k];
      h.other_proxy = w.value->proxies[1 - k];
      h.features = config.algorithm.features;
      h.attack = attack;
      h.ledger = out.ledger;
      hostile.push_back(a.sys.spawn(hostile_agent, h));
    }
    spawned.actors = hostile;
    auto ok = ask<caf::ok_atom>(self, gk, join_agents{ids, hostile});
    REQUIRE(ok);
    if (attack) {
      // An actor of the joined node that is not the joined agent, with messages that would be
      // valid from the agent.
      self->send(w.value->proxies[0], to_server(1, sealed_report(0, 1, std::vector<double>(config.algorithm.features, 0.5))));
      out.ledger->add("sender is not the joined agent");
      observation_event o;
      o.agent = 1;
      o.x = {0.5};
      self->send(w.value->proxies[0], o);
      out.ledger->add("sender is not the joined agent");
    }
    if (before) before(self, w.value->proxies);
    HonestHost honest(port, {honest_id}, out.dir / "agents");
    REQUIRE(run.wait(30s));
    honest.join();
    out.honest_error = honest.error();
    out.result = run.result();
    out.error = run.error();
    if (!out.result) return out;  // the hostile actors are killed on the way out
    // The proxies stopped the hostile actors at the end of the run: wait for them (bounded).
    for (const auto& h : hostile) self->monitor(h);
    int down = 0;
    bool timed_out = false;
    self->receive_while([&] { return down < 2 && !timed_out; })(
        [&](caf::down_msg&) { ++down; },
        caf::after(std::chrono::seconds(10)) >> [&] { timed_out = true; });
    CHECK(down == 2);
  }
  return out;
}

std::vector<std::map<std::string, std::string>> rounds_of(const Outcome& o) {
  return test::read_table(o.dir / "run" / "rounds.csv");
}

}  // namespace

TEST_CASE("a hostile authenticated peer's bad messages are dropped, counted, and never aggregated",
          "[remote][security]") {
  const Outcome silent = served_run(false, "silent");
  const Outcome hostile = served_run(true, "attack");

  for (const Outcome* o : {&silent, &hostile}) {
    INFO(o->dir.string() << ": " << o->error);
    REQUIRE(o->result);
    CHECK(o->honest_error == "");
    CHECK(o->result->completed);
    CHECK(o->result->reason == "");
    REQUIRE(o->result->remote);
    CHECK(o->result->remote->joins == 2);
    CHECK(o->result->remote->refused.empty());
    CHECK(o->result->remote->lost.empty());
    // Each hostile actor was delivered the kickoff and broadcasts (the attacks did happen).
    CHECK(o->ledger->kickoffs == 2);
    CHECK(o->ledger->broadcasts >= 2 * 4);
  }
  const RemoteCounts& counts = *hostile.result->remote;
  CHECK(silent.result->remote->dropped.empty());

  // Every bad message was dropped under its reason, exactly as many as were sent.
  const auto sent = hostile.ledger->snapshot();
  CHECK(sent.size() == 19);  // every reason the proxy has for an envelope or record
  CHECK(counts.dropped == sent);

  // The rounds: the same aggregates, participants and selections with or without the attack;
  // only the server's rejections of the unopened-round reports differ (all in round 0).
  const auto rs = rounds_of(silent);
  const auto rh = rounds_of(hostile);
  REQUIRE(rs.size() >= 5);
  REQUIRE(rh.size() == rs.size());
  for (std::size_t k = 0; k < rs.size(); ++k) {
    CAPTURE(k);
    for (const auto& [column, value] : rs[k])
      if (column != "rejected") {
        CAPTURE(column);
        CHECK(rh[k].at(column) == value);
      }
    // Only agent 0 ever counted as a participant.
    CHECK(rh[k].at("participants") == "1");
    const int extra = std::stoi(rh[k].at("rejected")) - std::stoi(rs[k].at("rejected"));
    CHECK(extra == (k == 0 ? hostile.ledger->unopened : 0));
  }
  CHECK(hostile.ledger->unopened == 4);

  // Agent 0's observations are untouched, and nobody else has any.
  const std::string obs_silent = test::slurp(silent.dir / "run" / "observations.csv");
  const std::string obs_hostile = test::slurp(hostile.dir / "run" / "observations.csv");
  CHECK(obs_hostile == obs_silent);
  for (const auto& row : test::read_table(hostile.dir / "run" / "observations.csv"))
    CHECK(row.at("agent") == "0");

  // events.jsonl: the hostile ids' reports reached the network only for the unopened rounds
  // (a send, a deliver and the server's reject each); no dropped message left a trace, and
  // without those lines the two runs logged the same events.
  const auto ev_silent = test::read_lines(silent.dir / "run" / "events.jsonl");
  const auto ev_hostile = test::read_lines(hostile.dir / "run" / "events.jsonl");
  std::vector<std::string> hostile_reports, rest;
  for (const auto& line : ev_hostile) {
    const bool from_hostile = line.find("\"from\":1,") != std::string::npos ||
                              line.find("\"from\":2,") != std::string::npos;
    if (from_hostile && line.find("\"payload\":\"report\"") != std::string::npos)
      hostile_reports.push_back(line);
    else
      rest.push_back(line);
  }
  CHECK(rest == ev_silent);
  CHECK(lines_with(ev_silent, {"\"payload\":\"report\"", "\"from\":1,"}).empty());
  CHECK(lines_with(ev_silent, {"\"payload\":\"report\"", "\"from\":2,"}).empty());
  const auto sends = lines_with(hostile_reports, {"\"event\":\"send\""});
  const auto rejects = lines_with(hostile_reports, {"\"event\":\"reject\""});
  CHECK(sends.size() == 4);
  CHECK(rejects.size() == 4);
  CHECK(lines_with(rejects, {"unknown round"}).size() == 4);
  for (const auto& line : hostile_reports) {
    CAPTURE(line);
    CHECK((line.find("\"round\":1,") != std::string::npos ||
           line.find("\"round\":1000000,") != std::string::npos));
  }
  // Nothing claiming agent 0 came from anyone but agent 0's own process: agent 0's reports in
  // the two runs are the same lines (checked above with `rest == ev_silent`).
  CHECK(hostile.result->network.sent == silent.result->network.sent + 4);
}

// A proxy's handle is known to the authenticated node (join_welcome), so any actor of it may
// send the proxy an exit or an error message: the proxy obeys exit messages of this process
// only and drops (counts) the rest, and the run completes as if nothing had been sent.
namespace {

enum class Stop { exit, error, kill };

void stop_proxy_then_run(Stop how) {
  const char* name = how == Stop::exit ? "exit" : how == Stop::error ? "error" : "kill";
  CAPTURE(name);
  const Outcome o = served_run(false, std::string("proxy-") + name,
                               [how](caf::scoped_actor& self, const std::vector<caf::actor>& proxies) {
                                 // Not user_shutdown: the network ends the run at once on any
                                 // other reason, so the failing case cannot hang.
                                 const caf::error reason =
                                     caf::make_error(caf::sec::runtime_error, "hostile");
                                 switch (how) {
                                   case Stop::exit: self->send_exit(proxies[0], reason); break;
                                   case Stop::error: self->send(proxies[0], reason); break;
                                   case Stop::kill: self->send_exit(proxies[0], caf::exit_reason::kill); break;
                                 }
                               });
  CHECK(o.error == "");  // today: RunFailure "hostile" (the attacker's words), or "killed"
  CHECK(o.result.has_value());
  if (o.result) CHECK(o.result->completed);
}

}  // namespace

TEST_CASE("an authenticated peer cannot stop its proxy with an exit or error message",
          "[remote][security]") {
  stop_proxy_then_run(Stop::exit);
  stop_proxy_then_run(Stop::error);
}

// exit_reason::kill ends any CAF 0.17 actor whatever its exit handler, and the proxy's address
// is in every request it makes to its agent: an authenticated peer (it holds the secret) can
// end the run this way. What is promised is that the run then fails at once, loudly.
TEST_CASE("an authenticated peer that kills its proxy fails the run loudly", "[remote][security]") {
  const Outcome o = served_run(false, "proxy-kill",
                               [](caf::scoped_actor& self, const std::vector<caf::actor>& proxies) {
                                 self->send_exit(proxies[0], caf::exit_reason::kill);
                               });
  CHECK_FALSE(o.result.has_value());
  // The proxy's death (reason kill), or the delivery it could not answer, names agent 1.
  CHECK_THAT(o.error, Catch::Contains("kill") || Catch::Contains("agent 1: stopped before"));
}
