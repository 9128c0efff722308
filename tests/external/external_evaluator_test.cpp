// ExternalEvaluator with scripted workers: every way a worker can go wrong is a named, counted
// failure, the worker is restarted, and later requests succeed.
#include "external/external_evaluator.hpp"

#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "tests/external/external_test_support.hpp"
#include "tests/test_files.hpp"

using namespace fedsim::external;
using namespace fedsim::external::test;
using Clock = std::chrono::steady_clock;

namespace {

/// A worker whose behaviour is its first argument; it misbehaves only on requests whose x[0]
/// is negative, so the same worker answers later requests (after its restart) correctly.
/// y = sum of x_i^2, f = y, cost = 0.25; its pid goes to stderr at start.
constexpr const char* scripted_worker = R"PY(
import json, os, select, signal, sys, time
mode = sys.argv[1]
sys.stderr.write("worker pid %d mode %s\n" % (os.getpid(), mode))
sys.stderr.flush()
def lines():  # unbuffered: a request written early stays in the pipe, visible to select
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(0, 65536)
            if not chunk: return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        if pending: yield line, True  # a second request came with the first
        else: yield line, False
for line, early in lines():
    req = json.loads(line)
    x = req["x"]
    y = sum(v * v for v in x)
    answer = {"id": req["id"], "y": y, "f": y, "cost": 0.25, "pid": os.getpid()}
    if x and x[0] < 0:
        if mode == "exit": sys.exit(3)
        if mode == "crash": os.kill(os.getpid(), signal.SIGSEGV)
        if mode == "hang": time.sleep(30)
        if mode == "not_json": answer = None; print("loss = 0.3", flush=True)
        if mode == "wrong_id": answer["id"] = req["id"] + 1
        if mode == "missing_y": del answer["y"]
        if mode == "nan_y": answer["y"] = float("nan")
        if mode == "bad_cost": answer["cost"] = -1
        if mode == "huge":
            sys.stdout.write("x" * (3 << 20)); sys.stdout.flush(); time.sleep(30)
        if mode == "close_stdout": os.close(1); time.sleep(30)
        if mode == "error": answer = {"id": req["id"], "error": "diverged at x0 < 0"}
        if mode == "two_lines": print(json.dumps(answer), flush=True)
        if mode == "oneshot": print(json.dumps(answer), flush=True); sys.exit(0)
    elif mode == "sleep":
        time.sleep(0.5)
    if mode == "sleep":  # one request at a time: nothing more may be written meanwhile
        early = early or bool(select.select([0], [], [], 0)[0])
        if early: answer = {"id": req["id"], "error": "a second request while busy"}
    if answer is not None:
        print(json.dumps(answer), flush=True)
)PY";

Settings worker_settings(const std::filesystem::path& dir, const std::string& mode,
                         OnFailure on_failure = OnFailure::skip) {
  Settings s;
  s.command = {python3(), "-u", write_script(dir, "worker.py", scripted_worker).string(), mode};
  s.timeout = 5;
  s.on_failure = on_failure;
  s.max_retries = 2;
  s.log_folder = dir / "logs";
  return s;
}

const Request good{1, 0, 0, {1.0, 2.0}};
const Request bad{2, 0, 0, {-1.0, 2.0}};

struct FailureCase {
  const char* mode;
  FailureKind kind;
  const char* message;  // a piece of the failure's message
};

}  // namespace

TEST_CASE("ExternalEvaluator answers with y, f, cost and the measured wall time", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-good");
  ExternalEvaluator evaluator(worker_settings(dir, "good"));
  const Outcome first = evaluate_now(evaluator, {7, 3, 5, {0.5, 1.5}});
  REQUIRE(first.ok());
  CHECK(first.id == 7);
  CHECK(first.answer().y == 2.5);
  CHECK(first.answer().f == 2.5);
  CHECK(first.answer().cost == 0.25);
  CHECK(first.answer().attempts == 1);
  CHECK(first.answer().wall_seconds > 0);
  CHECK(first.answer().wall_seconds < 5);
  for (std::uint64_t id = 8; id < 12; ++id) {
    const Outcome next = evaluate_now(evaluator, {id, 0, 0, {double(id)}});
    REQUIRE(next.ok());
    CHECK(next.answer().y == double(id * id));
  }
  const Stats stats = evaluator.stats();
  CHECK(stats.requests == 5);
  CHECK(stats.succeeded == 5);
  CHECK(stats.failed == 0);
  CHECK(stats.restarts == 0);
  // One worker, kept alive and reused: it was started once (one pid line in its log).
  const std::string log = fedsim::test::slurp(dir / "logs" / "worker-0.log");
  CHECK(log.find("worker pid") != std::string::npos);
  CHECK(log.find("worker pid") == log.rfind("worker pid"));
}

