// A server of one's own (RunOptions::server_host, actors/server_host.hpp) with fedsim's agents
// and network: the example's averaging server (examples/own-server/averaging_server.hpp) runs
// FTS-DE to completion and the agents use its broadcasts; a server that sends a broadcast of
// the wrong shape fails the run naming the agent; settings the seam cannot honour are refused.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "examples/own-server/averaging_server.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

scenario::ScenarioConfig fts_de(int agents, int iterations, int regions) {
  return scenario::load_scenario_text(
             "name = \"own-server\"\nseed = 3\n[world]\nagents = " + std::to_string(agents) +
                 "\n[world.objective]\ngrid_size = 200\n[algorithm]\nname = \"fts-de\"\n"
                 "iterations = " + std::to_string(iterations) + "\nn_init = 3\nfeatures = 20\n"
                 "subregions = " + std::to_string(regions) + "\n",
             "own-server.toml")
      .config;
}

}  // namespace

TEST_CASE("server_host: fedsim's agents run FTS-DE with the example's averaging server",
          "[actors][server-host]") {
  const auto c = fts_de(5, 6, 2);
  auto tally = std::make_shared<own_server::Tally>();
  RunOptions opt;
  opt.out_dir = test::fresh_dir("server-host").string();
  opt.threads = 2;
  int slots_seen = 0;
  opt.server_host = [&](const ServerSlots& s) {
    ++slots_seen;
    CHECK(s.agents == 5);
    CHECK(s.features == 20);
    CHECK(s.regions == 2);
    CHECK(s.iterations == 6);
    return s.network.home_system().spawn(own_server::averaging_server, s, tally, false);
  };
  const RunResult r = run_federation(c, opt);
  CHECK(slots_seen == 1);
  CHECK(r.completed);
  // Round 0 after the initial design, then one per iteration but the last (after it, agents
  // are done): T rounds of N reports each, none rejected.
  CHECK(tally->rounds_closed == 6);
  CHECK(tally->reports == 5 * 6);
  CHECK(tally->rejected == 0);
  // The agents took the federated branch with the server's broadcasts.
  const auto rows = test::read_table(fs::path(opt.out_dir) / "observations.csv");
  int federated = 0;
  for (const auto& row : rows) federated += row.at("branch") == "federated";
  CHECK(rows.size() == 5u * (3 + 6));
  CHECK(federated >= 1);
}

TEST_CASE("server_host: a broadcast of the wrong shape fails the run, naming the agent",
          "[actors][server-host]") {
  // The averaging server sends M x slots.regions; told P = 1 while the agents use P = 2, its
  // broadcast is 20 x 1 for agents that expect 20 x 2.
  const auto c = fts_de(3, 4, 2);
  auto tally = std::make_shared<own_server::Tally>();
  RunOptions opt;
  opt.out_dir = test::fresh_dir("server-host-shape").string();
  opt.threads = 2;
  opt.server_host = [&](ServerSlots s) {
    s.regions = 1;
    return s.network.home_system().spawn(own_server::averaging_server, s, tally, false);
  };
  try {
    run_federation(c, opt);
    FAIL("the run did not fail");
  } catch (const RunFailure& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("agent "));
    CHECK_THAT(std::string(e.what()), Catch::Contains("is 20 x 1"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("expected M x P = 20 x 2"));
  }
}

TEST_CASE("server_host: refused with a private algorithm, checkpoints, or no actor",
          "[actors][server-host]") {
  RunOptions opt;
  opt.out_dir = test::fresh_dir("server-host-refused").string();
  opt.server_host = [](const ServerSlots&) { return caf::actor{}; };
  CHECK_THROWS_WITH(run_federation(fts_de(3, 2, 1), opt),
                    Catch::Contains("RunOptions::server_host returned no actor"));
  auto c = fts_de(3, 2, 1);
  c.algorithm.algorithm = fbo::Algorithm::dp_fts_de;
  CHECK_THROWS_WITH(run_federation(c, opt), Catch::Contains("takes no private algorithm"));
  opt.checkpoint_dir = opt.out_dir + "/ckpt";
  CHECK_THROWS_WITH(run_federation(fts_de(3, 2, 1), opt), Catch::Contains("takes no checkpoint"));
}

namespace {

// Servers that break the protocol: one with no handler for reports (CAF answers such a delivery
// with an error), one that stops itself when the first report comes. Each takes an unused
// argument: CAF 0.17 binds a function actor spawned without one through a null
// shared_ptr<tuple<>>, which UBSan reports (CI's ASan job).
caf::behavior deaf_server(caf::event_based_actor*, int) {
  return {[](kickoff, virtual_time) { return caf::ok_atom_v; },
          [](const agent_done&, virtual_time) { return caf::ok_atom_v; }};
}

caf::behavior quitting_server(caf::event_based_actor* self, int) {
  return {[](kickoff, virtual_time) { return caf::ok_atom_v; },
          [self](const report&, virtual_time) { self->quit(); }};
}

/// Ends as it starts, before any delivery: with no behaviour, or with an exception.
caf::behavior gone_server(caf::event_based_actor*, int) { return {}; }
caf::behavior throwing_server(caf::event_based_actor*, int) {
  throw std::runtime_error("the server could not start");
}

std::string failure_of(const scenario::ScenarioConfig& c, RunOptions opt) {
  try {
    run_federation(c, opt);
  } catch (const RunFailure& e) {
    return e.what();
  }
  return "the run did not fail";
}

}  // namespace

