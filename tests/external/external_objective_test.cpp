// ExternalObjective: an external black box behind the FederatedObjective interface, with
// scripted workers: the unit box mapped onto the worker's bounds, answers and failures as
// EvaluationOutcome, the synchronous path of the loop driver, and a destructor that never hangs.
#include "external/external_objective.hpp"

#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/external/external_test_support.hpp"
#include "tests/test_files.hpp"

using fedsim::Box;
using fedsim::EvaluationOutcome;
using fedsim::Query;
using fedsim::RandomStream;
using fedsim::SyntheticConfig;
using namespace fedsim::external;
using namespace fedsim::external::test;

namespace {

const std::filesystem::path examples =
    std::filesystem::path(FEDSIM_SCENARIO_DIR).parent_path() / "examples" / "objectives";

/// Answers y = x[0], f = x[last], cost = 1000 agent + iteration: what it was sent, visibly.
constexpr const char* echo_worker = R"PY(
import json, sys
sys.stderr.write("echo worker up\n"); sys.stderr.flush()
for line in sys.stdin:
    r = json.loads(line)
    print(json.dumps({"id": r["id"], "y": r["x"][0], "f": r["x"][-1],
                      "cost": 1000 * r["agent"] + r["iteration"]}), flush=True)
)PY";

/// Answers every request with an error.
constexpr const char* failing_worker = R"PY(
import json, sys
for line in sys.stdin:
    print(json.dumps({"id": json.loads(line)["id"], "error": "no luck"}), flush=True)
)PY";

/// Takes requests and never answers.
constexpr const char* sleeping_worker = R"PY(
import sys, time
for line in sys.stdin:
    time.sleep(60)
)PY";

Settings command(const std::filesystem::path& script) {
  Settings s;
  s.command = {python3(), script.string()};
  s.timeout = 10;
  return s;
}

Box box(std::vector<double> lower, std::vector<double> upper) {
  return {Eigen::Map<Eigen::VectorXd>(lower.data(), lower.size()),
          Eigen::Map<Eigen::VectorXd>(upper.data(), upper.size())};
}

Query query(int agent, int iteration, Eigen::VectorXd x) {
  Query q;
  q.agent = agent;
  q.iteration = iteration;
  q.x = std::move(x);
  return q;
}

/// The outcomes of submitting `queries` at once, waiting at most 20 s.
std::vector<EvaluationOutcome> submit_all(const ExternalObjective& o,
                                          const std::vector<Query>& queries) {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::optional<EvaluationOutcome>> outcomes(queries.size());
  std::size_t done = 0;
  for (std::size_t k = 0; k < queries.size(); ++k)
    o.submit(queries[k], [&, k](EvaluationOutcome out) {
      std::lock_guard<std::mutex> lock(mutex);
      outcomes[k] = std::move(out);
      ++done;
      changed.notify_all();
    });
  std::unique_lock<std::mutex> lock(mutex);
  if (!changed.wait_for(lock, std::chrono::seconds(20), [&] { return done == queries.size(); }))
    FAIL("the objective did not answer within 20 s");
  std::vector<EvaluationOutcome> out;
  for (auto& o2 : outcomes) out.push_back(std::move(*o2));
  return out;
}

}  // namespace

TEST_CASE("ExternalObjective: a continuous unit box with the worker's bounds, any agent",
          "[external][objective]") {
  const auto dir = fedsim::test::fresh_dir("external-objective-domain");
  const ExternalObjective o(command(write_script(dir, "echo.py", echo_worker)),
                            box({-5, 10, 0}, {5, 20, 1}));
  CHECK(o.dimension() == 3);
  CHECK(o.domain().candidates == nullptr);
  CHECK(o.domain().box.lower == Eigen::VectorXd::Zero(3));
  CHECK(o.domain().box.upper == Eigen::VectorXd::Ones(3));
  REQUIRE(o.domain().bounds.has_value());
  CHECK(o.domain().bounds->lower == Eigen::Vector3d(-5, 10, 0));
  CHECK(o.domain().bounds->upper == Eigen::Vector3d(5, 20, 1));
  CHECK(o.agents() == INT_MAX);
  CHECK(o.async() == &o);
  CHECK_FALSE(o.optimum(0).has_value());
}

