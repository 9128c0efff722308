// Join refusals of a served run (actors/remote/gatekeeper.hpp): a server on 127.0.0.1 with a
// shared RemoteStats; a second actor system (another node) drives the join protocol by hand
// with a scoped actor and checks that every bad hello, proof and hand-over is refused with an
// error naming the reason, counted in RemoteStats::refused under that reason, and changes
// nothing: legitimate agents then join and the run writes the records of a run in one process.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "tests/actors/remote/remote_test_support.hpp"
#include "tests/test_files.hpp"

using namespace fedsim;
using namespace fedsim::actors;
using namespace fedsim::actors::remote;
using namespace fedsim::test::remote;
using Catch::Contains;

namespace {

/// Expected refusal counts, kept next to the checks that cause them.
struct Refusals {
  std::map<std::string, std::int64_t> expected;
  /// Checks that `answer` is an error naming `reason` and that the server counted it.
  template <class T>
  void check(const ServedRun& run, const Asked<T>& answer, const std::string& reason) {
    CAPTURE(reason);
    REQUIRE_FALSE(answer);  // refused, not answered
    CHECK(answer.error != caf::sec::request_timeout);  // an answer, not silence
    CHECK_THAT(answer.text, Contains("join refused: " + reason));
    ++expected[reason];
    // The gatekeeper counts before it replies: the count is there once the error is.
    CHECK(run.counts().refused == expected);
  }
};

std::vector<std::uint8_t> mac_for(const join_challenge& c, const std::vector<std::uint32_t>& ids,
                                  const std::string& key = secret) {
  return join_mac(key, c.nonce, ids);
}

}  // namespace

