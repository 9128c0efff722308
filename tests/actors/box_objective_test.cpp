// Objectives on a continuous box (no candidate set) run through the whole FBO family, as actors
// and in the loop alike (issue 11 item 2); objectives evaluated elsewhere (AsyncEvaluator) are
// asked without blocking and give the records a synchronous one gives; failed evaluations are
// skipped and counted, or fail the run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

/// Agent n maximises -(u0 - 0.3 - 0.05 n)^2 - (u1 - 1.5)^2 over the box [-1, 3] x [0, 2] of its
/// own coordinates u (the unit box mapped by SearchDomain::bounds): optimum 0 inside the box.
/// The noise is a function of the query (not of a stream), so that an asynchronous copy of it
/// answers exactly the same.
class BoxBowl : public FederatedObjective {
 public:
  explicit BoxBowl(int agents) : agents_(agents) {
    domain_.box = Box::unit(2);
    Box b;
    b.lower = Eigen::Vector2d(-1.0, 0.0);
    b.upper = Eigen::Vector2d(3.0, 2.0);
    domain_.bounds = b;
  }
  const SearchDomain& domain() const override { return domain_; }
  int agents() const override { return agents_; }
  static double f(int agent, const Eigen::VectorXd& u) {
    const double a = u(0) - 0.3 - 0.05 * agent, b = u(1) - 1.5;
    return -(a * a) - b * b;
  }
  Answer evaluate(const Query& q, RandomStream&) const override {
    Answer out;
    const Eigen::VectorXd u = domain_.to_bounds(q.x);
    out.f = f(q.agent, u);
    RandomStream noise(99, "test.noise", static_cast<std::uint64_t>(q.agent),
                       static_cast<std::uint64_t>(q.iteration + 1000));
    out.y = *out.f + 0.01 * noise.normal();
    return out;
  }
  std::optional<double> optimum(int) const override { return 0.0; }

 private:
  int agents_;
  SearchDomain domain_;
};

/// The same function evaluated on threads of its own, each evaluation taking `sleep` wall
/// time; evaluations of agent `fail_agent` at iterations >= 2 fail (fatal when asked).
class RemoteBowl final : public BoxBowl, public AsyncEvaluator {
 public:
  RemoteBowl(int agents, std::chrono::milliseconds sleep, int fail_agent = -1, bool fatal = false)
      : BoxBowl(agents), sleep_(sleep), fail_agent_(fail_agent), fatal_(fatal) {}
  ~RemoteBowl() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& t : threads_) t.join();
  }
  const AsyncEvaluator* async() const override { return this; }
  void submit(const Query& q, std::function<void(EvaluationOutcome)> done) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.emplace_back([this, q, done = std::move(done)] {
      const int now = ++in_flight_;
      int seen = max_in_flight_.load();
      while (now > seen && !max_in_flight_.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(sleep_);
      EvaluationOutcome o;
      o.wall_seconds = std::chrono::duration<double>(sleep_).count();
      if (q.agent == fail_agent_ && q.iteration >= 2) {
        o.failure_kind = "worker_error";
        o.failure_message = "the \"model\" diverged\nat step 3";  // quotes, a newline
        o.fatal = fatal_;
      } else {
        RandomStream unused(1, "unused");
        o.answer = evaluate(q, unused);
      }
      --in_flight_;
      done(std::move(o));
    });
  }
  int max_in_flight() const { return max_in_flight_.load(); }

 private:
  std::chrono::milliseconds sleep_;
  int fail_agent_;
  bool fatal_;
  mutable std::mutex mutex_;
  mutable std::vector<std::thread> threads_;
  mutable std::atomic<int> in_flight_{0};
  mutable std::atomic<int> max_in_flight_{0};
};

scenario::ScenarioConfig config(const std::string& algorithm, int agents = 4) {
  return scenario::load_scenario_text(R"(
name = "box-bowl"
seed = 11
[world]
agents = )" + std::to_string(agents) + R"(
[algorithm]
name = ")" + algorithm + R"("
iterations = 8
n_init = 3
features = 40
kernel_lengthscale = 0.2
subregions = 2
acquisition_candidates = 200
acquisition_refine = 2
[policy]
kind = "sync"
)", "box-bowl.toml").config;
}

/// The loop's records in observations.csv's order.
std::vector<fbo::ObservationRecord> loop_records(const scenario::ScenarioConfig& c,
                                                 const FederatedObjective& objective) {
  fbo::ReferenceResult loop = fbo::run_reference(scenario::reference_config(c), objective);
  std::stable_sort(loop.observations.begin(), loop.observations.end(),
                   [](const auto& a, const auto& b) {
                     return std::tie(a.agent, a.iteration) < std::tie(b.agent, b.iteration);
                   });
  return loop.observations;
}

}  // namespace

