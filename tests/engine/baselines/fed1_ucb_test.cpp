// Fed1-UCB (engine/baselines/fed1_ucb*): f(p) pulls of every active arm per client and phase,
// elimination by B = sqrt(4 sigma^2 ln T / (M n)) on the clients' mean, payloads and their
// checks, state and restore, and the reference loop's bookkeeping.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <stdexcept>

#include "engine/baselines/fed1_ucb.hpp"
#include "engine/baselines/fed1_ucb_run.hpp"
#include "test_problems.hpp"

using namespace fedsim;
using namespace fedsim::baselines;

namespace {

Fed1UcbParams params(int clients, std::int64_t budget, int k) {
  Fed1UcbParams p;
  p.clients = clients;
  p.budget = budget;
  p.arms_per_dim = k;
  return p;
}

std::vector<double> offsets(int m) {
  std::vector<double> out;
  for (int i = 0; i < m; ++i) out.push_back(0.3 * i - 0.5);
  return out;
}

}  // namespace

TEST_CASE("fed1-ucb: bad parameters are refused naming the parameter", "[baselines][fed1-ucb]") {
  auto refused = [](auto change, const char* name) {
    Fed1UcbParams p;
    change(p);
    CHECK_THROWS_WITH(p.validate(), Catch::Contains(name));
  };
  refused([](Fed1UcbParams& p) { p.arms_per_dim = 0; }, "arms_per_dim");
  refused([](Fed1UcbParams& p) { p.kappa = 0.0; }, "kappa");
  refused([](Fed1UcbParams& p) { p.kappa = std::nan(""); }, "kappa");
  refused([](Fed1UcbParams& p) { p.sigma = -1.0; }, "sigma");
  refused([](Fed1UcbParams& p) { p.budget = 0; }, "budget");
  refused([](Fed1UcbParams& p) { p.budget = 1000000001; }, "budget");
  refused([](Fed1UcbParams& p) { p.clients = 0; }, "clients");
  CHECK_NOTHROW(Fed1UcbParams{}.validate());
  CHECK_THROWS_WITH(Fed1UcbServer(params(0, 10, 3), 3), Catch::Contains("clients"));
}

TEST_CASE("fed1-ucb: f(p) = floor(kappa ln T) (at least 1) and B by hand",
          "[baselines][fed1-ucb]") {
  Fed1UcbParams p;  // kappa = 1, T = 1e4: ln T = 9.21
  CHECK(p.phase_length(1) == 9);
  CHECK(p.phase_length(7) == 9);
  p.kappa = 10.0;  // the original code's
  CHECK(p.phase_length(1) == 92);
  p.kappa = 0.01;
  CHECK(p.phase_length(1) == 1);
  p.budget = 1;  // ln 1 = 0
  CHECK(p.phase_length(1) == 1);
  p = Fed1UcbParams{};
  CHECK(p.confidence_width(18, 10) ==
        Approx(std::sqrt(4 * 0.25 * std::log(1e4) / (10.0 * 18.0))).epsilon(1e-15));
}

TEST_CASE("fed1-ucb client: each active arm f(p) times in a row, means over all phases",
          "[baselines][fed1-ucb]") {
  Fed1UcbClient c(2, 6);
  c.start_phase({1, 3, {1, 3, 4}});
  std::vector<std::int64_t> seen;
  double r = 0.0;
  while (!c.phase_done()) {
    seen.push_back(c.next_arm());
    c.observe(r += 1.0);
  }
  CHECK(seen == std::vector<std::int64_t>{1, 1, 1, 3, 3, 3, 4, 4, 4});
  CHECK(c.report() == std::vector<double>{2.0, 5.0, 8.0});
  CHECK_THROWS_AS(c.next_arm(), std::logic_error);
  c.start_phase({2, 2, {3, 4}});
  CHECK_THROWS_AS(c.report(), std::logic_error);
  c.observe(10.0);
  c.observe(10.0);
  c.observe(0.0);
  c.observe(0.0);
  CHECK(c.pulls(3) == 5);
  CHECK(c.report() == std::vector<double>{(4 + 5 + 6 + 20) / 5.0, (7 + 8 + 9) / 5.0});
  CHECK_THROWS_AS(c.start_phase({2, 2, {3}}), std::invalid_argument);  // not after phase 2
  CHECK_THROWS_AS(c.start_phase({3, 2, {6}}), std::invalid_argument);  // arm outside
}

