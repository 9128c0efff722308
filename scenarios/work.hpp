#pragma once
/// The CPU work a run needs, estimated from its configuration before it starts, and the check
/// that refuses a run whose estimate exceeds a limit (`--max-work`, 24 CPU-hours by default):
/// the counterpart of the memory estimate (resources.hpp) for runs that fit in memory but
/// would take days. A guard, not a predictor: each part is a documented operation count over
/// the scenario's sizes (see estimate_work()) times a rate measured on a 2-core AMD EPYC in a
/// Release build; on the shipped scenarios the estimate is within a factor of 3 of the measured
/// CPU time (the table in work.cpp), so that what the key rules accept but no one would wait
/// for (2^31 tuning samples, FN-UCB trained for hours, a sweep of a million runs) is refused
/// with one line naming the key that weighs most.
#include <optional>
#include <string>
#include <vector>

#include "actors/algorithms/work_part.hpp"
#include "actors/run_config.hpp"

namespace fedsim::scenario {

using actors::algorithms::WorkPart;

struct WorkEstimate {
  std::vector<WorkPart> parts;
  std::string sizes;                ///< the sizes the formulas read: "N = 200, T = 40, M = 50, ..."
  double seconds() const;           ///< the sum of the parts, CPU seconds
  const WorkPart& largest() const;  ///< the part that weighs most (parts is never empty)
};

/// The CPU seconds a run of `config` needs, in parts (each names the key that drives it).
///
/// FBO family, N agents, T iterations, n_init initial points, n = n_init + T observations per
/// agent, M features, d dimensions, P sub-regions, C candidates (the grid's n_c, or on a box
/// (acquisition_candidates + 200 acquisition_refine) P), E = N (n_init + T) evaluations (a
/// target agent alone steps when peers are set):
///   - the agents' steps: N T (the actors' messages, 2 x 20 us, and two posterior draws, 2 M^2);
///     with posterior_memory = history a draw refactors: + 2 N T (n M^2 + M^3 / 3);
///   - the acquisition: N T C M (d + 10) (each candidate's M features, a cosine each, and score);
///     on a grid, whose features are computed once, 2 N T n_c M;
///   - the exact sampler: N T (n^2 + n_c n); the authors' local sampler: per draw
///     M_l^3 / 3 + n M_l^2, and its refits 30 restarts n^3 every local_refit_every;
///     hyperparameter refits (refit_every): 30 restarts n^3 each;
///   - the server: 4 T N M P (its aggregation);
///   - the grid's GP draw: n_c^3 / 3 (mixture: + N n_c^2);
///   - the objective: E evaluations; a tuning objective trains on an agent's half shard of
///     s = samples / (2 N) samples of F features (K classes) per evaluation: logistic
///     3 epochs s F K, mlp 48 epochs s F (32 hidden units), svm 1.5 s^2 F + s^3 / 3
///     (tuning_evaluation_ops); the data set's reading and standardisation: 150 samples F.
/// X-armed family, M clients, budget T: Fed-PNE M T pulls (0.1 us each), HCT T steps over a
/// tree of depth log2 T; the objective evaluated at T points per client, or with point =
/// centre (cached) at min(T, 2.5 k sqrt(T)); a baseline's own
/// terms from its kind (AlgorithmKind::work: GP-BO cubic in its evaluations, FN-UCB's
/// training, ...); a tuning objective's evaluations as above (HCT evaluates all M clients per
/// step).
/// Every count is turned into seconds by the rates of actors/algorithms/work_part.hpp.
WorkEstimate estimate_work(const ScenarioConfig& config);

/// Operations one evaluation of a tuning objective takes: training on `train` samples of
/// `features` features and `classes` classes for `epochs` passes (task logistic, mlp, svm).
double tuning_evaluation_ops(TuningSettings::Task task, double train, double features,
                             double classes, double epochs);

/// A CPU time as `--max-work` takes it: a number of seconds with an optional unit s, m, h, d
/// ("24h", "90m", "3600"), or "none" (no limit: nullopt). Throws std::invalid_argument naming
/// `option` and the allowed forms.
std::optional<double> parse_work_time(const std::string& text, const std::string& option);

/// "2.5 CPU-hours": seconds in the largest unit that keeps a number >= 1.
std::string work_text(double seconds);

/// --max-work's default: 24 CPU-hours.
constexpr double default_max_work_seconds = 24 * 3600.0;

/// The work limit a command enforces: `--max-work` as given (nullopt: "none"), else
/// default_max_work_seconds.
struct WorkLimit {
  std::optional<double> seconds;
  std::string source;  ///< "--max-work 2h", "the default --max-work 24h"
};
WorkLimit work_limit(const std::string& option_value, const std::string& option);

/// Empty when `needed` fits `limit`; else the one-line refusal: what `what` needs, its largest
/// part naming its key, the limit and how to override it.
std::string work_refusal(const std::string& what, const WorkEstimate& needed,
                         const WorkLimit& limit, const std::string& option);

}  // namespace fedsim::scenario
