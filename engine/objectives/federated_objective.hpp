#pragma once
/// What the agents of a run evaluate: the interface a program outside the repository
/// implements to bring its own black box (issue 11), and that fedsim's own objectives implement.
/// One objective serves the whole federation: each agent has its own function (heterogeneity
/// is the objective's business; the agent's id is an argument), on one shared search domain.
///
/// Contract:
///  - evaluate() is called from several threads at once for different agents (never twice at
///    once for the same agent); it must not depend on which thread calls it.
///  - For runs to be reproducible (same scenario and seed, same records), evaluate() must be a
///    function of the query and of what it draws from `noise` (the agent's own keyed stream);
///    an objective that simulates observation noise draws it there, a real black box ignores it.
///  - Regret needs the noise-free value `f` of every answer and the optimum of the agent's
///    function; without them observations.csv leaves f and simple_regret empty.
/// The FBO family searches a finite candidate set (domain().candidates; the papers' 1-D grid,
/// or any set of points in the unit box) exhaustively, or, without candidates, the whole unit
/// box by random candidates and local refinement (engine/acquisition.hpp).
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include <Eigen/Dense>

#include "engine/domain.hpp"
#include "engine/rng.hpp"

namespace fedsim {

/// Where the agents search: the unit box [0, 1]^d, and the candidate points in it.
struct SearchDomain {
  Box box;                                 ///< [0, 1]^d (DE's sub-regions partition it)
  std::shared_ptr<const Grid> candidates;  ///< rows are points (null: the whole box)
  /// The objective's own coordinates, where they differ from the unit box (empty: they do
  /// not): a point x of the unit box is lower + x (upper - lower) there. Queries carry unit
  /// coordinates; observations.csv writes these.
  std::optional<Box> bounds;
  int dim() const { return box.dim(); }
  /// x (unit coordinates) in the objective's own coordinates.
  Eigen::VectorXd to_bounds(const Eigen::Ref<const Eigen::VectorXd>& x) const {
    if (!bounds) return x;
    return bounds->lower + x.cwiseProduct(bounds->upper - bounds->lower);
  }
};

/// One evaluation asked of the objective.
struct Query {
  int agent = 0;
  int iteration = 0;   ///< the agent's iteration (<= 0: its initial design)
  int candidate = -1;  ///< row of domain().candidates, or -1 for a point of the box
  Eigen::VectorXd x;   ///< the point, every coordinate
};

/// What the objective answers.
struct Answer {
  double y = 0.0;             ///< the observed value (noise included): what the agent learns
  std::optional<double> f;    ///< the noise-free value, where known (for regret)
  std::optional<double> cost; ///< compute seconds of this evaluation, where known
};

/// How an evaluation that runs elsewhere (an external objective's worker) ended.
struct EvaluationOutcome {
  std::optional<Answer> answer;  ///< present on success
  std::string failure_kind;      ///< on failure: its name ("timeout", "bad_y", ...)
  std::string failure_message;   ///< on failure: the reason, one line
  /// The failure stops the run (the objective's on_failure = abort): the agent fails loudly.
  bool fatal = false;
  int attempts = 1;  ///< 1 + the retries it took
  /// Measured wall seconds of the attempt that answered (NaN when not measured).
  double wall_seconds = std::numeric_limits<double>::quiet_NaN();
};

/// Evaluations that take wall time elsewhere, asked without blocking: an agent actor submits
/// its queries and goes on; the outcome comes back through `done`.
class AsyncEvaluator {
 public:
  virtual ~AsyncEvaluator() = default;
  /// Starts evaluating `query` (noise is the worker's business: no stream is passed). `done` is
  /// called exactly once, on any thread, possibly before submit returns; it must not throw.
  virtual void submit(const Query& query, std::function<void(EvaluationOutcome)> done) const = 0;
};

class FederatedObjective {
 public:
  virtual ~FederatedObjective() = default;
  virtual const SearchDomain& domain() const = 0;
  int dimension() const { return domain().dim(); }
  /// The agents that have a function of their own: agent ids are 0 .. agents() - 1.
  virtual int agents() const = 0;
  virtual Answer evaluate(const Query& query, RandomStream& noise) const = 0;
  /// The largest noise-free value of `agent`'s function on the domain, where known.
  virtual std::optional<double> optimum(int /*agent*/) const { return std::nullopt; }
  /// Non-null for objectives evaluated elsewhere: agent actors then submit their queries there
  /// instead of calling evaluate() (which such an objective implements by waiting for submit's
  /// outcome, for the loop driver).
  virtual const AsyncEvaluator* async() const { return nullptr; }
};

/// Checks what the FBO family needs of an objective for `agents` agents: enough functions, the
/// unit box (with valid bounds, if any), and candidates, if any, inside it. Throws std::invalid_argument saying what is
/// missing.
void check_fbo_objective(const FederatedObjective& objective, int agents);

}  // namespace fedsim