TEST_CASE("ExternalObjective sends x mapped onto the bounds, with the agent and iteration",
          "[external][objective]") {
  const auto dir = fedsim::test::fresh_dir("external-objective-mapping");
  const ExternalObjective o(command(write_script(dir, "echo.py", echo_worker)),
                            box({-5, 10}, {5, 20}));
  const auto outcomes = submit_all(
      o, {query(3, 7, Eigen::Vector2d(0.25, 1.0)), query(0, 2, Eigen::Vector2d(0.0, 0.5)),
          query(12, 40, Eigen::Vector2d(1.0, 0.0))});
  const double expected[][3] = {{-2.5, 20, 3007}, {-5, 15, 2}, {5, 10, 12040}};
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    INFO(k);
    REQUIRE(outcomes[k].answer.has_value());
    CHECK(outcomes[k].answer->y == expected[k][0]);
    CHECK(outcomes[k].answer->f == expected[k][1]);
    CHECK(outcomes[k].answer->cost == expected[k][2]);
    CHECK(outcomes[k].failure_kind.empty());
    CHECK(outcomes[k].attempts == 1);
    CHECK(outcomes[k].wall_seconds >= 0);
    CHECK_FALSE(outcomes[k].fatal);
  }
  // A point of the wrong dimension is never sent.
  const auto wrong = submit_all(o, {query(0, 1, Eigen::Vector3d(0.1, 0.2, 0.3))});
  CHECK_FALSE(wrong[0].answer.has_value());
  CHECK(wrong[0].failure_kind == "invalid_request");
  CHECK(o.stats().requests == 3);
}

TEST_CASE("ExternalObjective with examples/objectives/quadratic.py: its closed form, "
          "reproducible noise", "[external][objective]") {
  const auto dir = fedsim::test::fresh_dir("external-objective-quadratic");
  Settings s = command(examples / "quadratic.py");
  s.workers = 2;
  s.log_folder = dir / "workers";
  const ExternalObjective o(s, box({0, 0}, {1, 1}));
  const Eigen::Vector2d x(0.1, 0.7);
  const auto outcomes = submit_all(o, {query(3, 5, x), query(3, 5, x), query(2, 5, x)});
  for (const auto& out : outcomes) {
    REQUIRE(out.answer.has_value());
    REQUIRE(out.answer->f.has_value());
    CHECK(*out.answer->f == Approx(-0.2).margin(1e-15));
    CHECK(std::abs(out.answer->y - *out.answer->f) < 0.06);  // noise sd 0.01: 6 sd
    CHECK_FALSE(out.answer->cost.has_value());
  }
  CHECK(outcomes[0].answer->y == outcomes[1].answer->y);  // same agent and iteration
  CHECK(outcomes[0].answer->y != outcomes[2].answer->y);  // another agent's noise
  CHECK(std::filesystem::exists(dir / "workers"));
}

