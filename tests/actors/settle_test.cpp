// Timers settled at once (virtual_time::settle in actors/messages.hpp, issue 15): an agent
// whose timer costs nothing, and would be its next delivery at this same time, finishes its
// evaluations at once instead of waiting for the timer to come back through its mailbox. The
// schedule must not change: every output file and every total of a run is the same, byte for
// byte, with settling on and off, on a perfect network (where every timer is settled), under
// async rounds with zero-time links (where the next broadcast arrives at the same instant),
// through duplicates, crashes and availability windows that fall on the instants of
// deliveries, for FTS and for Fed-PNE; and nothing is settled where a timer costs time. A
// member that settles without the network's leave fails the run.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "actors/checkpoint/checkpoint.hpp"
#include "actors/federation.hpp"
#include "actors/network.hpp"
#include "actors/outbox.hpp"
#include "scenarios/loader.hpp"
#include "tests/actors/result_line.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using fedsim::test::result_line;

namespace {

/// Every file a run wrote into `dir`, by name.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().filename().string()] = fedsim::test::slurp(e.path());
  return out;
}


/// Runs the scenario `text` with settling on and off (on `threads` scheduler threads) and
/// checks that both wrote the same files and report the same totals; returns how many timers
/// the run with settling settled.
std::uint64_t settled_alike(const std::string& name, const std::string& text, int threads = 2) {
  const scenario::ScenarioConfig c = scenario::load_scenario_text(text, name + ".toml").config;
  const fs::path dir = fedsim::test::fresh_dir("settle-" + name);
  RunResult results[2];
  for (int settle = 0; settle < 2; ++settle) {
    RunOptions o;
    o.out_dir = (dir / (settle ? "on" : "off")).string();
    o.threads = threads;
    o.settle_timers = settle == 1;
    results[settle] = run_federation(c, o);
  }
  INFO(name);
  CHECK(results[0].network.settled == 0);
  const auto off = files_of(dir / "off"), on = files_of(dir / "on");
  REQUIRE(off.size() >= 2);
  REQUIRE(off.count("observations.csv") + off.count("pulls.csv") == 1);
  CHECK(off.count("events.jsonl") == 1);
  for (const auto& [file, content] : off) {
    INFO(file);
    REQUIRE(on.count(file) == 1);
    CHECK(on.at(file) == content);
  }
  CHECK(on.size() == off.size());
  CHECK(result_line(results[1]) == result_line(results[0]));
  return results[1].network.settled;
}

/// A small DP-FTS-DE run logging every event; what follows it in a test's text goes under
/// [algorithm] until the next table.
const std::string tiny = R"(
name = "settle"
seed = 3
[world]
agents = 8
[world.objective]
grid_size = 200
[output]
events = "all"
[algorithm]
name = "dp-fts-de"
iterations = 5
n_init = 3
features = 10
subregions = 2
)";

/// Each round's broadcast reaches the agents in the wave in which the server's next deadline
/// fires.
const std::string deadline_on_arrival = R"(
[world.network]
compute = 0.0
uplink = 0.0
downlink = 0.25
[policy]
kind = "deadline"
deadline = 0.25
carry_late = true
)";

}  // namespace

TEST_CASE("settle: on a perfect network every timer is settled, and nothing changes",
          "[actors][settle]") {
  // 8 agents, one timer for the initial design and one per iteration.
  CHECK(settled_alike("perfect", tiny + "[policy]\nkind = \"sync\"\n") == 8 * (1 + 5));
  CHECK(settled_alike("perfect-1-thread", tiny + "[policy]\nkind = \"sync\"\n", 1) == 8 * 6);
}

TEST_CASE("settle: FTS's relayed messages, refreshed and one-shot", "[actors][settle]") {
  std::string fts = tiny;
  fts.replace(fts.find("dp-fts-de"), 9, "fts");
  CHECK(settled_alike("fts", fts + "[policy]\nkind = \"sync\"\n") == 8 * 6);
  CHECK(settled_alike("fts-one-shot", fts + "fts_one_shot = true\n[policy]\nkind = \"sync\"\n") ==
        8 * 6);
}

TEST_CASE("settle: async rounds on zero-time links, where broadcasts arrive at the same instant",
          "[actors][settle]") {
  // Every report reaches the server at the instant it is sent, and every broadcast the
  // agents at the instant it is released: an agent's next iteration must see a broadcast of
  // the same instant exactly when it did through its mailbox. Only a first timer per
  // delivery is settled, so some are not.
  const std::string text = tiny + R"(
[world.network]
compute = 0.0
uplink = 0.0
downlink = 0.0
[policy]
kind = "async"
async_every = 2
max_staleness = 3
)";
  const std::uint64_t settled = settled_alike("async-zero", text);
  CHECK(settled > 0);
  CHECK(settled < 8 * 6);
  CHECK(settled_alike("async-zero-1-thread", text, 1) == settled);
}