TEST_CASE("ExternalEvaluator names, counts and survives each worker failure", "[external]") {
  const FailureCase cases[] = {
      {"exit", FailureKind::exited, "exited with status 3"},
      {"crash", FailureKind::crashed, "SIGSEGV"},
      {"not_json", FailureKind::not_json, "loss = 0.3"},
      {"wrong_id", FailureKind::wrong_id, "expected 2"},
      {"missing_y", FailureKind::bad_y, "no \"y\""},
      {"nan_y", FailureKind::bad_y, "not a finite number"},
      {"bad_cost", FailureKind::bad_field, "\"cost\""},
      {"huge", FailureKind::line_too_long, "longer than 1048576 bytes"},
      {"close_stdout", FailureKind::closed_output, "kept running"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.mode) {
      const auto dir = fedsim::test::fresh_dir(std::string("external-") + c.mode);
      ExternalEvaluator evaluator(worker_settings(dir, c.mode));
      const auto start = Clock::now();
      REQUIRE(evaluate_now(evaluator, good).ok());
      const Outcome failed = evaluate_now(evaluator, bad);
      REQUIRE_FALSE(failed.ok());
      CHECK(failed.id == bad.id);
      CHECK(failed.failure().kind == c.kind);
      CHECK_THAT(failed.failure().message, Catch::Contains(c.message));
      CHECK_THAT(failed.failure().message, Catch::StartsWith("worker 0: "));
      CHECK(failed.failure().attempts == 1);  // skip: no retry
      // Restarted after its backoff, the worker answers again.
      const Outcome after = evaluate_now(evaluator, good);
      REQUIRE(after.ok());
      CHECK(after.answer().y == 5);
      const Stats stats = evaluator.stats();
      CHECK(stats.count(c.kind) == 1);
      CHECK(stats.restarts == 1);
      CHECK(stats.failed == 1);
      CHECK(stats.succeeded == 2);
      CHECK(stats.retries == 0);
      CHECK(std::chrono::duration<double>(Clock::now() - start).count() < 3);
      // Two workers started: two lines in the log.
      const std::string log = fedsim::test::slurp(dir / "logs" / "worker-0.log");
      CHECK(log.find("worker pid") != log.rfind("worker pid"));
    }
  }
}

TEST_CASE("ExternalEvaluator kills a worker that hangs past the timeout", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-hang");
  Settings settings = worker_settings(dir, "hang");
  settings.timeout = 0.4;
  ExternalEvaluator evaluator(settings);
  const auto start = Clock::now();
  const Outcome failed = evaluate_now(evaluator, bad);
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::timeout);
  CHECK_THAT(failed.failure().message, Catch::Contains("no answer within 0.4"));
  CHECK(waited >= 0.4);
  CHECK(waited < 2);  // the worker sleeps 30 s: it was killed, not waited for
  REQUIRE(evaluate_now(evaluator, good).ok());
  CHECK(evaluator.stats().count(FailureKind::timeout) == 1);
  CHECK(evaluator.stats().restarts == 1);
}

TEST_CASE("ExternalEvaluator: an error answer fails the request and keeps the worker",
          "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-error");
  ExternalEvaluator evaluator(worker_settings(dir, "error"));
  const Outcome failed = evaluate_now(evaluator, bad);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::worker_error);
  CHECK_THAT(failed.failure().message, Catch::Contains("diverged at x0 < 0"));
  REQUIRE(evaluate_now(evaluator, good).ok());
  const Stats stats = evaluator.stats();
  CHECK(stats.count(FailureKind::worker_error) == 1);
  CHECK(stats.restarts == 0);
  const std::string log = fedsim::test::slurp(dir / "logs" / "worker-0.log");
  CHECK(log.find("worker pid") == log.rfind("worker pid"));  // one worker throughout
}

TEST_CASE("ExternalEvaluator: a line nobody asked for restarts the worker", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-two-lines");
  ExternalEvaluator evaluator(worker_settings(dir, "two_lines"));
  // The first line answers the request; the second is unexpected. Whether the second arrives
  // before the answer is handed out or after, the answer stands.
  const Outcome answered = evaluate_now(evaluator, bad);
  REQUIRE(answered.ok());
  CHECK(answered.answer().y == 5);
  wait_until([&] { return evaluator.stats().count(FailureKind::unexpected_line) == 1; });
  CHECK(evaluator.stats().restarts == 1);
  CHECK(evaluator.stats().failed == 0);
  REQUIRE(evaluate_now(evaluator, good).ok());
}

