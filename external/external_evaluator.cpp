// The pool behind ExternalEvaluator: worker slots, the request queue, timeouts, restarts with
// backoff, the on_failure policy and the counters, all on the io_context's own thread.
#include "external/external_evaluator.hpp"

#include <pthread.h>
#include <signal.h>

#include <boost/asio.hpp>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include "external/protocol.hpp"
#include "external/worker.hpp"
#include "external/worker_log.hpp"

namespace fedsim::external {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

struct Job {
  Request request;
  std::function<void(Outcome)> done;
  int attempts = 0;
};

/// One worker place: at most one worker and one request at a time.
struct Slot {
  enum class State {
    down,      ///< no worker; started when a request comes
    backoff,   ///< no worker; waiting before it may be started again
    starting,  ///< a worker starting (connecting) for `job`
    idle,      ///< a live worker and no request
    busy,      ///< `job` written, its answer awaited
  };
  Slot(asio::io_context& io, int index, double backoff)
      : index(index), timer(io), backoff(backoff) {}

  int index;
  State state = State::down;
  std::shared_ptr<Worker> worker;
  std::uint64_t worker_serial = 0;  ///< events of older workers are ignored
  std::optional<Job> job;
  asio::steady_timer timer;        ///< the job's timeout, or the backoff
  std::uint64_t timer_serial = 0;  ///< a timer handler of an older purpose does nothing
  double backoff;                  ///< seconds before the next restart after a failure
  Clock::time_point sent_at;
  /// Command workers with a log folder: the slot's capped stderr log, made when its first
  /// worker starts and shared by the slot's workers.
  std::shared_ptr<WorkerLog> log;
};

/// One allocation and its release, which the compiler may not leave out.
void warm_allocator() {
  static volatile std::size_t sink = 0;
  std::string s(static_cast<std::size_t>(64) + sink, 'x');
  sink = sink + s.size() - s.size();
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

class ExternalEvaluator::Pool {
 public:
  explicit Pool(Settings settings) : settings_(std::move(settings)), guard_(io_.get_executor()) {
    validate(settings_);
    if (!settings_.log_folder.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(settings_.log_folder, ec);
      if (ec || !std::filesystem::is_directory(settings_.log_folder))
        throw std::runtime_error("log_folder: cannot create \"" + settings_.log_folder.string() +
                                 "\": " + ec.message());
    }
    if (settings_.kind == WorkerKind::tcp) address_ = *parse_address(settings_.address);
    for (int i = 0; i < settings_.workers; ++i)
      slots_.push_back(std::make_unique<Slot>(io_, i, settings_.backoff_initial));
    thread_ = std::thread([this] { run(); });
  }

  ~Pool() {
    asio::post(io_, [this] { shut_down(); });
    guard_.reset();
    thread_.join();
  }

  void evaluate(Request request, std::function<void(Outcome)> done) {
    asio::post(io_, [this, job = Job{std::move(request), std::move(done), 0}]() mutable {
      submit(std::move(job));
    });
  }

  Stats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

  std::optional<Failure> fatal() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return fatal_;
  }

  const Settings& settings() const { return settings_; }

 private:
  void run() {
    // A write to a worker that has gone raises SIGPIPE in the writing thread: blocked here,
    // the write fails with EPIPE instead (workers get the default action back at spawn).
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    // The thread's first allocation now, not at its first request, which may come while memory
    // is exhausted: jemalloc sets up a thread's arena then, and crashed when it could not.
    warm_allocator();
    for (;;) {
      try {
        io_.run();
        return;
      } catch (const std::bad_alloc&) {  // out of memory: said without allocating
        std::lock_guard<std::mutex> lock(mutex_);
        if (!fatal_ && out_of_memory_) fatal_ = std::move(out_of_memory_);
      } catch (const std::exception& e) {  // a bug: say so through fatal(), keep serving
        std::lock_guard<std::mutex> lock(mutex_);
        if (!fatal_)
          fatal_ = Failure{FailureKind::aborted, std::string("internal error: ") + e.what(), 0};
      }
    }
  }

  template <class F>
  void update(F&& change) {
    std::lock_guard<std::mutex> lock(mutex_);
    change(stats_);
  }

  void count(FailureKind kind) {
    update([kind](Stats& s) { ++s.by_kind[static_cast<std::size_t>(kind)]; });
  }

  void submit(Job job) {
    update([](Stats& s) { ++s.requests; });
    if (stopping_)
      return finish(job, Failure{FailureKind::cancelled, "the evaluator is shutting down", 0});
    if (const auto fatal = this->fatal())
      return finish(job, Failure{FailureKind::aborted,
                                 "the evaluator stopped after a failure (on_failure = abort): " +
                                     fatal->message,
                                 0});
    for (std::size_t k = 0; k < job.request.x.size(); ++k)
      if (!std::isfinite(job.request.x[k])) {
        count(FailureKind::invalid_request);
        return finish(job, Failure{FailureKind::invalid_request,
                                   "x[" + std::to_string(k) + "] is not finite", 0});
      }
    queue_.push_back(std::move(job));
    dispatch();
  }

  /// Gives queued requests to idle workers first, then to slots without a worker.
  void dispatch() {
    while (!queue_.empty() && !stopping_) {
      Slot* chosen = nullptr;
      for (auto& slot : slots_)
        if (slot->state == Slot::State::idle) {
          chosen = slot.get();
          break;
        }
      if (!chosen)
        for (auto& slot : slots_)
          if (slot->state == Slot::State::down) {
            chosen = slot.get();
            break;
          }
      if (!chosen) return;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      assign(*chosen, std::move(job));
    }
  }

  void assign(Slot& slot, Job job) {
    ++job.attempts;
    slot.job = std::move(job);
    arm_timeout(slot);
    if (slot.worker) {
      send(slot);
      return;
    }
    start_worker(slot);
  }

  void start_worker(Slot& slot) {
    const int i = slot.index;
    const std::uint64_t serial = ++slot.worker_serial;
    WorkerEvents events{
        [this, i, serial](std::string&& line) { return on_line(i, serial, std::move(line)); },
        [this, i, serial](WorkerFailure failure) {
          on_worker_failed(i, serial, std::move(failure));
        }};
    switch (settings_.kind) {
      case WorkerKind::command: {
        if (!settings_.log_folder.empty() && !slot.log) {
          try {
            slot.log = std::make_shared<WorkerLog>(settings_.log_folder /
                                                   ("worker-" + std::to_string(i) + ".log"));
          } catch (const std::runtime_error& e) {  // failed as a start does: later, once
            slot.state = Slot::State::starting;
            asio::post(io_, [this, i, serial, why = std::string(e.what())] {
              on_worker_failed(i, serial, {FailureKind::spawn_failed, why});
            });
            return;
          }
        }
        slot.worker = make_process_worker(io_, settings_.command, slot.log,
                                          settings_.max_line_bytes, std::move(events));
        break;
      }
      case WorkerKind::tcp:
        slot.worker = make_tcp_worker(io_, address_, settings_.max_line_bytes, std::move(events));
        break;
    }
    slot.state = Slot::State::starting;
    slot.worker->start([this, i, serial](std::optional<WorkerFailure> failure) {
      Slot& slot = *slots_[i];
      if (stopping_ || slot.worker_serial != serial || slot.state != Slot::State::starting) return;
      if (failure) return on_worker_failed(i, serial, std::move(*failure));
      if (slot.job) return send(slot);
      slot.state = Slot::State::idle;
      dispatch();
    });
  }

  void send(Slot& slot) {
    slot.state = Slot::State::busy;
    slot.sent_at = Clock::now();
    slot.worker->send(encode_request(slot.job->request));
  }

  void arm_timeout(Slot& slot) {
    const int i = slot.index;
    const std::uint64_t serial = ++slot.timer_serial;
    slot.timer.expires_after(seconds(settings_.timeout));
    slot.timer.async_wait([this, i, serial](const boost::system::error_code& ec) {
      Slot& slot = *slots_[i];
      if (ec || stopping_ || slot.timer_serial != serial) return;
      fail_worker(slot, FailureKind::timeout,
                  "no answer within " + std::to_string(settings_.timeout) + " s; killed");
    });
  }

  void start_backoff(Slot& slot) {
    const int i = slot.index;
    const std::uint64_t serial = ++slot.timer_serial;
    slot.state = Slot::State::backoff;
    slot.timer.expires_after(seconds(slot.backoff));
    slot.backoff = std::min(settings_.backoff_max, 2 * slot.backoff);
    slot.timer.async_wait([this, i, serial](const boost::system::error_code& ec) {
      Slot& slot = *slots_[i];
      if (ec || stopping_ || slot.timer_serial != serial) return;
      slot.state = Slot::State::down;
      dispatch();
    });
  }

  std::optional<Job> take_job(Slot& slot) {
    ++slot.timer_serial;
    slot.timer.cancel();
    std::optional<Job> job = std::move(slot.job);
    slot.job.reset();
    return job;
  }

  bool on_line(int i, std::uint64_t serial, std::string&& line) {
    Slot& slot = *slots_[i];
    if (stopping_ || slot.worker_serial != serial) return false;
    if (slot.state != Slot::State::busy) {
      fail_worker(
          slot, FailureKind::unexpected_line,
          "a line while no request was outstanding: \"" + printable_excerpt(line, 80) + "\"");
      return false;
    }
    auto parsed = parse_response(line, slot.job->request.id);
    if (auto* reply = std::get_if<Reply>(&parsed)) {
      Job job = std::move(*take_job(slot));
      Answer answer{reply->y, reply->f, reply->cost,
                    std::chrono::duration<double>(Clock::now() - slot.sent_at).count(),
                    job.attempts};
      slot.state = Slot::State::idle;
      slot.backoff = settings_.backoff_initial;
      finish(job, answer);
      dispatch();
      return true;
    }
    if (auto* error = std::get_if<WorkerError>(&parsed)) {
      // The worker kept to the protocol: it stays, the request follows on_failure.
      Job job = std::move(*take_job(slot));
      slot.state = Slot::State::idle;
      count(FailureKind::worker_error);
      resolve_failure(std::move(job), FailureKind::worker_error,
                      "worker " + std::to_string(i) + " answered an error: " + error->message);
      dispatch();
      return true;
    }
    const auto& protocol = std::get<ProtocolError>(parsed);
    fail_worker(slot, protocol.kind, protocol.message);
    return false;
  }

  void on_worker_failed(int i, std::uint64_t serial, WorkerFailure failure) {
    Slot& slot = *slots_[i];
    if (stopping_ || slot.worker_serial != serial) return;
    fail_worker(slot, failure.kind, failure.message);
  }

  /// Counts the failure, stops the worker, starts the slot's backoff and settles its request.
  void fail_worker(Slot& slot, FailureKind kind, const std::string& message) {
    count(kind);
    update([](Stats& s) { ++s.restarts; });
    ++slot.worker_serial;
    if (slot.worker) slot.worker->stop();
    slot.worker.reset();
    std::optional<Job> job = take_job(slot);
    start_backoff(slot);
    if (job)
      resolve_failure(std::move(*job), kind,
                      "worker " + std::to_string(slot.index) + ": " + message);
    dispatch();
  }

  /// on_failure: retry (first in the queue again) while attempts remain, else fail it; abort
  /// also puts the evaluator in its fatal state.
  void resolve_failure(Job job, FailureKind kind, std::string message) {
    if (settings_.on_failure == OnFailure::retry && job.attempts <= settings_.max_retries) {
      update([](Stats& s) { ++s.retries; });
      queue_.push_front(std::move(job));
      return;
    }
    Failure failure{kind, std::move(message), job.attempts};
    if (settings_.on_failure == OnFailure::abort) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!fatal_) fatal_ = failure;
      }
      finish(job, failure);
      std::deque<Job> queued;
      queued.swap(queue_);
      for (auto& waiting : queued)
        finish(waiting, Failure{FailureKind::aborted,
                                "the evaluator stopped after a failure (on_failure = abort): " +
                                    failure.message,
                                waiting.attempts});
      return;
    }
    finish(job, std::move(failure));
  }

  /// Calls `done` once; a callback that throws ends the program (it must not). Out of memory
  /// (the outcome's copy, or the callback's message) is tried again for a while rather than
  /// lost: a caller waiting for an outcome that never comes would wait for ever.
  void finish(Job& job, std::variant<Answer, Failure> result) noexcept {
    const bool ok = std::holds_alternative<Answer>(result);
    update([ok](Stats& s) { ++(ok ? s.succeeded : s.failed); });
    auto done = std::move(job.done);
    job.done = nullptr;
    if (!done) return;
    for (int attempt = 0;; ++attempt) {
      try {
        done(Outcome{job.request.id, result});
        return;
      } catch (const std::bad_alloc&) {
        if (attempt == 200) return;  // 2 s: the run has failed and is ending meanwhile
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }

  void shut_down() {
    stopping_ = true;
    const Failure cancelled{FailureKind::cancelled, "the evaluator was destroyed", 0};
    for (auto& slot : slots_) {
      ++slot->worker_serial;
      if (slot->worker) slot->worker->stop();
      slot->worker.reset();
      if (auto job = take_job(*slot)) {
        count(FailureKind::cancelled);
        finish(*job, Failure{cancelled.kind, cancelled.message, job->attempts});
      }
      slot->state = Slot::State::down;
    }
    while (!queue_.empty()) {
      Job job = std::move(queue_.front());
      queue_.pop_front();
      count(FailureKind::cancelled);
      finish(job, Failure{cancelled.kind, cancelled.message, job.attempts});
    }
  }

  Settings settings_;
  Address address_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  mutable std::mutex mutex_;  // stats_ and fatal_, read from any thread
  Stats stats_;
  std::optional<Failure> fatal_;
  /// fatal_ after an out-of-memory on the evaluator's thread, made beforehand.
  std::optional<Failure> out_of_memory_ =
      Failure{FailureKind::aborted, "internal error: out of memory (std::bad_alloc)", 0};
  std::thread thread_;
};

ExternalEvaluator::ExternalEvaluator(Settings settings)
    : pool_(std::make_unique<Pool>(std::move(settings))) {}

ExternalEvaluator::~ExternalEvaluator() = default;

void ExternalEvaluator::evaluate(Request request, std::function<void(Outcome)> done) {
  pool_->evaluate(std::move(request), std::move(done));
}

Stats ExternalEvaluator::stats() const { return pool_->stats(); }

std::optional<Failure> ExternalEvaluator::fatal() const { return pool_->fatal(); }

const Settings& ExternalEvaluator::settings() const { return pool_->settings(); }

}  // namespace fedsim::external