TEST_CASE("fed1-ucb run: every active arm is pulled f(p) times per client in every phase",
          "[baselines][fed1-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.37), offsets(4), 0.1);
  Fed1UcbRunConfig cfg;
  cfg.params = params(4, 3000, 12);
  cfg.seed = 5;
  const auto r = run_fed1_ucb(cfg, problem);
  REQUIRE(r.pulls.size() == 4u * 3000u);
  const std::int64_t f = cfg.params.phase_length(1);
  REQUIRE(f == 8);
  std::int64_t completed = 0;
  for (const auto& ph : r.phases) {
    // (client, arm) -> pulls in the phase
    std::map<std::pair<int, std::int64_t>, std::int64_t> count;
    for (const auto& pull : r.pulls)
      if (pull.step > ph.start && pull.step <= ph.start + ph.steps)
        ++count[{pull.client, pull.arm}];
    if (!ph.completed) continue;
    ++completed;
    CHECK(ph.pulls_per_arm == f);
    CHECK(ph.steps == static_cast<std::int64_t>(ph.active) * f);
    CHECK(count.size() == 4 * ph.active);
    for (const auto& [key, n] : count) CHECK(n == f);
  }
  CHECK(completed >= 3);
  // Phases shrink as arms go; the budget ends the last one.
  for (std::size_t i = 1; i < r.phases.size(); ++i)
    CHECK(r.phases[i].active <= r.phases[i - 1].active);
  CHECK(r.phases.back().start + r.phases.back().steps == 3000);
}

TEST_CASE("fed1-ucb run: a clearly bad arm goes in phase 1, the best never, then commitment",
          "[baselines][fed1-ucb]") {
  // f(x) = x with client offsets, K = 10 arms: the start in [0, 0.1), then 0.1, 0.2125, ..., 1
  // (arm 9, the best). M = 5, T = 1e4, f = 9, sigma = 0.25: after phase 1 B = 0.226, so every
  // arm below 1 - 2B = 0.548 goes, the start (gap >= 0.9) with a margin of 0.45 against the
  // noise's mean over 45 pulls (sd 0.0086). The runner-up (gap 0.1125) goes once
  // 2 B_p = 0.452 / sqrt(p) < 0.1125, at phase 17: commitment to arm 9 within 20 phases.
  // 20 seeds, no exception allowed.
  const auto problem = test::offset_problem(test::linear_1d(), {0.4, -1.2, 0.0, 2.0, 0.7}, 0.1);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Fed1UcbRunConfig cfg;
    cfg.params = params(5, 10000, 10);
    cfg.params.sigma = 0.25;
    cfg.seed = seed;
    const auto r = run_fed1_ucb(cfg, problem);
    REQUIRE(r.phases.size() >= 2);
    CHECK(r.phases[0].active == 10);
    CHECK(r.phases[0].completed);
    CHECK(r.phases[0].survivors <= 5);
    CHECK(r.phases.back().active == 1);
    CHECK(r.phases.size() <= 20);
    const std::int64_t phase1_end = r.phases[0].steps;
    bool best_in_every_phase = true;
    for (const auto& ph : r.phases) {
      bool pulled = false;
      for (const auto& pull : r.pulls)
        if (pull.step > ph.start && pull.step <= ph.start + ph.steps && pull.arm == 9)
          pulled = true;
      best_in_every_phase = best_in_every_phase && pulled;
    }
    CHECK(best_in_every_phase);
    for (const auto& pull : r.pulls) {
      if (pull.step > phase1_end && pull.arm == 0) FAIL("arm 0 pulled after phase 1");
      if (pull.step > r.phases.back().start && pull.arm != 9) FAIL("committed to another arm");
    }
  }
}

TEST_CASE("fed1-ucb server: elimination by hand, the best always kept, strict inequality",
          "[baselines][fed1-ucb]") {
  auto p = params(2, 10000, 4);  // f = 9, after phase 1 n = 9: B = sqrt(ln 1e4 / 18) = 0.7153
  Fed1UcbServer s(p, 4);
  const double b = p.confidence_width(9, 2);
  // Means (client mean): arm 0: 0, arm 1: 2, arm 2: 2 - 2B (exactly on the bar: kept),
  // arm 3: 2 - 2B - 0.01 (below: eliminated).
  CHECK(s.receive(0, {0.0, 2.0, 2.0 - 2 * b, 2.0 - 2 * b - 0.01}).empty());
  CHECK(s.receive(1, {0.0, 2.0, 2.0 - 2 * b, 2.0 - 2 * b - 0.01}).empty());
  const auto out = s.close_phase();
  CHECK(out.confidence_width == Approx(b).epsilon(1e-15));
  CHECK(out.eliminated == std::vector<bool>{true, false, false, true});
  CHECK(out.survivors == std::vector<std::int64_t>{1, 2});
  CHECK(s.broadcast() == Fed1UcbBroadcast{2, 9, {1, 2}});
  CHECK(s.phase_start() == 36);
  // Phase 2: arm 2 leads by far; n = 18 now.
  CHECK(s.receive(0, {0.0, 5.0}).empty());
  CHECK(s.receive(1, {0.0, 5.0}).empty());
  const auto out2 = s.close_phase();
  CHECK(out2.confidence_width == Approx(p.confidence_width(18, 2)).epsilon(1e-15));
  CHECK(out2.survivors == std::vector<std::int64_t>{2});
  CHECK(s.committed());
  CHECK(s.broadcast() == Fed1UcbBroadcast{3, 10000 - 36 - 18, {2}});
  CHECK_FALSE(s.receive(0, {1.0}).empty());  // no report once committed
}

