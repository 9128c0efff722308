#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "engine/objectives/garland.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/stats.hpp"

using fedsim::xarmed::FedPneConfig;
using fedsim::xarmed::ObjectiveKind;
using fedsim::xarmed::run_fed_pne;

namespace {
FedPneConfig config(ObjectiveKind kind, int clients, std::int64_t budget, std::uint64_t seed) {
  FedPneConfig c;
  c.problem.objective = kind;
  c.problem.clients = clients;
  c.problem.seed = seed;
  c.budget = budget;
  return c;
}
}  // namespace

TEST_CASE("fed-pne run: regret bookkeeping of the first phase by hand", "[xarmed]") {
  // Defaults, M = 10, T = 1e4: phase 1 pulls the 8 depth-3 nodes of [0, 1] once each, at
  // their centres (2j + 1) / 16, whatever the client: after 8 steps every client's regret is
  // sum_j f* - f((2j + 1) / 16) on Garland (the global objective; offsets do not count).
  const auto r = run_fed_pne(config(ObjectiveKind::garland, 10, 10000, 3));
  const fedsim::Garland g;
  double first = 0.0;
  for (int j = 0; j < 8; ++j)
    first += g.optimum_value() - g.value(Eigen::VectorXd::Constant(1, (2 * j + 1) / 16.0));
  REQUIRE(r.phases.front().nodes == 8);
  CHECK(r.average_regret_curve[7] == Approx(first).epsilon(1e-12));
  CHECK(r.average_regret_curve.size() == 10000);
  CHECK(r.average_regret_curve.back() == Approx(r.average_regret).epsilon(1e-12));
  double sum = 0.0;
  for (const double v : r.client_regret) sum += v;
  CHECK(r.average_regret == Approx(sum / 10).epsilon(1e-12));
}

TEST_CASE("fed-pne run: the budget is T pulls per client, a phase it cuts is never reported",
          "[xarmed]") {
  for (const std::int64_t budget : {std::int64_t{500}, std::int64_t{4321}}) {
    const auto r = run_fed_pne(config(ObjectiveKind::double_sine, 7, budget, 1));
    std::int64_t steps = 0, sent = 0, received = 0;
    for (std::size_t p = 0; p < r.phases.size(); ++p) {
      const auto& ph = r.phases[p];
      CHECK(ph.start == steps);
      steps += ph.steps;
      received += static_cast<std::int64_t>(ph.nodes);
      const bool full = ph.steps == static_cast<std::int64_t>(ph.nodes) * ph.pulls_per_node;
      CHECK(ph.completed == full);
      if (ph.completed) sent += static_cast<std::int64_t>(ph.nodes);
      if (p + 1 < r.phases.size()) CHECK(ph.completed);  // only the last can be cut
      if (p > 0) CHECK(ph.depth > r.phases[p - 1].depth);
    }
    CHECK(steps == budget);
    CHECK(r.rounds == static_cast<std::int64_t>(r.phases.size()));
    CHECK(r.nodes_received_per_client == received);
    CHECK(r.nodes_sent_per_client == sent);
    CHECK(r.completed_phases == r.rounds - (r.phases.back().completed ? 0 : 1));
  }
}

TEST_CASE("fed-pne run: same seed, same result, another seed, another", "[xarmed]") {
  auto c = config(ObjectiveKind::garland, 5, 3000, 9);
  c.point = fedsim::xarmed::PointRule::uniform;
  const auto a = run_fed_pne(c);
  const auto b = run_fed_pne(c);
  CHECK(a.client_regret == b.client_regret);
  CHECK(a.average_regret_curve == b.average_regret_curve);
  c.problem.seed = 10;
  CHECK(run_fed_pne(c).client_regret != a.client_regret);
}

TEST_CASE("fed-pne run: average regret per client falls as M grows (appendix E.3)",
          "[xarmed]") {
  // 10 seeds per M; regret at T = 1e4 per client. Observed (means, se): Garland 1311 (5),
  // 984 (1.4), 654 (0.6); DoubleSine 546 (9), 286 (2.5), 223 (0.1) for M = 2, 10, 50. Each
  // step down must exceed 5 combined standard errors.
  for (const auto kind : {ObjectiveKind::garland, ObjectiveKind::double_sine}) {
    std::vector<fedsim::MeanSe> by_m;
    for (const int m : {2, 10, 50}) {
      std::vector<double> regrets;
      for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        auto c = config(kind, m, 10000, seed);
        c.record_curve = false;
        regrets.push_back(run_fed_pne(c).average_regret);
      }
      by_m.push_back(fedsim::mean_se(regrets));
    }
    for (std::size_t i = 1; i < by_m.size(); ++i) {
      INFO(fedsim::xarmed::to_string(kind) << " step " << i);
      const double se = std::hypot(by_m[i - 1].se, by_m[i].se);
      CHECK(by_m[i].mean < by_m[i - 1].mean - 5 * se);
    }
  }
}