TEST_CASE("settle: duplicates, crashes and availability windows at the instants of deliveries",
          "[actors][settle]") {
  const fs::path dir = fedsim::test::fresh_dir("settle-availability");
  fs::create_directories(dir);
  // Agent 1 is away at t = 0 (its kickoff comes anyway: a system event) and agent 2 goes
  // away at the instant the first broadcast arrives (t = 0.2) until 0.5.
  std::ofstream(dir / "availability.csv") << "agent,start,end\n1,0.3,inf\n2,0,0.2\n2,0.5,inf\n";
  // Constant links: a duplicate arrives with its original. Crashes at t = 0.2 and 0.4,
  // instants at which broadcasts and reports arrive.
  const std::string text = tiny + R"(
[world.network]
compute = 0.0
uplink = 0.1
downlink = 0.1
duplicate = 0.5
drop = 0.1
availability_file = ")" + (dir / "availability.csv").string() + R"("
[[world.network.crashes]]
agents = [3]
time = 0.2
recover = 0.6
keep_state = false
[[world.network.crashes]]
agents = [4, 5]
time = 0.4
recover = 1.0
[policy]
kind = "deadline"
deadline = 0.3
)";
  CHECK(settled_alike("faults", text) > 0);
  CHECK(settled_alike("deadline-on-arrival", tiny + deadline_on_arrival) > 0);
}

TEST_CASE("settle: Fed-PNE clients settle the timers of their phases", "[actors][settle]") {
  const std::string text = R"(
name = "settle-fed-pne"
seed = 4
[world]
agents = 5
[world.objective]
kind = "garland"
[world.network]
uplink = 0.01
downlink = 0.01
[[world.network.crashes]]
agents = [2]
time = 0.02
recover = 0.1
[algorithm]
name = "fed-pne"
budget = 2000
[policy]
kind = "sync"
[output]
events = "all"
)";
  CHECK(settled_alike("fed-pne", text) > 0);
}