TEST_CASE("fed1-ucb payloads: round trip and every rejection reason", "[baselines][fed1-ucb]") {
  const Fed1UcbBroadcast b{3, 9, {0, 4, 7}};
  const auto payload = encode(b);
  CHECK(payload.size() == fed1_ucb_broadcast_length(3));
  CHECK(payload == std::vector<double>{3, 9, 0, 4, 7});
  CHECK(check_fed1_ucb_broadcast(payload, 8).empty());
  CHECK(decode_fed1_ucb_broadcast(payload, 8) == b);
  auto why = [](std::vector<double> v, std::int64_t arms = 8) {
    return check_fed1_ucb_broadcast(v, arms);
  };
  CHECK_THAT(why({3, 9}), Catch::Contains("wrong length"));
  CHECK_THAT(why({1, 1, 0, 1, 2}, 2), Catch::Contains("wrong length"));
  CHECK_THAT(why({3, 9, std::nan(""), 4}), Catch::Contains("non-finite"));
  CHECK_THAT(why({3, 9, 0, INFINITY}), Catch::Contains("non-finite"));
  CHECK_THAT(why({3, 9, 0.5, 4}), Catch::Contains("not an integer"));
  CHECK_THAT(why({0, 9, 0, 4}), Catch::Contains("phase"));
  CHECK_THAT(why({3, 0, 0, 4}), Catch::Contains("pulls_per_arm"));
  CHECK_THAT(why({3, 9, 0, 8}), Catch::Contains("outside"));
  CHECK_THAT(why({3, 9, -1, 4}), Catch::Contains("outside"));
  CHECK_THAT(why({3, 9, 4, 4}), Catch::Contains("ascending"));
  CHECK_THROWS_WITH(decode_fed1_ucb_broadcast({3, 9, 4, 0}, 8), Catch::Contains("ascending"));

  CHECK(fed1_ucb_report_length(3) == 3);
  CHECK(check_fed1_ucb_report({0.1, 0.2, 0.3}, 3).empty());
  CHECK_THAT(check_fed1_ucb_report({0.1, 0.2}, 3), Catch::Contains("wrong length"));
  CHECK_THAT(check_fed1_ucb_report({0.1, NAN, 0.3}, 3), Catch::Contains("non-finite"));

  // The server refuses and keeps nothing.
  Fed1UcbServer s(params(2, 100, 3), 3);
  CHECK_THAT(s.receive(2, {0, 0, 0}), Catch::Contains("unknown client"));
  CHECK_THAT(s.receive(-1, {0, 0, 0}), Catch::Contains("unknown client"));
  CHECK_THAT(s.receive(0, {0, 0}), Catch::Contains("wrong length"));
  CHECK_THAT(s.receive(0, {0, INFINITY, 0}), Catch::Contains("non-finite"));
  CHECK(s.reports_received() == 0);
  CHECK(s.receive(0, {0, 0, 0}).empty());
  CHECK_THAT(s.receive(0, {1, 1, 1}), Catch::Contains("duplicate"));
  CHECK(s.reports_received() == 1);
  CHECK_THROWS_AS(s.close_phase(), std::logic_error);
  CHECK(s.close_phase_with_reports().reporters == 1);
}