TEST_CASE("ExternalObjective: a failed evaluation's outcome names its kind, message and attempts",
          "[external][objective]") {
  const auto dir = fedsim::test::fresh_dir("external-objective-failure");
  Settings s = command(write_script(dir, "failing.py", failing_worker));
  const Eigen::Vector2d x(0.5, 0.5);
  SECTION("skip") {
    s.on_failure = OnFailure::skip;
    const ExternalObjective o(s, box({0, 0}, {1, 1}));
    const auto out = submit_all(o, {query(1, 2, x)})[0];
    CHECK_FALSE(out.answer.has_value());
    CHECK(out.failure_kind == "worker_error");
    CHECK(out.failure_message.find("no luck") != std::string::npos);
    CHECK(out.attempts == 1);
    CHECK_FALSE(out.fatal);
  }
  SECTION("retry") {
    s.on_failure = OnFailure::retry;
    s.max_retries = 2;
    const ExternalObjective o(s, box({0, 0}, {1, 1}));
    const auto out = submit_all(o, {query(1, 2, x)})[0];
    CHECK(out.failure_kind == "worker_error");
    CHECK(out.attempts == 3);
    CHECK_FALSE(out.fatal);
    CHECK(o.stats().retries == 2);
  }
  SECTION("abort") {
    s.on_failure = OnFailure::abort;
    const ExternalObjective o(s, box({0, 0}, {1, 1}));
    const auto first = submit_all(o, {query(1, 2, x)})[0];
    CHECK(first.failure_kind == "worker_error");
    CHECK(first.fatal);
    const auto later = submit_all(o, {query(1, 3, x)})[0];
    CHECK(later.failure_kind == "aborted");
    CHECK(later.fatal);
  }
  SECTION("a command that does not exist") {
    s.command = {"/nonexistent/fedsim-worker"};
    s.on_failure = OnFailure::skip;
    const ExternalObjective o(s, box({0, 0}, {1, 1}));
    const auto out = submit_all(o, {query(1, 2, x)})[0];
    CHECK(out.failure_kind == "spawn_failed");
    CHECK_FALSE(out.failure_message.empty());
  }
}

TEST_CASE("ExternalObjective::evaluate waits for the answer and throws on a failure",
          "[external][objective]") {
  const auto dir = fedsim::test::fresh_dir("external-objective-sync");
  RandomStream noise(1, "unused");
  const ExternalObjective echo(command(write_script(dir, "echo.py", echo_worker)),
                               box({-1, 0}, {1, 4}));
  const fedsim::Answer a = echo.evaluate(query(2, 9, Eigen::Vector2d(0.75, 0.5)), noise);
  CHECK(a.y == 0.5);
  CHECK(a.f == 2.0);
  CHECK(a.cost == 2009.0);

  Settings s = command(write_script(dir, "failing.py", failing_worker));
  s.on_failure = OnFailure::skip;
  const ExternalObjective failing(s, box({0, 0}, {1, 1}));
  try {
    failing.evaluate(query(4, 7, Eigen::Vector2d(0.5, 0.5)), noise);
    FAIL("a failed evaluation did not throw");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find("agent 4") != std::string::npos);
    CHECK(what.find("iteration 7") != std::string::npos);
    CHECK(what.find("worker_error") != std::string::npos);
    CHECK(what.find("no luck") != std::string::npos);
  }
}