TEST_CASE("ExternalEvaluator: a command that cannot start is spawn_failed", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-spawn");
  Settings settings;
  settings.command = {(dir / "no-such-program").string()};
  settings.on_failure = OnFailure::retry;
  settings.max_retries = 2;
  settings.backoff_initial = 0.01;
  ExternalEvaluator evaluator(settings);
  const Outcome failed = evaluate_now(evaluator, good);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::spawn_failed);
  CHECK_THAT(failed.failure().message, Catch::Contains("No such file or directory"));
  CHECK(failed.failure().attempts == 3);
  CHECK(evaluator.stats().count(FailureKind::spawn_failed) == 3);
  CHECK(evaluator.stats().retries == 2);
}

TEST_CASE("ExternalEvaluator retry: max_retries more attempts, then the failure", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-retry");
  ExternalEvaluator evaluator(worker_settings(dir, "exit", OnFailure::retry));
  const auto start = Clock::now();
  const Outcome failed = evaluate_now(evaluator, bad);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::exited);
  CHECK(failed.failure().attempts == 3);
  Stats stats = evaluator.stats();
  CHECK(stats.count(FailureKind::exited) == 3);
  CHECK(stats.retries == 2);
  CHECK(stats.restarts == 3);
  // The backoff doubles: 50 + 100 ms between the three attempts at least.
  CHECK(std::chrono::duration<double>(Clock::now() - start).count() >= 0.15);
  const Outcome after = evaluate_now(evaluator, good);
  REQUIRE(after.ok());
  CHECK(after.answer().attempts == 1);
}

TEST_CASE("ExternalEvaluator retry: a request that fails once succeeds on its retry",
          "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-flaky");
  // Exits on its first request ever (a marker file remembers), answers afterwards.
  const auto script = write_script(dir, "flaky.py", R"PY(
import json, os, sys
marker = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    if not os.path.exists(marker):
        open(marker, "w").close()
        sys.exit(1)
    print(json.dumps({"id": req["id"], "y": 1.5}), flush=True)
)PY");
  Settings settings;
  settings.command = {python3(), "-u", script.string(), (dir / "tripped").string()};
  settings.on_failure = OnFailure::retry;
  settings.max_retries = 1;
  ExternalEvaluator evaluator(settings);
  const Outcome outcome = evaluate_now(evaluator, good);
  REQUIRE(outcome.ok());
  CHECK(outcome.answer().y == 1.5);
  CHECK(outcome.answer().attempts == 2);
  CHECK(evaluator.stats().count(FailureKind::exited) == 1);
  CHECK(evaluator.stats().retries == 1);
}

TEST_CASE("ExternalEvaluator abort: the failure, then a fatal state refusing requests",
          "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-abort");
  ExternalEvaluator evaluator(worker_settings(dir, "not_json", OnFailure::abort));
  REQUIRE(evaluate_now(evaluator, good).ok());
  CHECK_FALSE(evaluator.fatal());
  const Outcome failed = evaluate_now(evaluator, bad);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::not_json);
  REQUIRE(evaluator.fatal());
  CHECK(evaluator.fatal()->kind == FailureKind::not_json);
  const Outcome refused = evaluate_now(evaluator, good);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.failure().kind == FailureKind::aborted);
  CHECK(refused.failure().attempts == 0);
  CHECK_THAT(refused.failure().message, Catch::Contains("on_failure = abort"));
  CHECK(evaluator.stats().count(FailureKind::not_json) == 1);
}

TEST_CASE("ExternalEvaluator refuses a non-finite x without sending it", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-nan-x");
  ExternalEvaluator evaluator(worker_settings(dir, "good"));
  const Outcome refused = evaluate_now(evaluator, {3, 0, 0, {0.5, std::nan("")}});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.failure().kind == FailureKind::invalid_request);
  CHECK(refused.failure().message == "x[1] is not finite");
  CHECK(evaluator.stats().count(FailureKind::invalid_request) == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "logs" / "worker-0.log"));  // no worker started
}

