// fedbuff: buffered asynchronous aggregation (one file, actors/policy/fedbuff.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "actors/integrity.hpp"
#include "actors/policy/keys.hpp"
#include "actors/policy/liveness.hpp"
#include "actors/policy/registry.hpp"
#include "actors/recorder.hpp"
#include "actors/server.hpp"
#include "scenarios/loader.hpp"
#include "tests/actors/fedbuff_server.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using policy::Verdict;

TEST_CASE("fedbuff: buffers every report and is complete at exactly K", "[policy][fedbuff]") {
  scenario::PolicyConfig c;
  c.kind = scenario::PolicyConfig::Kind::fedbuff;
  CHECK(c.buffer_size == 10);  // the default
  c.buffer_size = 4;
  const auto p = policy::make_round_policy(c);
  CHECK(policy::name_of(c.kind) == "fedbuff");
  CHECK(p->on_report(0, 0, false) == Verdict::buffer);
  CHECK(p->on_report(0, 0, true) == Verdict::buffer);  // several from one agent
  CHECK(p->on_report(0, 9, true) == Verdict::buffer);  // never late
  for (int arrivals = 0; arrivals < 4; ++arrivals)
    CHECK_FALSE(p->complete(policy::Tally{20, 20, arrivals, false, arrivals}));
  CHECK(p->complete(policy::Tally{20, 20, 1, false, 4}));   // 4 reports of one agent
  CHECK_FALSE(p->complete(policy::Tally{20, 0, 3, true, 3}));  // never before K
  for (int s : {0, 1, 3, 8, 1000}) CHECK(*p->weight(s) == 1.0 / std::sqrt(1.0 + s));
  CHECK_FALSE(p->agents_wait());
  CHECK_FALSE(std::isfinite(p->round_wait()));
  CHECK(p->arrivals_field() == &scenario::PolicyConfig::buffer_size);
  CHECK(p->round_wait_field() == nullptr);
  CHECK(p->period() == 0.0);
  CHECK(p->supports(policy::Family::fbo));
  CHECK_FALSE(p->supports(policy::Family::xarmed));
}

TEST_CASE("fedbuff: the server aggregates every K arrivals, summing an agent's weighted reports",
          "[actors][fedbuff]") {
  // FTS-DE without privacy, P = 1, q = 1: the aggregate is sum_n phi_n omega_n with every
  // phi_n = 1/3, and omega_n is the sum of agent n's buffered reports, each weighted by
  // 1/sqrt(1 + s).
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system system{cfg};
  caf::scoped_actor network{system};  // stands in for the network: receives what the server sends
  const auto shared = fedsim::test::fedbuff_server(system, network, 3, "fedbuff-server");
  const caf::actor server = system.spawn(server_actor, shared);

  auto deliver = [&](caf::message m, double t) {
    network->request(server, caf::infinite, m + caf::make_message(virtual_time{t}))
        .receive([](caf::ok_atom) {}, [](caf::error&) { FAIL("the server failed"); });
  };
  auto send_report = [&](std::int32_t round, node_id agent, std::vector<double> omega, double t) {
    report r{round, agent, std::move(omega)};
    seal(r);  // as an agent does: the server rejects a report that is not intact
    deliver(caf::make_message(std::move(r)), t);
  };
  // The broadcasts the server sent since the last call (one per agent per aggregation).
  auto broadcasts = [&] {
    std::vector<broadcast> out;
    bool more = true;
    while (more)
      network->receive(
          [&](envelope& e) {
            if (e.payload.match_elements<broadcast>()) out.push_back(e.payload.get_as<broadcast>(0));
          },
          caf::after(std::chrono::milliseconds(10)) >> [&] { more = false; });
    return out;
  };

  deliver(caf::make_message(kickoff{}), 0.0);
  send_report(0, 0, {1.0, 0.0}, 1.0);
  send_report(0, 1, {0.0, 2.0}, 1.1);
  send_report(5, 0, {9.0, 9.0}, 1.15);  // a round not reached yet: rejected, not buffered
  send_report(0, 7, {9.0, 9.0}, 1.16);  // not a member: rejected
  CHECK(broadcasts().empty());          // 2 valid reports < K = 3
  send_report(0, 0, {3.0, 0.0}, 1.2);   // agent 0 again: the third report
  auto b = broadcasts();
  REQUIRE(b.size() == 3);  // one per agent
  CHECK(b[0].round == 0);
  REQUIRE(b[0].joint.size() == 2);
  // Round 0, staleness 0: (1/3) ((1, 0) + (3, 0) + (0, 2)).
  CHECK(b[0].joint.begin()[0] == Approx(4.0 / 3.0).epsilon(1e-12));
  CHECK(b[0].joint.begin()[1] == Approx(2.0 / 3.0).epsilon(1e-12));

  send_report(0, 2, {2.0, 2.0}, 2.0);  // one round stale: weight 1/sqrt(2)
  send_report(1, 1, {1.0, 1.0}, 2.1);  // fresh: weight 1
  CHECK(broadcasts().empty());
  send_report(0, 1, {0.0, 4.0}, 2.2);  // one round stale
  b = broadcasts();
  REQUIRE(b.size() == 3);
  CHECK(b[0].round == 1);
  const double r = 1.0 / std::sqrt(2.0);
  // (1/3) (agent 1: (1, 1) + r (0, 4); agent 2: r (2, 2)).
  CHECK(b[0].joint.begin()[0] == Approx((1.0 + 2.0 * r) / 3.0).epsilon(1e-12));
  CHECK(b[0].joint.begin()[1] == Approx((1.0 + 4.0 * r + 2.0 * r) / 3.0).epsilon(1e-12));
  network->send_exit(server, caf::exit_reason::user_shutdown);
  network->send_exit(shared->recorder, caf::exit_reason::user_shutdown);
}

