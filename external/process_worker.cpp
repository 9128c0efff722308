// A worker process: posix_spawnp with its stdin and stdout on pipes read and written through
// Boost.Asio, in a process group of its own (killing the group also ends what a shell worker
// started) and with a tag in its environment (external/process_tag.hpp: killing what carries it
// ends what left the group), its stderr read from a third pipe into its capped log
// (external/worker_log.hpp).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <chrono>

#include "external/process_tag.hpp"
#include "external/protocol.hpp"
#include "external/stream_worker.hpp"
#include "external/worker_log.hpp"

extern char** environ;

namespace fedsim::external {

namespace {

namespace asio = boost::asio;

/// How long a worker whose output ended may take to exit before it counts as having closed
/// its output while still running (and is killed): polled every 10 ms.
constexpr int exit_polls = 50;
constexpr auto exit_poll_period = std::chrono::milliseconds(10);

std::string status_text(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  const int sig = WTERMSIG(status);
  const char* name = ::sigabbrev_np(sig);
  return "killed by signal " + std::to_string(sig) +
         (name ? std::string(" (SIG") + name + ")" : "");
}

class ProcessWorker final : public StreamWorker {
 public:
  ProcessWorker(asio::io_context& io, std::vector<std::string> argv,
                std::shared_ptr<WorkerLog> log, std::size_t max_line, WorkerEvents events)
      : StreamWorker(max_line, std::move(events)),
        io_(io),
        argv_(std::move(argv)),
        log_(std::move(log)),
        tag_(make_process_tag()),
        stdin_(io),
        stdout_(io),
        stderr_(io),
        poll_(io) {}

  ~ProcessWorker() override { kill_and_reap(); }

  void start(std::function<void(std::optional<WorkerFailure>)> started) override {
    auto failure = spawn();
    if (failure) stop();
    asio::post(io_,
               [started = std::move(started), failure = std::move(failure)] { started(failure); });
    if (!failure) {
      read_more(stdout_);
      if (log_) read_stderr();
    }
  }

  void send(std::string line) override {
    if (!stopped_) write_line(stdin_, std::move(line));
  }

 private:
  std::optional<WorkerFailure> spawn() {
    const std::string program = printable_excerpt(argv_.front(), 200);
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0)
      return WorkerFailure{FailureKind::spawn_failed, std::string("pipe: ") + ::strerror(errno)};
    if (::pipe2(out, O_CLOEXEC) != 0) {
      const int e = errno;
      ::close(in[0]), ::close(in[1]);
      return WorkerFailure{FailureKind::spawn_failed, std::string("pipe: ") + ::strerror(e)};
    }
    int err[2] = {-1, -1};
    if (log_ && ::pipe2(err, O_CLOEXEC) != 0) {
      const int e = errno;
      for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
      return WorkerFailure{FailureKind::spawn_failed, std::string("pipe: ") + ::strerror(e)};
    }
    const int log_fd = err[1];
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    if (log_fd >= 0) ::posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
    // Nothing else of this process reaches the worker (other workers' pipes, sockets and
    // output files opened without O_CLOEXEC by other code).
    ::posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    posix_spawnattr_t attributes;
    ::posix_spawnattr_init(&attributes);
    // Its own process group; no signal blocked (the evaluator's thread blocks SIGPIPE); the
    // default action for SIGPIPE (a worker writing to a closed pipe ends, as usual).
    sigset_t none, pipe;
    sigemptyset(&none);
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    ::posix_spawnattr_setflags(
        &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    ::posix_spawnattr_setpgroup(&attributes, 0);
    ::posix_spawnattr_setsigmask(&attributes, &none);
    ::posix_spawnattr_setsigdefault(&attributes, &pipe);
    std::vector<char*> args;
    for (auto& a : argv_) args.push_back(a.data());
    args.push_back(nullptr);
    std::vector<char*> env{tag_.data()};  // first: found at once in /proc/<pid>/environ
    for (char** e = environ; *e; ++e) env.push_back(*e);
    env.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, args.front(), &actions, &attributes, args.data(), env.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
    ::close(in[0]);
    ::close(out[1]);
    if (log_fd >= 0) ::close(log_fd);
    if (rc != 0) {
      pid_ = -1;
      ::close(in[1]);
      ::close(out[0]);
      if (err[0] >= 0) ::close(err[0]);
      return WorkerFailure{FailureKind::spawn_failed,
                           "cannot start \"" + program + "\": " + ::strerror(rc)};
    }
    spawned_ = true;
    stdin_.assign(in[1]);
    stdout_.assign(out[0]);
    if (err[0] >= 0) {
      stderr_.assign(err[0]);
      stderr_.non_blocking(true);
    }
    return std::nullopt;
  }