TEST_CASE("a box objective runs every FBO algorithm as actors and in the loop alike",
          "[actors][objective][box]") {
  for (const std::string algorithm : {"ts", "fts", "fts-de", "dp-fts", "dp-fts-de"}) {
    INFO(algorithm);
    const fs::path dir = fedsim::test::fresh_dir("box-objective-" + algorithm);
    const auto c = config(algorithm);
    const auto bowl = std::make_shared<const BoxBowl>(c.world.agents);
    RunOptions o;
    o.out_dir = dir.string();
    o.objective = bowl;
    o.threads = 2;
    const RunResult r = run_federation(c, o);
    const auto loop = loop_records(c, *bowl);
    const auto obs = fedsim::test::read_table(dir / "observations.csv");
    REQUIRE(obs.size() == loop.size());
    REQUIRE(obs.size() == static_cast<std::size_t>(4 * (3 + 8)));
    std::map<int, double> best_y;
    double best_sum = 0;
    for (std::size_t k = 0; k < obs.size(); ++k) {
      const auto& a = loop[k];
      INFO("row " << k);
      CHECK(std::stoi(obs[k].at("agent")) == a.agent);
      CHECK(std::stoi(obs[k].at("iteration")) == a.iteration);
      CHECK(a.index == -1);
      REQUIRE(a.x.size() == 2);
      const double u0 = std::stod(obs[k].at("x0")), u1 = std::stod(obs[k].at("x1"));
      CHECK(u0 == Approx(a.x(0)).margin(1e-8));
      CHECK(u1 == Approx(a.x(1)).margin(1e-8));
      // Every coordinate recorded, in the objective's own box.
      CHECK(u0 >= -1.0);
      CHECK(u0 <= 3.0);
      CHECK(u1 >= 0.0);
      CHECK(u1 <= 2.0);
      CHECK(std::stod(obs[k].at("f")) == Approx(BoxBowl::f(a.agent, a.x)).margin(1e-8));
      CHECK(std::stod(obs[k].at("y")) == Approx(a.y).margin(1e-9));
      // best_y is the agent's running maximum of y.
      const double y = std::stod(obs[k].at("y"));
      best_y[a.agent] = best_y.count(a.agent) ? std::max(best_y[a.agent], y) : y;
      CHECK(std::stod(obs[k].at("best_y")) == Approx(best_y[a.agent]).margin(1e-9));
      const bool de = algorithm == "fts-de" || algorithm == "dp-fts-de";
      if (de && a.iteration <= 0) {
        // DE's initial design lies in the agent's own sub-region: x0 < 1 (unit 0.5) for even
        // agents (P = 2 halves the first axis), >= 1 for odd ones.
        CHECK((a.agent % 2 == 0) == (u0 < 1.0));
      }
    }
    for (const auto& [agent, b] : best_y) best_sum += b;
    CHECK(r.mean_best_observed == Approx(best_sum / 4).margin(1e-9));
    CHECK(r.final_simple_regret >= 0.0);
    CHECK(r.final_simple_regret <= r.mean_simple_regret.front());
  }
}

TEST_CASE("on a box, agents learn: the regret falls well below that of the initial design",
          "[actors][objective][box]") {
  auto c = config("fts-de", 6);
  c.algorithm.iterations = 25;
  const BoxBowl bowl(6);
  const fbo::ReferenceResult r = fbo::run_reference(scenario::reference_config(c), bowl);
  INFO("regret after the initial design " << r.mean_simple_regret.front() << ", after 25 "
                                          << r.final_simple_regret);
  // The bowl's values span about 13 over the box; the initial design leaves a regret of
  // about 1.7 (seed 11), 25 iterations a tenth of it.
  CHECK(r.final_simple_regret < 0.1 * r.mean_simple_regret.front());
}

TEST_CASE("the exact local sampler needs candidates: refused on a box with one clear line",
          "[actors][objective][box]") {
  auto c = config("ts");
  c.algorithm.local_sampler = fbo::LocalSampler::exact;
  const BoxBowl bowl(4);
  CHECK_THROWS_WITH(fbo::run_reference(scenario::reference_config(c), bowl),
                    Catch::Contains("local_sampler = exact needs a finite candidate set"));
}

TEST_CASE("refits run on a box: the fitted model is used and replays the same",
          "[actors][objective][box]") {
  auto c = config("ts");
  c.algorithm.refit.every = 4;
  const BoxBowl bowl(4);
  const auto a = fbo::run_reference(scenario::reference_config(c), bowl);
  c.algorithm.refit.every = 0;
  const auto b = fbo::run_reference(scenario::reference_config(c), bowl);
  REQUIRE(a.observations.size() == b.observations.size());
  bool differ = false;
  for (std::size_t k = 0; k < a.observations.size(); ++k)
    differ = differ || a.observations[k].x != b.observations[k].x;
  CHECK(differ);  // the refitted local model chose other points
}