TEST_CASE("fed1-ucb: client and server restored from their state continue bit-identically",
          "[baselines][fed1-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.61), offsets(3), 0.1);
  auto p = params(3, 2000, 8);
  RandomStream mesh_rng(4, "baselines.mesh");
  const ArmMesh mesh = make_arm_mesh(problem.domain, 8, mesh_rng);
  Fed1UcbServer server(p, mesh.arms());
  std::vector<Fed1UcbClient> clients;
  for (int m = 0; m < 3; ++m) clients.emplace_back(m, mesh.arms());
  // Phase 1 in full, phase 2 half-way for client 0, with client 1's report received.
  for (auto& c : clients)
    run_fed1_ucb_client_phase(c, server.broadcast(), c.arms() * 7, problem, mesh, 4);
  for (auto& c : clients) REQUIRE(server.receive(c.id(), c.report()).empty());
  server.close_phase();
  const Fed1UcbBroadcast b2 = server.broadcast();
  const std::int64_t len = static_cast<std::int64_t>(b2.active.size()) * b2.pulls_per_arm;
  for (auto& c : clients) run_fed1_ucb_client_phase(c, b2, len, problem, mesh, 4);
  REQUIRE(server.receive(1, clients[1].report()).empty());

  Fed1UcbServer copy(p, mesh.arms());
  copy.restore(server.state());
  const Fed1UcbClient restored = Fed1UcbClient::from_state(clients[2].state());
  CHECK(restored.report() == clients[2].report());
  for (Fed1UcbServer* s : {&server, &copy}) {
    REQUIRE(s->receive(0, clients[0].report()).empty());
    REQUIRE(s->receive(2, restored.report()).empty());
  }
  const auto a = server.close_phase(), c = copy.close_phase();
  CHECK(a.global_means == c.global_means);
  CHECK(a.eliminated == c.eliminated);
  CHECK(server.broadcast() == copy.broadcast());
  CHECK(server.state().start == copy.state().start);

  // A bad state is refused.
  auto bad = clients[0].state();
  bad.counts.pop_back();
  CHECK_THROWS_AS(Fed1UcbClient::from_state(bad), std::invalid_argument);
  auto bad_server = server.state();
  bad_server.received[0] = true;
  CHECK_THROWS_AS(copy.restore(bad_server), std::invalid_argument);
}

TEST_CASE("fed1-ucb run: regret bookkeeping, communication counts and determinism",
          "[baselines][fed1-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.2), offsets(3), 0.1);
  Fed1UcbRunConfig cfg;
  cfg.params = params(3, 1500, 20);
  cfg.seed = 9;
  const auto r = run_fed1_ucb(cfg, problem);
  const auto again = run_fed1_ucb(cfg, problem);
  CHECK(r.client_regret == again.client_regret);
  CHECK(r.pulls.size() == again.pulls.size());
  double total = 0.0;
  std::vector<double> per_client(3, 0.0);
  for (const auto& pull : r.pulls) {
    const double x = r.mesh.points(pull.arm, 0);
    CHECK(pull.regret == -(-(x - 0.2) * (x - 0.2)));
    per_client[static_cast<std::size_t>(pull.client)] += pull.regret;
    total += pull.regret;
  }
  for (int m = 0; m < 3; ++m)
    CHECK(r.client_regret[static_cast<std::size_t>(m)] ==
          Approx(per_client[static_cast<std::size_t>(m)]).epsilon(1e-12));
  CHECK(r.average_regret == Approx(total / 3).epsilon(1e-12));
  CHECK(r.average_regret_curve.size() == 1500);
  CHECK(r.average_regret_curve.back() == Approx(r.average_regret).epsilon(1e-12));
  std::int64_t sent = 0, received = 0;
  for (const auto& ph : r.phases) {
    received += 2 + static_cast<std::int64_t>(ph.active);
    if (ph.completed) sent += static_cast<std::int64_t>(ph.active);
  }
  CHECK(r.rounds == static_cast<std::int64_t>(r.phases.size()));
  CHECK(r.numbers_sent_per_client == sent);
  CHECK(r.numbers_received_per_client == received);
  cfg.seed = 10;
  CHECK(run_fed1_ucb(cfg, problem).mesh.axes[0][0] != r.mesh.axes[0][0]);
}

TEST_CASE("fed1-ucb run: each phase record holds every client's cumulative regret after it",
          "[baselines][fed1-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.2), offsets(3), 0.1);
  Fed1UcbRunConfig cfg;
  cfg.params = params(3, 1500, 20);
  cfg.seed = 9;
  const auto r = run_fed1_ucb(cfg, problem);
  REQUIRE(r.phases.size() >= 3);
  for (const auto& ph : r.phases) {
    REQUIRE(ph.client_regret.size() == 3);
    // The pulls up to the phase's end, summed per client.
    std::vector<double> want(3, 0.0);
    for (const auto& pull : r.pulls)
      if (pull.step <= ph.start + ph.steps) want[static_cast<std::size_t>(pull.client)] += pull.regret;
    for (std::size_t m = 0; m < 3; ++m) CHECK(ph.client_regret[m] == Approx(want[m]).epsilon(1e-12));
  }
  CHECK(r.phases.back().client_regret == r.client_regret);  // bit for bit
  // Without the pulls kept, the same records.
  cfg.record_pulls = false;
  const auto lean = run_fed1_ucb(cfg, problem);
  CHECK(lean.pulls.empty());
  REQUIRE(lean.phases.size() == r.phases.size());
  for (std::size_t i = 0; i < r.phases.size(); ++i)
    CHECK(lean.phases[i].client_regret == r.phases[i].client_regret);
}