TEST_CASE("ExternalEvaluator runs one request per worker, workers in parallel", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-parallel");
  Settings settings = worker_settings(dir, "sleep");
  settings.workers = 4;
  ExternalEvaluator evaluator(settings);
  std::vector<Request> requests;
  for (std::uint64_t id = 0; id < 8; ++id) requests.push_back({id, int(id), 0, {double(id)}});
  const auto start = Clock::now();
  const auto outcomes = evaluate_all(evaluator, requests);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    REQUIRE(outcomes[k].ok());
    // Any worker may serve any request: the answer depends on the request only.
    CHECK(outcomes[k].answer().y == double(k * k));
  }
  // The concurrency promise, not a performance figure (the charter's tests never assert on
  // speed): 8 requests of 0.5 s on 4 workers take about 1 s, one at a time 4 s. The bound is
  // loose for a loaded machine and still fails if the workers ran one after another.
  CHECK(elapsed < 2.5);
  CHECK(elapsed >= 1.0);  // and never two requests at once on one worker
  int logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "logs")) {
    (void)entry;
    ++logs;
  }
  CHECK(logs == 4);
}

TEST_CASE("ExternalEvaluator destroyed with requests in flight: cancelled, workers killed",
          "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-destroy");
  Settings settings = worker_settings(dir, "hang");
  settings.workers = 2;
  std::mutex mutex;
  std::vector<Outcome> outcomes;
  std::vector<int> pids;
  const auto start = Clock::now();
  {
    ExternalEvaluator evaluator(settings);
    for (std::uint64_t id = 0; id < 5; ++id)  // x[0] < 0: each worker hangs on its request
      evaluator.evaluate({id, 0, 0, {-1.0}}, [&](Outcome o) {
        std::lock_guard<std::mutex> lock(mutex);
        outcomes.push_back(std::move(o));
      });
    wait_until([&] {
      pids = worker_pids(dir / "logs");
      return pids.size() == 2;
    });
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  CHECK(elapsed < 3);  // the workers sleep 30 s: not waited for
  std::lock_guard<std::mutex> lock(mutex);
  // Documented: every callback is called exactly once, before the destructor returns, with a
  // `cancelled` failure (2 in flight on the workers, 3 queued).
  REQUIRE(outcomes.size() == 5);
  std::vector<bool> seen(5, false);
  for (const auto& o : outcomes) {
    REQUIRE(o.id < 5);
    CHECK_FALSE(seen[o.id]);
    seen[o.id] = true;
    REQUIRE_FALSE(o.ok());
    CHECK(o.failure().kind == FailureKind::cancelled);
  }
  REQUIRE(pids.size() == 2);
  for (const int pid : pids) {
    errno = 0;
    CHECK(::kill(pid, 0) == -1);  // killed and reaped
    CHECK(errno == ESRCH);
  }
}

TEST_CASE("ExternalEvaluator: a worker that exits after answering is counted, nothing fails",
          "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-oneshot");
  ExternalEvaluator evaluator(worker_settings(dir, "oneshot"));
  const Outcome answered = evaluate_now(evaluator, bad);  // answers, then exits while idle
  REQUIRE(answered.ok());
  CHECK(answered.answer().y == 5);
  wait_until([&] { return evaluator.stats().count(FailureKind::exited) == 1; });
  const Outcome after = evaluate_now(evaluator, good);  // on a new worker
  REQUIRE(after.ok());
  const Stats stats = evaluator.stats();
  CHECK(stats.failed == 0);
  CHECK(stats.succeeded == 2);
  CHECK(stats.restarts == 1);
  CHECK(worker_pids(dir / "logs").size() == 2);
}

TEST_CASE("ExternalEvaluator: evaluate may be called from a done callback", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-chain");
  ExternalEvaluator evaluator(worker_settings(dir, "good"));
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<double> ys;
  std::function<void(Outcome)> next = [&](Outcome o) {
    std::lock_guard<std::mutex> lock(mutex);
    ys.push_back(o.ok() ? o.answer().y : -1);
    if (ys.size() < 3)  // on the evaluator's thread: queued, not run inside this call
      evaluator.evaluate({ys.size(), 0, 0, {double(ys.size())}}, next);
    changed.notify_all();
  };
  evaluator.evaluate({0, 0, 0, {0.0}}, next);
  std::unique_lock<std::mutex> lock(mutex);
  REQUIRE(changed.wait_for(lock, std::chrono::seconds(10), [&] { return ys.size() == 3; }));
  CHECK(ys == std::vector<double>{0, 1, 4});
}

TEST_CASE("ExternalEvaluator refuses bad settings and an impossible log folder", "[external]") {
  const auto dir = fedsim::test::fresh_dir("external-settings");
  Settings settings = worker_settings(dir, "good");
  settings.workers = 0;
  CHECK_THROWS_WITH(ExternalEvaluator(settings), Catch::StartsWith("workers: "));
  settings = worker_settings(dir, "good");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a-file") << "x";
  settings.log_folder = dir / "a-file" / "logs";
  CHECK_THROWS_WITH(ExternalEvaluator(settings), Catch::StartsWith("log_folder: cannot create"));
}
