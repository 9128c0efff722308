// The federated X-armed tuning problem (engine/xarmed/tuning_problem): client m's objective is
// its tuning score at iteration 0, the global objective their mean, values remembered once per
// x (also when threads ask at once), and the problem runs under Fed-PNE and HCT.
#include "engine/xarmed/tuning_problem.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "data/datasets.hpp"
#include "engine/xarmed/fed_pne_run.hpp"
#include "engine/xarmed/hct_run.hpp"

using namespace fedsim;
using namespace fedsim::xarmed;

namespace {

std::shared_ptr<const data::Dataset> digits() {
  static const auto d = std::make_shared<const data::Dataset>(data::load_dataset("digits"));
  return d;
}

ProblemConfig tuning_config(int clients) {
  ProblemConfig c;
  c.objective = ObjectiveKind::tuning;
  c.clients = clients;
  c.task = TuningSettings::Task::svm;
  c.dataset = "digits";
  c.positive_class = 3;
  c.label_skew = 5.0;
  c.seed = 11;
  return c;
}

}  // namespace

TEST_CASE("xarmed tuning: client m's value is the tuning objective's score of agent m at "
          "iteration 0, the global value is their mean",
          "[xarmed][tuning][data]") {
  const ProblemConfig config = tuning_config(4);
  const FederatedProblem p = make_tuning_problem(config, digits());
  REQUIRE(p.clients() == 4);
  CHECK(p.domain.dim() == 2);
  CHECK(p.noise == 0.0);  // the score is the observation
  CHECK(p.global->optimum_value() == 1.0);
  CHECK(std::isnan(p.global->optimum_location()(0)));

  TuningSettings t;
  t.task = TuningSettings::Task::svm;
  t.split.agents = 4;
  t.split.alpha = 5.0;
  t.positive_class = 3;
  t.seed = 11;  // objective_seed 0: the problem's seed
  const TuningObjective direct(digits(), t);
  const Eigen::Vector2d x(0.3, 0.7), y(0.9, 0.1);
  double mean = 0.0;
  for (int m = 0; m < 4; ++m) {
    Query q;
    q.agent = m;
    q.iteration = 0;
    q.x = x;
    RandomStream unused(1, "u");
    const double want = *direct.evaluate(q, unused).f;
    CHECK(p.locals[static_cast<std::size_t>(m)]->value(x) == want);
    mean += want;
  }
  CHECK(p.global->value(x) == Approx(mean / 4).epsilon(1e-15));
  // Clients differ (their shards differ), and scores are AUCs in [0, 1].
  CHECK(p.locals[0]->value(y) != p.locals[1]->value(y));
  for (const auto& l : p.locals) {
    CHECK(l->value(y) >= 0.0);
    CHECK(l->value(y) <= 1.0);
  }
  // A seed of its own for the split and the training overrides the problem's.
  ProblemConfig other = config;
  other.objective_seed = 12;
  const FederatedProblem q = make_tuning_problem(other, digits());
  CHECK(q.locals[0]->value(x) != p.locals[0]->value(x));
}

TEST_CASE("xarmed tuning: a value is computed once per x, also when threads ask at once",
          "[xarmed][tuning]") {
  ScoreCache cache;
  std::atomic<int> computed{0};
  const Eigen::Vector2d x(0.25, 0.5);
  std::vector<std::thread> threads;
  std::vector<double> got(8, 0.0);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      got[static_cast<std::size_t>(i)] = cache.get(x, [&] {
        ++computed;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return 0.75;
      });
    });
  for (auto& t : threads) t.join();
  CHECK(computed == 1);
  for (double v : got) CHECK(v == 0.75);
  CHECK(cache.size() == 1);
  CHECK(cache.get(Eigen::Vector2d(0.25, 0.5000001), [] { return 0.5; }) == 0.5);
  CHECK(cache.size() == 2);
  // A computation that throws reaches its caller; a caller waiting meanwhile gets the same.
  const Eigen::Vector2d bad(0.0, 0.0);
  CHECK_THROWS_AS(cache.get(bad, []() -> double { throw std::runtime_error("no"); }),
                  std::runtime_error);
  CHECK_THROWS_AS(cache.get(bad, [] { return 1.0; }), std::runtime_error);
}

TEST_CASE("xarmed tuning: the wrong builder for a kind is an error", "[xarmed][tuning]") {
  ProblemConfig c = tuning_config(3);
  CHECK_THROWS_WITH(make_problem(c), Catch::Contains("needs its data set"));
  CHECK_THROWS_WITH(make_tuning_problem(c, nullptr), Catch::Contains("no data set"));
  c.epochs = 0;
  CHECK_THROWS_WITH(make_tuning_problem(c, digits()), Catch::Contains("epochs"));
  ProblemConfig g;
  g.objective = ObjectiveKind::garland;
  CHECK_THROWS_WITH(make_tuning_problem(g, digits()), Catch::Contains("not tuning"));
  CHECK(parse_objective_kind("tuning") == ObjectiveKind::tuning);
  CHECK(to_string(ObjectiveKind::tuning) == "tuning");
}

TEST_CASE("xarmed tuning: Fed-PNE and HCT run on it, regret is measured against 1 on the "
          "clients' mean score",
          "[xarmed][tuning][data][sanitizer-heavy]") {
  FedPneConfig f;
  f.problem = tuning_config(5);
  f.budget = 300;
  const FederatedProblem p = make_tuning_problem(f.problem, digits());
  const FedPneResult r = run_fed_pne(f, p);
  REQUIRE(r.client_regret.size() == 5);
  // Every pull's regret is 1 - (mean score at the pulled point), in [0, 1]: the cumulative
  // regret of a client lies in [0, T], and the best node's mean is a score.
  for (double c : r.client_regret) {
    CHECK(c >= 0.0);
    CHECK(c <= 300.0);
  }
  REQUIRE(!r.phases.empty());
  CHECK(r.phases.front().best_mean > 0.5);  // better than chance: the SVM learns
  CHECK(r.phases.front().best_mean <= 1.0);
  // Deterministic: the same problem built again gives the same regrets to the last digit.
  const FedPneResult again = run_fed_pne(f, make_tuning_problem(f.problem, digits()));
  CHECK(again.client_regret == r.client_regret);

  HctRunConfig h;
  h.problem = f.problem;
  h.budget = 300;
  const HctResult hr = run_hct(h, p);
  REQUIRE(hr.regret_curve.size() == 300);
  CHECK(hr.cumulative_regret == hr.regret_curve.back());
  // Every step's regret is 1 - a mean of scores: in [0, 1].
  for (std::size_t t = 1; t < hr.regret_curve.size(); ++t) {
    const double step = hr.regret_curve[t] - hr.regret_curve[t - 1];
    CHECK(step >= 0.0);
    CHECK(step <= 1.0);
  }
}
