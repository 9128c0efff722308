#pragma once
/// An external black box (docs/external-objectives.md) as the FBO family's objective: every
/// agent asks the same workers, with its id in the request. The agents search the unit box
/// [0, 1]^d; a point is sent mapped linearly onto the worker's box `bounds`.
///  - Agent actors submit() their queries and go on (async() is this object); the outcome comes
///    back on the evaluator's thread.
///  - evaluate() submits and waits, for the plain loop driver (fedsim run --driver loop). The
///    loop has no way to skip an evaluation: a failed one (after on_failure's retries) throws
///    std::runtime_error naming the agent, the iteration, the failure kind and its message.
/// Runs are reproducible when the workers answer as functions of (agent, iteration, x): the
/// request id is unique per submit but depends on the order of submits across threads.
#include <atomic>
#include <cstdint>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "engine/objectives/federated_objective.hpp"
#include "engine/objectives/grid_objective.hpp"
#include "external/external_evaluator.hpp"

namespace fedsim::external {

/// The transport settings a scenario's [world.objective] (kind command or tcp) describes:
/// kind, command, address, workers, timeout, on_failure, max_retries; worker logs go to
/// log_folder. Throws std::invalid_argument if config's kind is not an external one.
Settings settings_of(const SyntheticConfig& config, const std::filesystem::path& log_folder);

class ExternalObjective final : public FederatedObjective, public AsyncEvaluator {
 public:
  /// Validates settings (std::invalid_argument naming the key) and starts the evaluator
  /// (workers start when first needed). bounds: the worker's box, d >= 1 axes, finite,
  /// lower < upper (std::invalid_argument otherwise).
  /// optimum: the function's largest noise-free value where known (regret), else NaN.
  ExternalObjective(Settings settings, Box bounds,
                    double optimum = std::numeric_limits<double>::quiet_NaN());
  std::optional<double> optimum(int /*agent*/) const override {
    if (std::isnan(optimum_)) return std::nullopt;
    return optimum_;
  }
  /// Kills the workers; `done` of every evaluation still pending is called with a "cancelled"
  /// failure before it returns. Not to be called while evaluate() or submit() runs.
  ~ExternalObjective() override;

  /// [0, 1]^d without candidates; bounds = the worker's box.
  const SearchDomain& domain() const override { return domain_; }
  /// Unbounded: every agent asks the same black box, with its id.
  int agents() const override;
  /// Submits and waits. Throws std::runtime_error when the evaluation failed.
  fedsim::Answer evaluate(const Query& query, RandomStream& noise) const override;
  const AsyncEvaluator* async() const override { return this; }
  /// Sends query.x mapped onto the bounds, with the query's agent and iteration and an id of
  /// its own. On failure the outcome names external::failure_kind_name's kind, and is fatal
  /// when on_failure = abort, or when the command cannot start (spawn_failed) or the service
  /// cannot be reached (connect_failed) before any evaluation has succeeded.
  void submit(const Query& query, std::function<void(EvaluationOutcome)> done) const override;

  /// The evaluator's counters (failures per kind, retries, restarts).
  Stats stats() const { return evaluator_->stats(); }

 private:
  SearchDomain domain_;
  bool abort_on_failure_;
  double optimum_;
  mutable std::atomic<std::uint64_t> next_id_{0};
  /// Some evaluation succeeded (before one did, spawn_failed and connect_failed are fatal).
  /// Declared before evaluator_, whose destruction still calls the callbacks that read it.
  mutable std::atomic<bool> answered_{false};
  std::unique_ptr<ExternalEvaluator> evaluator_;
};

}  // namespace fedsim::external