TEST_CASE("ExternalObjective: destroyed with evaluations in flight, it cancels them at once",
          "[external][objective]") {
  const auto dir = fedsim::test::fresh_dir("external-objective-destroy");
  Settings s = command(write_script(dir, "sleeping.py", sleeping_worker));
  s.workers = 2;
  s.timeout = 100;
  std::mutex mutex;
  std::vector<std::string> kinds;
  const auto start = std::chrono::steady_clock::now();
  {
    const ExternalObjective o(s, box({0}, {1}));
    for (int k = 0; k < 4; ++k)  // two on workers, two queued
      o.submit(query(k, 1, Eigen::VectorXd::Constant(1, 0.5)), [&](EvaluationOutcome out) {
        std::lock_guard<std::mutex> lock(mutex);
        kinds.push_back(out.failure_kind);
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the workers take two
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5);
  REQUIRE(kinds.size() == 4);  // every done called, before the destructor returned
  for (const auto& k : kinds) CHECK(k == "cancelled");
}

TEST_CASE("ExternalObjective: bad bounds and settings are refused", "[external][objective]") {
  const Settings s = command("/bin/true");
  CHECK_THROWS_AS(ExternalObjective(s, box({}, {})), std::invalid_argument);
  CHECK_THROWS_AS(ExternalObjective(s, box({1}, {0})), std::invalid_argument);
  CHECK_THROWS_AS(ExternalObjective(s, box({0}, {INFINITY})), std::invalid_argument);
  Settings bad = s;
  bad.workers = 0;
  CHECK_THROWS_WITH(ExternalObjective(bad, box({0}, {1})), Catch::Contains("workers"));
  bad = s;
  bad.kind = WorkerKind::tcp;
  bad.address = "localhost:80";
  CHECK_THROWS_WITH(ExternalObjective(bad, box({0}, {1})), Catch::Contains("address"));
}

TEST_CASE("settings_of: a scenario's [world.objective] as the evaluator's settings",
          "[external][objective]") {
  SyntheticConfig c;
  c.kind = SyntheticConfig::Kind::tcp;
  c.dimension = 2;
  c.address = "127.0.0.1:5000";
  c.command = {"python3", "w.py"};
  c.workers = 7;
  c.timeout = 3.5;
  c.on_failure = SyntheticConfig::OnFailure::abort;
  c.max_retries = 4;
  Settings s = settings_of(c, "run/workers");
  CHECK(s.kind == WorkerKind::tcp);
  CHECK(s.address == "127.0.0.1:5000");
  CHECK(s.command == c.command);
  CHECK(s.workers == 7);
  CHECK(s.timeout == 3.5);
  CHECK(s.on_failure == OnFailure::abort);
  CHECK(s.max_retries == 4);
  CHECK(s.log_folder == std::filesystem::path("run/workers"));
  c.kind = SyntheticConfig::Kind::command;
  CHECK(settings_of(c, "x").kind == WorkerKind::command);
  for (auto f : {SyntheticConfig::OnFailure::skip, SyntheticConfig::OnFailure::retry}) {
    c.on_failure = f;
    CHECK(on_failure_name(settings_of(c, "x").on_failure) ==
          (f == SyntheticConfig::OnFailure::skip ? "skip" : "retry"));
  }
  for (auto k : {SyntheticConfig::Kind::perturbed, SyntheticConfig::Kind::mixture,
                 SyntheticConfig::Kind::branin, SyntheticConfig::Kind::ackley}) {
    c.kind = k;
    CHECK_THROWS_AS(settings_of(c, "x"), std::invalid_argument);
  }
}

namespace {

/// examples/objectives/quadratic_service.py on a free port, stopped when destroyed.
class QuadraticService {
 public:
  QuadraticService() {
    const std::string cmd = "echo $$; exec " + python3() + " " +
                            (examples / "quadratic_service.py").string() + " --port 0";
    pipe_ = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe_);
    char line[64];
    REQUIRE(std::fgets(line, sizeof line, pipe_));
    pid_ = std::atoi(line);
    REQUIRE(std::fgets(line, sizeof line, pipe_));  // the port, once it listens
    port_ = std::atoi(line);
  }
  ~QuadraticService() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    if (pipe_) ::pclose(pipe_);
  }
  int port() const { return port_; }

 private:
  FILE* pipe_ = nullptr;
  int pid_ = 0;
  int port_ = 0;
};

}  // namespace

TEST_CASE("quadratic_service.py over tcp answers exactly what quadratic.py answers",
          "[external][objective]") {
  const QuadraticService service;
  REQUIRE(service.port() > 0);
  Settings tcp;
  tcp.kind = WorkerKind::tcp;
  tcp.address = "127.0.0.1:" + std::to_string(service.port());
  tcp.workers = 3;
  tcp.timeout = 10;
  Settings cmd = command(examples / "quadratic.py");
  cmd.workers = 2;
  const ExternalObjective by_tcp(tcp, box({-1, -1}, {1, 1}));
  const ExternalObjective by_command(cmd, box({-1, -1}, {1, 1}));
  std::vector<Query> queries;
  for (int k = 0; k < 12; ++k)
    queries.push_back(query(k % 5, k - 3, Eigen::Vector2d(0.05 * k, 1.0 - 0.07 * k)));
  const auto a = submit_all(by_tcp, queries), b = submit_all(by_command, queries);
  for (std::size_t k = 0; k < queries.size(); ++k) {
    INFO(k);
    REQUIRE(a[k].answer.has_value());
    REQUIRE(b[k].answer.has_value());
    CHECK(a[k].answer->y == b[k].answer->y);
    CHECK(a[k].answer->f == b[k].answer->f);
  }
  CHECK(a[0].answer->y != a[1].answer->y);
}