TEST_CASE("server_host: a server that cannot handle a delivery, or stops, fails the run naming it",
          "[actors][server-host]") {
  const auto c = fts_de(3, 3, 1);
  RunOptions opt;
  opt.threads = 2;
  opt.out_dir = test::fresh_dir("server-host-deaf").string();
  opt.server_host = [](const ServerSlots& s) { return s.network.home_system().spawn(deaf_server, 0); };
  const std::string deaf = failure_of(c, opt);
  CHECK_THAT(deaf, Catch::Contains("server: answered a delivery with an error"));
  CHECK_THAT(deaf, Catch::Contains("unexpected_message"));
  opt.out_dir = test::fresh_dir("server-host-quits").string();
  opt.server_host = [](const ServerSlots& s) {
    return s.network.home_system().spawn(quitting_server, 0);
  };
  CHECK_THAT(failure_of(c, opt), Catch::Contains("server: stopped before the run ended"));
}

TEST_CASE("server_host: a server that is gone before the run starts fails the run at its start, naming it",
          "[actors][server-host][failure]") {
  // The network hears of the server's end before its (run_atom): the run must fail as it
  // starts, not deliver the kickoff to no one and wait for ever.
  const auto c = fts_de(3, 3, 1);
  for (int threads : {1, 2}) {
    RunOptions opt;
    opt.threads = threads;
    opt.out_dir = test::fresh_dir("server-host-gone").string();
    opt.server_host = [](const ServerSlots& s) {
      const caf::actor server = s.network.home_system().spawn(gone_server, 0);
      caf::scoped_actor wait{s.network.home_system()};
      wait->monitor(server);
      wait->receive([](caf::down_msg&) {});  // gone for sure before the run starts
      return server;
    };
    CHECK_THAT(failure_of(c, opt), Catch::Contains("server: stopped before the run ended"));
    opt.out_dir = test::fresh_dir("server-host-throws").string();
    opt.server_host = [](const ServerSlots& s) {
      const caf::actor server = s.network.home_system().spawn(throwing_server, 0);
      caf::scoped_actor wait{s.network.home_system()};
      wait->monitor(server);
      wait->receive([](caf::down_msg&) {});
      return server;
    };
    // CAF's default handler prints the exception's text and ends the actor with a bare
    // runtime_error: the network names the member it was.
    CHECK_THAT(failure_of(c, opt), Catch::StartsWith("server: ended with") &&
                                       Catch::Contains("runtime_error"));
  }
}

namespace {

// An FTS relay server that lists its sources out of agent order: on the first report of
// round 0 it relays two zero vectors "from" agents 1 and 0, in that order.
caf::behavior unordered_relay(caf::event_based_actor* self, ServerSlots slots) {
  auto sent = std::make_shared<bool>(false);
  return {[](kickoff, virtual_time) { return caf::ok_atom_v; },
          [self, slots, sent](const report&, virtual_time) {
            if (!*sent) {
              *sent = true;
              broadcast b;
              b.rows = slots.features;
              b.cols = 2;
              b.joint.data = std::make_shared<const std::vector<double>>(2 * slots.features, 0.0);
              b.sources.data = std::make_shared<const std::vector<std::int32_t>>(
                  std::vector<std::int32_t>{1, 0});
              const caf::message msg = caf::make_message(std::move(b));
              for (int n = 0; n < slots.agents; ++n)
                send_from_server(self, slots.network, static_cast<node_id>(n), msg, 16);
            }
            return caf::ok_atom_v;
          },
          [](const agent_done&, virtual_time) { return caf::ok_atom_v; },
          [](const timer&, virtual_time) { return caf::ok_atom_v; },
          [](caf::get_atom) { return std::string(); }};
}

}  // namespace

TEST_CASE("server_host: FTS sources out of agent order fail the run, naming the agent",
          "[actors][server-host]") {
  // P_N draws in agent order; a list in another order would change the draws silently.
  auto c = fts_de(3, 3, 1);
  c.algorithm.algorithm = fbo::Algorithm::fts;
  scenario::validate(c);
  RunOptions opt;
  opt.threads = 2;
  opt.out_dir = test::fresh_dir("server-host-unordered").string();
  opt.server_host = [](const ServerSlots& s) {
    return s.network.home_system().spawn(unordered_relay, s);
  };
  const std::string failure = failure_of(c, opt);
  CHECK_THAT(failure, Catch::Contains("agent "));
  CHECK_THAT(failure, Catch::Contains("not in strictly ascending agent order"));
}