TEST_CASE("the gatekeeper refuses bad joins, counts them by reason, and lets good ones in",
          "[remote][security]") {
  // N = 3 agents, sync policy: every round needs all three, so the run only completes if the
  // refusals below left the legitimate joins intact.
  const scenario::ScenarioConfig config = tiny({"world.agents=3"});
  const fs::path dir = test::fresh_dir("join-security");
  ServeOptions serve;
  serve.join_timeout = 20;  // bounds the test if the legitimate agents never get in
  std::vector<std::vector<std::uint32_t>> joined_groups;
  serve.on_join = [&](const std::vector<std::uint32_t>& ids, int, int) { joined_groups.push_back(ids); };
  ServedRun run(config, dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);

  Node a;  // the node that probes the gatekeeper, and later hosts agent 0
  Node b;  // a second node: a nonce is bound to the node it was given to
  KillOnExit spawned;
  caf::scoped_actor sa{a.sys};
  caf::scoped_actor sb{b.sys};
  const caf::actor gk_a = a.connect(port);
  const caf::actor gk_b = b.connect(port);
  Refusals r;

  // --- join_hello: ids it can never grant.
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{}}), "no ids");
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{3}}), "ids outside 0-2");
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{0, 3}}), "ids outside 0-2");
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{0xFFFFFFFFu}}), "ids outside 0-2");
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{1, 1}}), "ids not sorted and unique");
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{0, 2, 2}}), "ids not sorted and unique");
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{2, 1}}), "ids not sorted and unique");

  // --- join_proof: no secret, the wrong secret, a spent or foreign nonce, other ids.
  {
    auto c = ask<join_challenge>(sa, gk_a, join_hello{{0}});
    REQUIRE(c);
    CHECK(c.value->nonce.size() == nonce_bytes);
    // A process without the secret: no MAC at all.
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{0}, c.value->nonce, {}}), "wrong secret");
    // The nonce was spent by that wrong answer: the right MAC now finds it gone (one guess
    // per nonce, no online guessing against one challenge).
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{0}, c.value->nonce, mac_for(*c.value, {0})}),
            "unknown or spent nonce (a replay?)");
  }
  {
    auto c = ask<join_challenge>(sa, gk_a, join_hello{{0}});
    REQUIRE(c);
    r.check(run,
            ask<join_welcome>(sa, gk_a, join_proof{{0}, c.value->nonce,
                                                   mac_for(*c.value, {0}, "another secret, 16+ bytes")}),
            "wrong secret");
  }
  {
    auto c = ask<join_challenge>(sa, gk_a, join_hello{{0}});
    REQUIRE(c);
    auto mac = mac_for(*c.value, {0});
    mac.pop_back();  // a truncated MAC
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{0}, c.value->nonce, mac}), "wrong secret");
  }
  {
    // A MAC over the right secret but the MAC of another id list than the one proposed.
    auto c = ask<join_challenge>(sa, gk_a, join_hello{{0}});
    REQUIRE(c);
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{0}, c.value->nonce, mac_for(*c.value, {1})}),
            "wrong secret");
  }
  {
    // A nonce the server never issued, with the right MAC for it.
    const auto forged = make_nonce();
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{0}, forged, join_mac(secret, forged, {0})}),
            "unknown or spent nonce (a replay?)");
  }
  {
    // The challenge was for {0}; the answer (with a valid MAC) claims {1}.
    auto c = ask<join_challenge>(sa, gk_a, join_hello{{0}});
    REQUIRE(c);
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{1}, c.value->nonce, mac_for(*c.value, {1})}),
            "answer to another node's or other ids' challenge");
  }
  {
    // Node b's challenge answered (correctly) from node a: bound to b, refused; and spent, so
    // b's own answer then finds it gone.
    auto c = ask<join_challenge>(sb, gk_b, join_hello{{1}});
    REQUIRE(c);
    r.check(run, ask<join_welcome>(sa, gk_a, join_proof{{1}, c.value->nonce, mac_for(*c.value, {1})}),
            "answer to another node's or other ids' challenge");
    r.check(run, ask<join_welcome>(sb, gk_b, join_proof{{1}, c.value->nonce, mac_for(*c.value, {1})}),
            "unknown or spent nonce (a replay?)");
  }
  // Nothing so far was granted: a hand-over for an id is still refused.
  {
    // (An unused argument: CAF 0.17 binds a function actor spawned without one through a null
    // shared_ptr<tuple<>>, which UBSan reports.)
    const caf::actor dummy = a.sys.spawn([](int) { return caf::behavior{[](int) {}}; }, 0);
    spawned.actors.push_back(dummy);
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, {dummy}}),
            "agents for ids this node was not granted");
  }

  // --- A legitimate proof for id 0 from node a, then the same proof replayed.
  join_welcome welcome;
  {
    auto c = ask<join_challenge>(sa, gk_a, join_hello{{0}});
    REQUIRE(c);
    const join_proof proof{{0}, c.value->nonce, mac_for(*c.value, {0})};
    auto w = ask<join_welcome>(sa, gk_a, proof);
    REQUIRE(w);
    welcome = *w.value;
    REQUIRE(welcome.proxies.size() == 1);
    CHECK(welcome.proxies[0]);
    CHECK(welcome.proxies[0].node() != a.sys.node());
    CHECK_THAT(welcome.scenario, Contains("agents = 3"));
    // The replay: the very same message again, from the very same node.
    r.check(run, ask<join_welcome>(sa, gk_a, proof), "unknown or spent nonce (a replay?)");
    // ... and from another node.
    r.check(run, ask<join_welcome>(sb, gk_b, proof), "unknown or spent nonce (a replay?)");
  }

  // --- Ids already taken (by node a's proof above), from either node.
  r.check(run, ask<join_challenge>(sa, gk_a, join_hello{{0}}), "id 0 already taken");
  r.check(run, ask<join_challenge>(sb, gk_b, join_hello{{0, 1}}), "id 0 already taken");
  r.check(run, ask<join_challenge>(sb, gk_b, join_hello{{0, 1, 2}}), "id 0 already taken");
  {
    // Node b asks for {1} (free) and, with a nonce in hand, answers with a valid MAC for {0}
    // (node a's): an answer must be for the ids of its own challenge.
    auto c = ask<join_challenge>(sb, gk_b, join_hello{{1}});
    REQUIRE(c);
    r.check(run, ask<join_welcome>(sb, gk_b, join_proof{{0}, c.value->nonce, mac_for(*c.value, {0})}),
            "answer to another node's or other ids' challenge");
  }

  // --- join_agents: ids never granted to the sender's node, a wrong count, foreign agents.
  const std::vector<caf::actor> agents = spawn_real_agents(a.sys, welcome, {0}, dir / "agents-a");
  spawned.actors.insert(spawned.actors.end(), agents.begin(), agents.end());
  {
    const caf::actor dummy_b = b.sys.spawn([](int) { return caf::behavior{[](int) {}}; }, 0);
    spawned.actors.push_back(dummy_b);
    // Node a holds id 0 only.
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{1}, {agents[0]}}),
            "agents for ids this node was not granted");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0, 1}, {agents[0], agents[0]}}),
            "agents for ids this node was not granted");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{7}, {agents[0]}}),
            "agents for ids this node was not granted");
    // Node b holds nothing, id 0 is node a's.
    r.check(run, ask<caf::ok_atom>(sb, gk_b, join_agents{{0}, {dummy_b}}),
            "agents for ids this node was not granted");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{}, {}}), "not one agent per id");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, {}}), "not one agent per id");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, {agents[0], agents[0]}}),
            "not one agent per id");
    // An agent that is not of node a: none at all, or the server's own proxy (which would wire
    // the proxy to itself).
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, {caf::actor{}}}),
            "an agent not of the joining node");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, {welcome.proxies[0]}}),
            "an agent not of the joining node");
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, {gk_a}}),
            "an agent not of the joining node");
  }
  CHECK(run.counts().joins == 0);

  // --- The legitimate hand-over, then the same again (the id has its agent now).
  {
    auto ok = ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, agents});
    REQUIRE(ok);
    CHECK(run.counts().joins == 1);
    r.check(run, ask<caf::ok_atom>(sa, gk_a, join_agents{{0}, agents}),
            "agents for ids this node was not granted");
    CHECK(run.counts().joins == 1);
  }
  const std::map<std::string, std::int64_t> refused_before_run = r.expected;

  // --- Ids 1-2 from an honest process with the right secret: the run starts and completes.
  {
    HonestHost honest(port, {1, 2}, dir / "agents-h");
    REQUIRE(run.wait(30s));
    honest.join();
    CHECK(honest.error() == "");
  }
  INFO(run.error());
  REQUIRE(run.result());
  const RunResult& result = *run.result();
  CHECK(result.completed);
  CHECK(result.reason == "");
  // T = 5 iterations: the curve has T + 1 points; every learner observed something.
  CHECK(result.mean_simple_regret.size() == static_cast<std::size_t>(config.algorithm.iterations) + 1);
  CHECK(result.agents_without_observations == 0);
  CHECK(result.network.dropped == 0);
  REQUIRE(result.remote);
  CHECK(result.remote->joins == 2);
  CHECK(result.remote->refused == refused_before_run);
  CHECK(result.remote->dropped.empty());
  CHECK(result.remote->lost.empty());
  CHECK(result.remote->rejoined.empty());
  REQUIRE(joined_groups.size() == 2);
  CHECK(joined_groups[0] == std::vector<std::uint32_t>{0});
  CHECK(joined_groups[1] == std::vector<std::uint32_t>{1, 2});

  // Rounds happened, each with all three agents (sync): nothing refused took a place.
  const auto rounds = test::read_table(dir / "run" / "rounds.csv");
  REQUIRE(rounds.size() == static_cast<std::size_t>(config.algorithm.iterations));
  for (const auto& row : rounds) {
    CAPTURE(row.at("round"));
    CHECK(row.at("participants") == "3");
    CHECK(row.at("rejected") == "0");
  }
  // Every agent observed: n_init + T queries each.
  const auto observations = test::read_table(dir / "run" / "observations.csv");
  std::map<std::string, int> per_agent;
  for (const auto& row : observations) ++per_agent[row.at("agent")];
  CHECK(per_agent == std::map<std::string, int>{{"0", 8}, {"1", 8}, {"2", 8}});

  // And the records are those of the same scenario run in one process, byte for byte: the
  // refused attempts left no trace in the run.
  RunOptions local;
  local.out_dir = (dir / "local").string();
  local.threads = 2;
  run_federation(config, local);
  for (const char* file : {"rounds.csv", "observations.csv", "events.jsonl"}) {
    CAPTURE(file);
    CHECK(test::slurp(dir / "run" / file) == test::slurp(dir / "local" / file));
  }
}

