#pragma once
/// What an external evaluation is asked and what comes back: the request, a worker's answer,
/// a failure with its named reason, and the evaluator's counters.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fedsim::external {

/// One evaluation: the point x for an agent at an iteration. `id` is echoed by the worker.
struct Request {
  std::uint64_t id = 0;
  int agent = 0;
  int iteration = 0;
  std::vector<double> x;
};

/// Why an evaluation (or a worker) failed. Every kind is counted in `Stats`.
enum class FailureKind {
  spawn_failed,     ///< the command could not be started (not found, not executable)
  connect_failed,   ///< tcp: the connection to the service could not be made
  exited,           ///< the worker process exited (its status is in the message)
  crashed,          ///< the worker process was killed by a signal
  closed_output,    ///< the worker closed its stdout while running; tcp: the service closed
  timeout,          ///< no answer within `timeout` seconds (the worker is killed)
  not_json,         ///< the answer line is not a JSON object
  wrong_id,         ///< the answer has no id or another request's id
  bad_y,            ///< "y" missing, not a number or not finite
  bad_field,        ///< "f" or "cost" present but not a finite number (cost < 0)
  line_too_long,    ///< an answer line longer than `max_line_bytes` (not buffered whole)
  unexpected_line,  ///< a line while no request was outstanding (no evaluation fails)
  worker_error,     ///< the worker answered {"id": ..., "error": "why"}
  invalid_request,  ///< x has a non-finite coordinate: never sent
  aborted,          ///< refused: the evaluator stopped after an on_failure = abort failure
  cancelled,        ///< the evaluator was destroyed before the answer came
};
inline constexpr std::size_t failure_kind_count = 16;

/// The kind's name as written in logs and events ("timeout", "bad_y", ...).
std::string_view failure_kind_name(FailureKind kind);

/// A successful evaluation: the worker's values and the measured wall time of the attempt that
/// answered (from writing the request to reading the answer).
struct Answer {
  double y = 0;
  std::optional<double> f;     ///< noise-free value, when the worker gives it
  std::optional<double> cost;  ///< compute seconds to charge in virtual time, when given
  double wall_seconds = 0;
  int attempts = 1;  ///< 1 + the retries it took
};

/// A failed evaluation: the reason of its last attempt and how many attempts were made.
struct Failure {
  FailureKind kind = FailureKind::cancelled;
  std::string message;
  int attempts = 0;
};

/// What `done` receives, exactly once per request.
struct Outcome {
  std::uint64_t id = 0;
  std::variant<Answer, Failure> result;

  bool ok() const { return std::holds_alternative<Answer>(result); }
  const Answer& answer() const { return std::get<Answer>(result); }
  const Failure& failure() const { return std::get<Failure>(result); }
};

/// Counters of an evaluator since it was made.
struct Stats {
  std::uint64_t requests = 0;   ///< evaluate() calls
  std::uint64_t succeeded = 0;  ///< outcomes with an answer
  std::uint64_t failed = 0;     ///< outcomes with a failure (after any retries)
  std::uint64_t retries = 0;    ///< attempts beyond the first
  std::uint64_t restarts = 0;   ///< workers stopped after a failure, to be started again
  /// Failure events per kind: every failed attempt, plus worker failures while idle
  /// (exited, crashed, closed_output, unexpected_line) that fail no evaluation.
  std::array<std::uint64_t, failure_kind_count> by_kind{};

  std::uint64_t count(FailureKind kind) const { return by_kind[static_cast<std::size_t>(kind)]; }
};

}  // namespace fedsim::external