TEST_CASE("an objective evaluated elsewhere gives the records of the same one evaluated here, "
          "its evaluations in parallel",
          "[actors][objective][async]") {
  const auto c = config("dp-fts-de", 6);
  const fs::path dir = fedsim::test::fresh_dir("box-objective-async");
  RunOptions o;
  o.threads = 2;
  o.out_dir = (dir / "here").string();
  o.objective = std::make_shared<const BoxBowl>(6);
  run_federation(c, o);
  auto remote = std::make_shared<const RemoteBowl>(6, std::chrono::milliseconds(40));
  o.out_dir = (dir / "remote").string();
  o.objective = remote;
  const RunResult r = run_federation(c, o);
  CHECK(fedsim::test::slurp(dir / "here" / "observations.csv") ==
        fedsim::test::slurp(dir / "remote" / "observations.csv"));
  CHECK(fedsim::test::slurp(dir / "here" / "rounds.csv") ==
        fedsim::test::slurp(dir / "remote" / "rounds.csv"));
  CHECK(r.failed_evaluations == 0);
  // The six agents' queries of one virtual time are out at once (all start together on a
  // perfect network), each agent's initial design of three as well.
  CHECK(remote->max_in_flight() >= 6);
  // Measured wall times land in evaluation_times.csv, never in observations.csv.
  const auto times = fedsim::test::read_table(dir / "remote" / "evaluation_times.csv");
  CHECK(times.size() == 6 * (3 + 8));
  for (const auto& row : times) CHECK(std::stod(row.at("wall_seconds")) == Approx(0.04));
  CHECK_FALSE(fs::exists(dir / "here" / "evaluation_times.csv"));
}

TEST_CASE("failed evaluations are skipped, recorded with their reason and counted, a fatal one "
          "fails the run naming the agent",
          "[actors][objective][async]") {
  auto c = config("fts-de", 4);
  // The breaker off (run.max_consecutive_failures, run.max_failure_rate): every failure is
  // skipped and the run goes on.
  c.run.max_consecutive_failures = 0;
  c.run.max_failure_rate = 1.0;
  const fs::path dir = fedsim::test::fresh_dir("box-objective-failures");
  RunOptions o;
  o.threads = 2;
  o.out_dir = (dir / "skip").string();
  o.objective = std::make_shared<const RemoteBowl>(4, std::chrono::milliseconds(1), 1);
  const RunResult r = run_federation(c, o);
  CHECK(r.completed);  // agent 1 observed its initial design and its first iteration
  // Agent 1's iterations 2..8 fail: 7 evaluations skipped, its other rows recorded.
  CHECK(r.failed_evaluations == 7);
  const auto obs = fedsim::test::read_table(dir / "skip" / "observations.csv");
  CHECK(obs.size() == static_cast<std::size_t>(4 * (3 + 8) - 7));
  int failures = 0;
  for (const std::string& line : fedsim::test::read_lines(dir / "skip" / "events.jsonl")) {
    if (line.find("\"evaluation_failed\"") == std::string::npos) continue;
    ++failures;
    CHECK(line.find("\"from\":1,") != std::string::npos);
    // The worker's message, quotes and newline escaped: the line is one JSON object.
    CHECK(line.find(R"(worker_error: the \"model\" diverged\nat step 3)") != std::string::npos);
    CHECK(line.back() == '}');
  }
  CHECK(failures == 7);
  // A skipped evaluation is absent, never a row of made-up numbers.
  CHECK(fedsim::test::slurp(dir / "skip" / "observations.csv").find("nan") == std::string::npos);

  o.out_dir = (dir / "abort").string();
  o.objective = std::make_shared<const RemoteBowl>(4, std::chrono::milliseconds(1), 2, true);
  CHECK_THROWS_WITH(run_federation(c, o), Catch::Contains("agent 2") &&
                                              Catch::Contains("stops the run") &&
                                              Catch::Contains("worker_error"));
}

TEST_CASE("evaluations of one agent that keep failing stop the run as not completed, naming "
          "the agent and the last failure", "[actors][objective][async][no-progress]") {
  auto c = config("fts-de", 4);
  const fs::path dir = fedsim::test::fresh_dir("box-objective-breaker");
  RunOptions o;
  o.threads = 2;
  o.objective = std::make_shared<const RemoteBowl>(4, std::chrono::milliseconds(1), 1);
  // The default: 3 in a row. Agent 1's iterations 2..8 fail: the run stops at iteration 4.
  o.out_dir = (dir / "row").string();
  RunResult r = run_federation(c, o);
  CHECK_FALSE(r.completed);
  CHECK(r.reason.rfind("agent 1: 3 evaluations in a row failed (run.max_consecutive_failures = "
                       "3); the last: worker_error: ", 0) == 0);
  CHECK(r.failed_evaluations <= 3);  // the third is the agent's, not yet recorded
  // By share: 7 of agent 1's 11 evaluations fail; above 0.5 from its 10th evaluation on.
  c.run.max_consecutive_failures = 0;
  o.out_dir = (dir / "rate").string();
  r = run_federation(c, o);
  CHECK_FALSE(r.completed);
  CHECK(r.reason.rfind("agent 1: 6 of 10 evaluations failed (run.max_failure_rate = 0.5)", 0) ==
        0);
  // Off: the run completes, its failures skipped.
  c.run.max_failure_rate = 1.0;
  o.out_dir = (dir / "off").string();
  r = run_federation(c, o);
  CHECK(r.completed);
  CHECK(r.failed_evaluations == 7);
}