// The gatekeeper is reachable by anyone who can open a TCP connection to the server, before
// any authentication, and BASP delivers exit and error messages from a remote node like any
// other message (CAF's defaults end an actor on either). Its exit handler obeys only this
// process and its error handler refuses what a peer sends, so the join goes on.
namespace {

enum class Intrusion { exit, error, kill };

const char* name_of(Intrusion i) {
  return i == Intrusion::exit ? "exit" : i == Intrusion::error ? "error" : "kill";
}

/// A peer that never authenticates sends the gatekeeper one message of kind `how`; then an
/// honest process joins every id. Checks that the gatekeeper still answers and the run completes.
void intruder_then_honest(Intrusion how) {
  CAPTURE(name_of(how));
  const scenario::ScenarioConfig config = tiny({"world.agents=2"});
  const fs::path dir = test::fresh_dir(std::string("join-intruder-") + name_of(how));
  ServeOptions serve;
  serve.join_timeout = 5;  // the bound of the failing case
  ServedRun run(config, dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  {
    Node intruder;
    caf::scoped_actor si{intruder.sys};
    const caf::actor gk = intruder.connect(port);
    const caf::error reason = caf::make_error(caf::sec::runtime_error, "intruder");
    switch (how) {
      case Intrusion::exit: si->send_exit(gk, reason); break;
      case Intrusion::error: si->send(gk, reason); break;
      case Intrusion::kill: si->send_exit(gk, caf::exit_reason::kill); break;
    }
    // The same sender's next message arrives after it: the gatekeeper must still answer.
    auto c = ask_within<join_challenge>(si, 3s, gk, join_hello{{0}});
    CHECK(c);
    CHECK(c.text == "");
    if (!c) {
      // The bug: no process can join now. Wait for serve to give up (its join timeout)
      // instead of running an honest host into its own, longer, timeouts.
      REQUIRE(run.wait(30s));
      CHECK(run.error() == "");
      return;
    }
  }
  HonestHost honest(port, {0, 1}, dir / "agents");
  REQUIRE(run.wait(30s));
  honest.join();
  CHECK(honest.error() == "");
  CHECK(run.error() == "");
  CHECK(run.result());
}

}  // namespace

TEST_CASE("an unauthenticated peer cannot stop the gatekeeper with an exit or error message",
          "[remote][security]") {
  intruder_then_honest(Intrusion::exit);
  intruder_then_honest(Intrusion::error);
}

// exit_reason::kill ends a CAF 0.17 actor before any exit handler runs: serve gives up at once,
// naming the cause and the remedy (TLS, so that only certificate holders can connect).
TEST_CASE("a peer that kills the gatekeeper makes serve fail at once, saying so",
          "[remote][security]") {
  const scenario::ScenarioConfig config = tiny({"world.agents=2"});
  const fs::path dir = test::fresh_dir("join-intruder-kill");
  ServeOptions serve;
  serve.join_timeout = 30;  // giving up must not wait for it
  ServedRun run(config, dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  Node intruder;
  caf::scoped_actor si{intruder.sys};
  const caf::actor gk = intruder.connect(port);
  si->send_exit(gk, caf::exit_reason::kill);
  REQUIRE(run.wait(10s));
  CHECK_THAT(run.error(), Catch::Contains("the gatekeeper was stopped before every agent joined"));
  CHECK_THAT(run.error(), Catch::Contains("use TLS"));
}