TEST_CASE("settle: nothing is settled when evaluations cost time", "[actors][settle]") {
  CHECK(settled_alike("compute", tiny + R"(
[world.network]
compute = 0.25
[policy]
kind = "sync"
)") == 0);
  // A slow group's speed factor times a zero compute time is still nothing.
  CHECK(settled_alike("slow-group", tiny + R"(
[world.network]
compute = { kind = "exponential", mean = 0.5 }
[[world.network.groups]]
agents = [0, 1, 2]
compute = 0.0
speed_factor = 4.0
[policy]
kind = "sync"
)") > 0);
}

TEST_CASE("settle: a timer is settled only with leave, by its own sender, without delay",
          "[actors][settle]") {
  Outbox box;
  const envelope timed{3, 3, 0.0, 0, caf::make_message(timer{0, 1, 1})};
  CHECK_FALSE(may_settle(box));
  CHECK_THROWS_AS(post_settled(box, timed), std::logic_error);
  box.settle_at = 2.5;
  CHECK_FALSE(may_settle(box));  // not collecting: a request, answered envelope by envelope
  box.collecting = true;
  REQUIRE(may_settle(box));
  envelope delayed = timed;
  delayed.delay = 0.5;
  CHECK_THROWS_AS(post_settled(box, delayed), std::logic_error);
  envelope other = timed;
  other.to = 4;
  CHECK_THROWS_AS(post_settled(box, other), std::logic_error);
  box.envelopes.push_back(envelope{3, server_node, 0.0, 8, caf::make_message(kickoff{})});
  post_settled(box, timed);
  CHECK(box.settled == 1);
  CHECK_FALSE(may_settle(box));  // one per handler
  CHECK_THROWS_AS(post_settled(box, timed), std::logic_error);
}

TEST_CASE("settle: the network fails the run when a member settles without leave",
          "[actors][settle]") {
  const scenario::ScenarioConfig c =
      scenario::load_scenario_text(tiny + "[policy]\nkind = \"sync\"\n", "rogue.toml").config;
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  // How the agents (or the server) misbehave on their kickoff, which gives each agent leave
  // (a perfect network) unless the network was told to give none.
  enum class Rogue { no_leave, to_another, after_answer, server_for_agent };
  for (const Rogue rogue :
       {Rogue::no_leave, Rogue::to_another, Rogue::after_answer, Rogue::server_for_agent}) {
    INFO("rogue kind " << static_cast<int>(rogue));
    const caf::actor network = system.spawn(network_actor, make_network_plan(c),
                                            CheckpointSettings{}, rogue != Rogue::no_leave);
    auto timed = [](node_id from, node_id to) {
      return envelope{from, to, 0.0, 0, caf::make_message(timer{0, 0, 0})};
    };
    // (The rogue actors take an unused argument: CAF 0.17 binds a function actor spawned
    // without one through a null shared_ptr<tuple<>>, which UBSan reports.)
    std::vector<caf::actor> agents;
    for (node_id n = 0; n < 8; ++n)
      agents.push_back(system.spawn([=](caf::event_based_actor* a, int) -> caf::behavior {
        return {[=](kickoff, virtual_time vt) {
          switch (rogue) {
            case Rogue::no_leave:  // settles although the delivery gave no leave
              a->send(network, outbox{{timed(n, n)}, true, 0});
              break;
            case Rogue::to_another:  // with leave, a "timer" to another agent
              a->send(network, outbox{{timed(n, (n + 1) % 8)}, true, 0});
              break;
            case Rogue::after_answer:  // answers, then settles outside the delivery
              CHECK(vt.settle);
              a->send(network, outbox{{}, true, -1});
              a->send(network, outbox{{timed(n, n)}, false, 0});
              break;
            case Rogue::server_for_agent:  // answers; the server settles for it
              a->send(network, outbox{{}, true, -1});
              break;
          }
        }};
      }, 0));
    const caf::actor server = system.spawn([=](caf::event_based_actor* a, int) -> caf::behavior {
      return {[=](kickoff, virtual_time) {
        if (rogue == Rogue::server_for_agent) a->send(network, outbox{{timed(0, 0)}, true, 0});
        else a->send(network, outbox{{}, true, -1});
      }};
    }, 0);
    self->send(network, caf::put_atom::value, agents, server, caf::actor{}, caf::actor{}, false,
               false, false);
    self->monitor(network);
    self->send(network, run_atom::value);
    std::string reason;
    self->receive_while([&] { return reason.empty(); })(
        [&](caf::down_msg& d) {  // (a network of an earlier kind goes down as it is stopped)
          if (d.source == network.address()) reason = caf::to_string(d.reason);
        },
        [&](caf::error& e) { reason = caf::to_string(e); },
        caf::after(std::chrono::seconds(20)) >> [&] { reason = "timeout"; });
    CHECK_THAT(reason, Catch::Contains("settled a timer without leave"));
    for (const auto& a : agents) self->send_exit(a, caf::exit_reason::user_shutdown);
    self->send_exit(server, caf::exit_reason::user_shutdown);
    self->send_exit(network, caf::exit_reason::user_shutdown);
  }
}

TEST_CASE("settle: no leave for a live view, which groups records by wave", "[actors][settle]") {
  const scenario::ScenarioConfig c =
      scenario::load_scenario_text(tiny + "[policy]\nkind = \"sync\"\n", "live.toml").config;
  const fs::path dir = fedsim::test::fresh_dir("settle-live");
  RunOptions o;
  o.out_dir = (dir / "quiet").string();
  CHECK(run_federation(c, o).network.settled == 8 * 6);
  int waves = 0;
  o.observer.wave = [&waves](double) { ++waves; };
  o.out_dir = (dir / "live").string();
  CHECK(run_federation(c, o).network.settled == 0);
  CHECK(waves > 12);
  CHECK(files_of(dir / "live") == files_of(dir / "quiet"));
}

TEST_CASE("settle: a run checkpointed with settled timers in its queue resumes to the same files",
          "[actors][settle][checkpoint]") {
  // The broadcast of each round reaches the agents after exactly one deadline, in the wave in
  // which the server's next deadline fires and closes a round: the checkpoint after it holds
  // the timers the agents settled in that wave, with the reports that ride on them (8 of
  // them in one of this run's checkpoints, counted when this test was written). The run is
  // stopped after every round's checkpoint and resumed, on alternating thread counts; the
  // first stop is an interrupt, raised before the run, at its first quiet moment.
  for (const char* algorithm : {"dp-fts-de", "fts"}) {
    std::string text = tiny + deadline_on_arrival;
    text.replace(text.find("dp-fts-de"), 9, algorithm);
    const scenario::ScenarioConfig c = scenario::load_scenario_text(text, "resume.toml").config;
    const fs::path dir = fedsim::test::fresh_dir(std::string("settle-resume-") + algorithm);
    RunOptions reference;
    reference.out_dir = (dir / "reference").string();
    const RunResult expected = run_federation(c, reference);
    REQUIRE(expected.network.settled > 0);
    std::atomic<int> flag{SIGTERM};
    std::optional<Checkpoint> from;
    int segments = 0;
    RunResult last;
    for (bool done = false; !done && segments < 100; ++segments) {
      RunOptions o;
      o.out_dir = (dir / "out").string();
      o.checkpoint_dir = (dir / "checkpoint").string();
      if (segments == 0) o.interrupt = &flag;
      o.checkpoint_every = 1;
      o.stop_after_checkpoints = 1;
      o.threads = 1 + segments % 2;
      if (from) o.resume = &*from;
      try {
        last = run_federation(c, o);
        done = true;
      } catch (const RunInterrupted& e) {
        CHECK(e.signal == (segments == 0 ? SIGTERM : 0));
        if (segments == 0) CHECK(e.rounds == 0);
        from = read_checkpoint(o.checkpoint_dir);
      }
    }
    INFO(algorithm << ": " << segments << " segments");
    CHECK(segments >= 6);
    REQUIRE(last.completed);
    const auto want = files_of(dir / "reference"), got = files_of(dir / "out");
    for (const auto& [file, content] : want) {
      INFO(file);
      REQUIRE(got.count(file) == 1);
      CHECK(got.at(file) == content);
    }
    CHECK(result_line(last) == result_line(expected));
  }
}