TEST_CASE("fedbuff: a whole run aggregates once per K delivered reports", "[actors][fedbuff]") {
  const int K = 4;
  const auto c = scenario::load_scenario(
      (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string(),
      {"policy.kind=fedbuff", "policy.buffer_size=" + std::to_string(K),
       "world.network.compute={kind=\"exponential\",mean=1.0}"});
  const fs::path dir = fedsim::test::fresh_dir("fedbuff-run");
  RunOptions opt;
  opt.out_dir = dir.string();
  opt.threads = 2;
  const RunResult result = run_federation(c, opt);
  CHECK(result.completed);
  const auto rounds = fedsim::test::read_table(dir / "rounds.csv");
  REQUIRE(rounds.size() > 3);
  for (const auto& row : rounds) {
    CHECK(std::stoi(row.at("participants")) <= K);  // K reports, from at most K agents
    CHECK(std::stoi(row.at("late")) == 0);
    CHECK(std::stoi(row.at("dropped")) == 0);
  }
  // Reports delivered to the server (node -1): exactly K per aggregation, fewer than K left.
  std::ifstream events(dir / "events.jsonl");
  int delivered = 0;
  for (std::string line; std::getline(events, line);)
    if (line.find("\"event\":\"deliver\"") != std::string::npos &&
        line.find("\"to\":-1") != std::string::npos &&
        line.find("\"payload\":\"report\"") != std::string::npos)
      ++delivered;
  const int aggregations = static_cast<int>(rounds.size());
  CHECK(delivered >= K * aggregations);
  CHECK(delivered < K * (aggregations + 1));
  // Agents never wait: every agent runs its n_init + T evaluations.
  const auto observations = fedsim::test::read_table(dir / "observations.csv");
  CHECK(observations.size() ==
        static_cast<std::size_t>(c.world.agents * (c.algorithm.n_init + c.algorithm.iterations)));
}

TEST_CASE("fedbuff: policy.buffer_size is read, validated and written back", "[fedbuff]") {
  const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
  const auto c = scenario::load_scenario(tiny, {"policy.kind=fedbuff", "policy.buffer_size=7"});
  CHECK(c.policy.kind == scenario::PolicyConfig::Kind::fedbuff);
  CHECK(c.policy.buffer_size == 7);
  const std::string resolved = scenario::to_toml(c);
  CHECK(resolved.find("kind = \"fedbuff\"") != std::string::npos);
  CHECK(resolved.find("buffer_size = 7") != std::string::npos);
  CHECK_THROWS_WITH(scenario::load_scenario(tiny, {"policy.buffer_size=0"}),
                    Catch::Contains("key 'policy.buffer_size': must be an integer >= 1"));
  CHECK_THROWS_WITH(scenario::load_scenario((fs::path(FEDSIM_SCENARIO_DIR) / "xarmed/garland.toml").string(),
                                            {"policy.kind=fedbuff"}),
                    Catch::Contains("'fedbuff' is not supported by fed-pne (allowed: sync, deadline)"));
}

TEST_CASE("fedbuff: a buffer larger than the run's reports is warned of, and the run says it "
          "aggregated nothing", "[actors][fedbuff][policy]") {
  const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
  // tiny: 8 agents, T = 5: a report after the initial design and after iterations 1..4 each.
  const auto at = [&](int k, std::vector<std::string> more = {}) {
    more.insert(more.begin(), {"policy.kind=fedbuff", "policy.buffer_size=" + std::to_string(k)});
    return scenario::load_scenario(tiny, more);
  };
  CHECK(policy::max_reports(at(1)) == 8 * 5);
  CHECK(policy::liveness_warnings(at(40)).empty());
  const auto w = policy::liveness_warnings(at(41));
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("policy.buffer_size = 41 can never aggregate") != std::string::npos);
  CHECK(w[0].find("at most 40 reports") != std::string::npos);
  CHECK(w[0].find("Set policy.buffer_size <= 40.") != std::string::npos);
  // ts sends nothing (nothing to aggregate under any policy); sync has no buffer.
  CHECK(policy::max_reports(at(41, {"algorithm.name=ts"})) == 0);
  CHECK(policy::liveness_warnings(at(41, {"algorithm.name=ts"})).empty());
  CHECK(policy::liveness_warnings(at(41, {"policy.kind=sync"})).empty());
  // FTS's target setting: the target's T reports and one message from each of the 7 peers.
  const auto peers = at(13, {"algorithm.name=fts", "world.peer_observations=3", "algorithm.fts_one_shot=true"});
  CHECK(policy::max_reports(peers) == 5 + 7);
  REQUIRE(policy::liveness_warnings(peers).size() == 1);
  CHECK(policy::liveness_warnings(peers)[0].find("one from each of the 7 peers") != std::string::npos);
  CHECK(policy::liveness_warnings(at(12, {"algorithm.name=fts", "world.peer_observations=3", "algorithm.fts_one_shot=true"})).empty());
  // The X-armed family has no buffer (fedbuff is refused there): never counted.
  CHECK(policy::max_reports(scenario::load_scenario(
            (fs::path(FEDSIM_SCENARIO_DIR) / "xarmed/garland.toml").string())) == 0);

  // The bound is exact: at 40 the run aggregates once, at 41 never. The run still completes
  // (every agent made its T iterations), and its files say that nothing was aggregated.
  for (const int k : {40, 41}) {
    INFO("K = " << k);
    const fs::path dir = fedsim::test::fresh_dir("fedbuff-unfilled-" + std::to_string(k));
    RunOptions opt;
    opt.out_dir = dir.string();
    opt.threads = 2;
    const RunResult result = run_federation(at(k), opt);
    CHECK(result.completed);
    CHECK(result.reason.empty());
    CHECK(fedsim::test::read_table(dir / "rounds.csv").size() == (k == 40 ? 1u : 0u));
    CHECK(result.releases == (k == 40 ? 1 : 0));  // dp-fts-de: no release, no privacy spent
    if (k == 41) CHECK(result.epsilon == 0.0);
  }
}