  /// Reads the worker's stderr into its log until it ends or the worker is stopped.
  void read_stderr() {
    stderr_.async_read_some(
        asio::buffer(err_buffer_),
        [self = shared_from_this(), this](const boost::system::error_code& ec, std::size_t n) {
          if (stopped_ || ec) return;
          log_->write(std::string_view(err_buffer_.data(), n));
          read_stderr();
        });
  }

  /// Takes what the worker's stderr holds now, without waiting (before its answers are
  /// handled, so that its log holds what it printed before them; and when it is stopped), at
  /// most 64 reads (1 MiB): a writer that never pauses (a descendant that escaped) cannot hold
  /// the evaluator's thread here.
  void drain_stderr() {
    if (!log_ || !stderr_.is_open()) return;
    for (int reads = 0; reads < 64; ++reads) {
      const ssize_t n = ::read(stderr_.native_handle(), err_buffer_.data(), err_buffer_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      log_->write(std::string_view(err_buffer_.data(), static_cast<std::size_t>(n)));
    }
  }

  void before_lines() override { drain_stderr(); }

  void on_end(std::string what) override {
    if (stopped_ || ending_) return;
    ending_ = true;
    what_ = std::move(what);
    poll_exit(0);
  }

  /// Waits up to exit_polls periods for the process to exit: exited or crashed if it does,
  /// closed_output (killed) if it keeps running.
  void poll_exit(int polls) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      fail({WIFEXITED(status) ? FailureKind::exited : FailureKind::crashed,
            "the worker " + status_text(status)});
      return;
    }
    if (r < 0 || polls >= exit_polls) {
      fail({FailureKind::closed_output,
            "the worker's pipe ended (" + what_ + ") while it kept running; killed"});
      return;
    }
    poll_.expires_after(exit_poll_period);
    poll_.async_wait([self = shared_from_this(), this, polls](const boost::system::error_code& ec) {
      if (ec || stopped_) return;
      poll_exit(polls + 1);
    });
  }

  void release() override {
    boost::system::error_code ignored;
    poll_.cancel();
    stdin_.close(ignored);
    stdout_.close(ignored);
    kill_and_reap();
    drain_stderr();  // what it printed before it ended
    stderr_.close(ignored);
    if (log_) log_->flush();
  }

  void kill_and_reap() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);  // the group: what a shell worker started goes too
      ::kill(pid_, SIGKILL);   // in case it left the group
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
    // What left the group (setsid) or double-forked away, even after the worker itself ended.
    if (spawned_) kill_tagged(tag_);
    spawned_ = false;
  }

  asio::io_context& io_;
  std::vector<std::string> argv_;
  std::shared_ptr<WorkerLog> log_;
  std::string tag_;      ///< in its environment and its descendants' (process_tag.hpp)
  bool spawned_ = false;  ///< started, and what carries its tag not yet killed
  asio::posix::stream_descriptor stdin_;
  asio::posix::stream_descriptor stdout_;
  asio::posix::stream_descriptor stderr_;  ///< open when it has a log
  std::array<char, 16384> err_buffer_{};
  asio::steady_timer poll_;
  pid_t pid_ = -1;
  std::string what_;
};

}  // namespace

std::shared_ptr<Worker> make_process_worker(asio::io_context& io, std::vector<std::string> argv,
                                            std::shared_ptr<WorkerLog> log, std::size_t max_line,
                                            WorkerEvents events) {
  return std::make_shared<ProcessWorker>(io, std::move(argv), std::move(log), max_line,
                                         std::move(events));
}

}  // namespace fedsim::external