TEST_CASE("fed-pne run: communication rounds grow logarithmically in T", "[xarmed]") {
  // Appendix C.2: P <= log(M T nu1^2 / (k c^2)) / log(rho^-2), + 1 for a phase cut by T.
  std::vector<std::int64_t> rounds;
  for (const std::int64_t budget : {1000, 10000, 100000}) {
    auto c = config(ObjectiveKind::garland, 10, budget, 2);
    c.record_curve = false;
    const auto r = run_fed_pne(c);
    const double bound = std::log(10.0 * budget / (2 * 0.01)) / std::log(4.0);
    CHECK(r.rounds <= std::floor(bound) + 1);
    rounds.push_back(r.rounds);
  }
  // Each decade adds log_4(10) ~ 1.7 phases in theory: between 1 and 3 here (linear growth
  // would add ~10x).
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    CHECK(rounds[i] - rounds[i - 1] >= 1);
    CHECK(rounds[i] - rounds[i - 1] <= 3);
  }
}

TEST_CASE("dp-fed-pne run: the guarantee is reported and vanishing noise changes nothing",
          "[xarmed]") {
  auto c = config(ObjectiveKind::garland, 10, 3000, 4);
  const auto plain = run_fed_pne(c);
  CHECK_FALSE(plain.privacy.has_value());
  c.dp_epsilon = 1e9;  // sigma ~ 5e-9: no decision can change on this seed
  const auto tiny = run_fed_pne(c);
  REQUIRE(tiny.privacy.has_value());
  CHECK(tiny.privacy->delta == 0.01);  // min(1/M, 0.01)
  CHECK(tiny.privacy->clients == 10);
  CHECK(tiny.average_regret == Approx(plain.average_regret).epsilon(1e-12));
  // Heavy noise (eps = 0.5, sigma 4.5 against rewards spread over ~1) hurts on average.
  std::vector<double> noisy, clean;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto d = config(ObjectiveKind::double_sine, 10, 3000, seed);
    d.record_curve = false;
    clean.push_back(run_fed_pne(d).average_regret);
    d.dp_epsilon = 0.5;
    noisy.push_back(run_fed_pne(d).average_regret);
  }
  const auto a = fedsim::mean_se(clean);
  const auto b = fedsim::mean_se(noisy);
  CHECK(b.mean > a.mean + 3 * std::hypot(a.se, b.se));
  c.dp_epsilon = -1.0;
  CHECK_THROWS_AS(run_fed_pne(c), std::invalid_argument);
}

TEST_CASE("fed-pne run: SEIR regions as clients", "[xarmed]") {
  auto c = config(ObjectiveKind::seir, 4, 2000, 1);
  const auto problem = fedsim::xarmed::make_problem(c.problem);
  REQUIRE(problem.clients() == 4);
  // The global objective is the mean of the regions'.
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 0.8);
  double mean = 0.0;
  for (const auto& f : problem.locals) mean += f->value(x) / 4;
  CHECK(problem.global->value(x) == Approx(mean).epsilon(1e-13));
  const auto r = run_fed_pne(c, problem);
  CHECK(r.average_regret > 0.0);
  CHECK(r.average_regret < 2000 * 0.05);  // well below always pulling a poor dose
}

TEST_CASE("metrics: mean and standard error by hand", "[xarmed]") {
  const auto m = fedsim::mean_se({1, 2, 3, 4});
  CHECK(m.mean == 2.5);
  CHECK(m.se == Approx(0.6454972243679028).epsilon(1e-14));
  CHECK(std::isnan(fedsim::mean_se({7}).se));  // fewer than two values: no standard error
  CHECK(fedsim::mean_se({7}).mean == 7);
  CHECK(std::isnan(fedsim::mean_se({}).mean));
}