TEST_CASE("policy keys are named from the member a policy reads, as the schema declares them",
          "[policy][schema]") {
  using scenario::PolicyConfig;
  CHECK(policy::keys::of(&PolicyConfig::round_timeout) == "policy.round_timeout");
  CHECK(policy::keys::of(&PolicyConfig::deadline) == "policy.deadline");
  CHECK(policy::keys::of(&PolicyConfig::buffer_size) == "policy.buffer_size");
  CHECK_THROWS_AS(policy::keys::of(&PolicyConfig::async_every), std::logic_error);  // not named
  // Every registered policy's wait or count names a key the loader reads back (the schema
  // declares these fields with the same names), and a value it checks under that key.
  for (const auto kind : {PolicyConfig::Kind::sync, PolicyConfig::Kind::deadline,
                          PolicyConfig::Kind::quorum, PolicyConfig::Kind::async,
                          PolicyConfig::Kind::fedbuff}) {
    PolicyConfig c;
    c.kind = kind;
    const auto p = policy::make_round_policy(c);
    for (const std::string& key :
         {p->round_wait_field() ? policy::keys::of(p->round_wait_field()) : std::string(),
          p->arrivals_field() ? policy::keys::of(p->arrivals_field()) : std::string()}) {
      if (key.empty()) continue;
      INFO(key);
      const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
      CHECK_NOTHROW(scenario::load_scenario(tiny, {key + "=3"}));
      CHECK_THROWS_WITH(scenario::load_scenario(tiny, {key + "=0"}),
                        Catch::Contains("key '" + key + "'"));
    }
  }
}
