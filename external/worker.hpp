#pragma once
/// One worker the evaluator talks to: a process (stdin/stdout pipes) or a TCP connection. It
/// writes request lines and reports the lines it reads and its own end; the evaluator (pool)
/// decides what they mean. All calls and events happen on the evaluator's io_context thread.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "external/outcome.hpp"
#include "external/settings.hpp"

namespace boost::asio {
class io_context;
}

namespace fedsim::external {

/// Why a worker ended or could not start.
struct WorkerFailure {
  FailureKind kind = FailureKind::exited;
  std::string message;
};

struct WorkerEvents {
  /// A complete line it printed; return false to read no further (the pool stops it).
  std::function<bool(std::string&& line)> on_line;
  /// It ended on its own (exited, crashed, closed its output, printed a line longer than
  /// the cap); it has already stopped itself. At most once, never after stop().
  std::function<void(WorkerFailure failure)> on_failed;
};

class Worker {
 public:
  virtual ~Worker() = default;
  /// Starts it (spawns the process, connects); `started` is posted once with std::nullopt, or
  /// with the failure (spawn_failed, connect_failed) after which the worker is stopped.
  virtual void start(std::function<void(std::optional<WorkerFailure>)> started) = 0;
  /// Writes `line` (request lines end in "\n"); lines are written whole, in order. A write
  /// error is reported through on_failed once the worker's state is known.
  virtual void send(std::string line) = 0;
  /// Kills the process (its whole process group) and reaps it, or closes the connection. No
  /// event is delivered after it. Idempotent.
  virtual void stop() = 0;
};

class WorkerLog;

/// argv run with posix_spawnp in a process group of its own; its stderr read into `log`
/// (external/worker_log.hpp; null: inherited). Stopping it kills its process group and every
/// process started under it that still carries its tag in its environment (one that left the
/// group with setsid, a daemon that double-forked).
std::shared_ptr<Worker> make_process_worker(boost::asio::io_context& io,
                                            std::vector<std::string> argv,
                                            std::shared_ptr<WorkerLog> log, std::size_t max_line,
                                            WorkerEvents events);

/// One connection to the evaluation service at `address`.
std::shared_ptr<Worker> make_tcp_worker(boost::asio::io_context& io, Address address,
                                        std::size_t max_line, WorkerEvents events);

}  // namespace fedsim::external
