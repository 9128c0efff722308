#pragma once
/// Evaluates points with external workers (docs/external-objectives.md): processes started
/// from a command, or connections to a TCP evaluation service, speaking line-delimited JSON.
/// The evaluator owns an io_context run by a thread of its own; evaluate() never blocks.
/// Outcomes depend only on the workers' answers, never on which worker served a request: runs
/// are reproducible when workers are stateless functions of the request.
#include <functional>
#include <memory>
#include <optional>

#include "external/outcome.hpp"
#include "external/settings.hpp"

namespace fedsim::external {

class ExternalEvaluator {
 public:
  /// Validates `settings` (std::invalid_argument naming the key), creates the log folder
  /// (std::runtime_error if it cannot) and starts the evaluator's thread. Workers are started
  /// when first needed and kept for later requests.
  explicit ExternalEvaluator(Settings settings);
  /// Kills every worker and calls `done` of every request not finished yet with a `cancelled`
  /// failure (on the evaluator's thread, before returning), then joins the thread. Must not be
  /// called from a `done` callback, nor while another thread calls evaluate().
  ~ExternalEvaluator();
  ExternalEvaluator(const ExternalEvaluator&) = delete;
  ExternalEvaluator& operator=(const ExternalEvaluator&) = delete;

  /// Queues `request`; `done` is called exactly once, on the evaluator's thread, with its
  /// answer or its failure. Thread-safe. Requests wait while every worker is busy (one request
  /// at a time per worker) and are served in order. `done` must not throw (std::terminate).
  void evaluate(Request request, std::function<void(Outcome)> done);

  /// The counters so far (thread-safe).
  Stats stats() const;
  /// The failure that stopped the evaluator (on_failure = abort), if one did: from then on every
  /// queued or new request fails with `aborted`. Thread-safe.
  std::optional<Failure> fatal() const;

  const Settings& settings() const;

 private:
  class Pool;
  std::unique_ptr<Pool> pool_;
};

}  // namespace fedsim::external
