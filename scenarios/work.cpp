#include "scenarios/work.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "actors/algorithms/algorithm_kind.hpp"
#include "data/datasets.hpp"
#include "scenarios/resources.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/schema.hpp"  // number_text

// Calibration: CPU seconds (user + system) of `fedsim run --threads 1 --quiet` in a Release
// build on the 2-core AMD EPYC the project runs on (--driver loop for the baselines), against
// estimate_work() (`--max-work 0.000001s` prints it), 2026-11-28:
//
// | scenario (--set)                                              | estimated | measured |
// | ------------------------------------------------------------- | --------- | -------- |
// | tiny.toml                                                     |    0.033  |    0.07  |
// | dp-fts-de-synthetic.toml (N = 200, T = 40, grid)              |    0.94   |    0.63  |
// | papers/fts-fig1.toml                                          |    0.20   |    0.16  |
// | objectives/hartmann6.toml (box, d = 6, P = 4)                 |    6.5    |    7.3   |
// | stragglers/sync.toml                                          |    0.94   |    0.71  |
// | papers/dp-fts-de-authors-sampler.toml (refit-rff)             |    5.2    |    8.2   |
// | papers/real/svm-detection.toml                                |   27      |   23.4   |
// | papers/real/svm-detection.toml (T = 1, N = 12, 12000 samples) |   12      |    9.0   |
// | papers/real/logistic-activity.toml (T = 10)                   |   13      |    9.6   |
// | papers/real/logistic-activity.toml (T = 2, N = 12, samples 0) |   53      |   72.6   |
// | papers/real/mlp-images.toml (T = 10)                          |   32      |   27.8   |
// | papers/fed-pne-garland.toml                                   |    0.04   |    0.00  |
// | papers/real/fed-pne-svm-detection.toml (T = 200)              |   13      |   12.5   |
// | papers/hct-garland.toml                                       |    0.043  |    0.01  |
// | papers/real/hct-svm-detection.toml (T = 100)                  |    8.9    |    9.2   |
// | papers/fn-ucb-garland.toml                                    |   16      |   23.1   |
// | papers/gp-bo-garland.toml (T = 150)                           |   13      |   13.1   |
// | papers/kernel-ts-garland.toml                                 |    0.13   |    0.06  |
// | papers/fed1-ucb-garland.toml                                  |    0.03   |    0.01  |
// | real/logistic-activity.toml as the mutator shrinks it, samples 0 | 6.2    |    8.4   |
// |   (N = 12, T = 4, n_init = 3, 100 candidates, epochs 1)       |           |          |
// | real/mlp-images.toml, the same                                |    7.7    |   11.3   |
//
// Within a factor of 3 either way on every row above 0.1 s (below, the process's own start
// dominates). Beyond the table: GP-BO's 1,000 evaluations, about 2 h measured
// (docs/baselines/gp-bo.md), are estimated at 4.7 h; batched BO's 100 rounds of 10, 17 min, at
// about 45 min. The rates are in actors/algorithms/work_part.hpp.

namespace fedsim::scenario {

namespace {

using actors::algorithms::seconds_per_flop;
using actors::algorithms::seconds_per_message;
using schema::number_text;

double ops_seconds(double ops) { return ops * seconds_per_flop; }

/// A tuning objective's per-agent training half, F features and K classes, when its data set
/// is known (else nullopt: its key rule refuses it).
struct TuningShape {
  double train = 0;     ///< s: samples an evaluation trains on
  double features = 0;  ///< F
  double classes = 0;   ///< K
  double used = 0;      ///< samples read in all
};

std::optional<TuningShape> tuning_shape(const std::string& dataset, int samples, int agents) {
  const auto& names = data::dataset_names();
  if (std::find(names.begin(), names.end(), dataset) == names.end()) return std::nullopt;
  const data::DatasetShape shape = data::dataset_shape(dataset);
  TuningShape t;
  t.used = samples == 0 ? shape.samples : std::min(samples, shape.samples);
  t.train = t.used / (2.0 * std::max(1, agents));
  t.features = shape.features;
  t.classes = shape.classes;
  return t;
}

/// The tuning objective's parts: E evaluations of one agent's training (`per_evaluation` of
/// its shards: 1, or M for HCT's mean of every client), and the data set's reading.
void tuning_parts(TuningSettings::Task task, const std::string& dataset, int samples, int epochs,
                  int agents, double evaluations, double per_evaluation,
                  std::vector<WorkPart>& parts) {
  const auto shape = tuning_shape(dataset, samples, agents);
  if (!shape) return;
  const std::string key = "world.objective.samples";
  const double one =
      tuning_evaluation_ops(task, shape->train, shape->features, shape->classes, epochs);
  const std::string formula = task == TuningSettings::Task::svm   ? "1.5 s^2 F + s^3 / 3"
                              : task == TuningSettings::Task::mlp ? "48 epochs s F"
                                                                  : "3 epochs s F K";
  parts.push_back({key,
                   "the tuning objective's trainings (" + number_text(evaluations) +
                       (per_evaluation > 1 ? " x " + number_text(per_evaluation) : std::string()) +
                       " evaluations of " + formula +
                       ", s = " + number_text(std::round(shape->train)) +
                       " samples of F = " + number_text(shape->features) + " features)",
                   ops_seconds(evaluations * per_evaluation * one)});
  parts.push_back(
      {key, "the data set's reading and standardisation (150 samples F)",
       ops_seconds(150 * shape->used * shape->features)});
}

/// The FBO family's parts (see estimate_work()).
void fbo_parts(const ScenarioConfig& c, WorkEstimate& e) {
  std::vector<WorkPart>& parts = e.parts;
  const auto& a = c.algorithm;
  const auto& o = c.world.objective;
  const auto [n_agents, m, t, n, d, nc, p] = fbo_sizes(c);
  // Peers (the target-agent setting) only answer; the learners step.
  const double learners = c.world.peer_observations > 0 ? 1.0 : n_agents;
  const double steps = learners * t;
  const double evaluations = learners * (a.n_init + t);
  const double candidates =
      o.is_grid() ? nc : p * (a.acquisition_candidates + 200.0 * a.acquisition_refine);
  e.sizes = "N = " + number_text(n_agents) + ", T = " + number_text(t) + ", M = " + number_text(m) +
            ", n = " + number_text(n) + ", d = " + number_text(d) +
            (o.is_grid() ? ", n_c = " + number_text(nc) : ", C = " + number_text(candidates)) +
            (p > 1 ? ", P = " + number_text(p) : std::string());

  parts.push_back({"world.agents", "the agents' steps and messages (N T (2 x 20 us + 2 M^2))",
                   steps * seconds_per_message * 2 + ops_seconds(steps * 2 * m * m)});
  // On a grid the candidates' features are computed once: a score is a dot product.
  parts.push_back({"algorithm.iterations",
                   o.is_grid() ? "the agents' acquisitions (2 N T n_c M)"
                               : "the agents' acquisitions (N T C M (d + 10), C = P (candidates + "
                                 "200 refine))",
                   ops_seconds(steps * candidates * m * (o.is_grid() ? 2 : d + 10))});
  if (a.posterior_memory == fbo::PosteriorMemory::history)
    parts.push_back(
        {"algorithm.features",
         "the posterior refactored per draw (2 N T (n M^2 + M^3 / 3), posterior_memory = history)",
         ops_seconds(2 * steps * (n * m * m + m * m * m / 3))});
  if (a.local_sampler == fbo::LocalSampler::exact)
    parts.push_back({"algorithm.iterations", "the exact sampler (N T (n^2 + n_c n))",
                     ops_seconds(steps * (n * n + nc * n))});
  if (a.local_sampler == fbo::LocalSampler::refit_rff ||
      a.local_sampler == fbo::LocalSampler::refit_rff_bounded) {
    const double ml = a.refit_rff.features;
    const double refits = a.refit_rff.every > 0 ? std::floor(n / a.refit_rff.every) : 0.0;
    parts.push_back({"algorithm.local_features",
                     "the authors' sampler's draws (2 N T (M_l^3 / 3 + n M_l^2))",
                     ops_seconds(2 * steps * (ml * ml * ml / 3 + n * ml * ml))});
    parts.push_back({"algorithm.local_refit_every",
                     "the authors' sampler's refits (N n / every x restarts x 30 n^3 / 3)",
                     ops_seconds(learners * refits * a.refit_rff.restarts * 30 * n * n * n / 3)});
  }
  if (a.refit.every > 0)
    parts.push_back({"algorithm.refit_every",
                     "the hyperparameter refits (N n / every x restarts x 30 n^3 / 3)",
                     ops_seconds(learners * std::floor(n / a.refit.every) * a.refit.restarts * 30 *
                                 n * n * n / 3)});
  parts.push_back({"algorithm.features", "the server's aggregations (4 T N M P)",
                   ops_seconds(t * n_agents * m * p * 4)});
  if (o.is_grid()) {
    parts.push_back({"world.objective.grid_size", "the grid's GP draw (n_c^3 / 3)",
                     ops_seconds(nc * nc * nc / 3)});
    if (o.kind == SyntheticConfig::Kind::mixture)
      parts.push_back({"world.objective.grid_size", "a function on the grid per agent (N n_c^2)",
                       ops_seconds(n_agents * nc * nc)});
  }
  if (o.is_tuning())
    tuning_parts(o.task, o.dataset, o.samples, o.epochs, c.world.agents, evaluations, 1, parts);
}

/// The points a tree search evaluates in T pulls: every pull with point = uniform; with point =
/// centre a node's pulls repeat its centre, which the objectives cache (a tuning objective
/// trains once per point), and a search of T pulls visits about 2.5 k sqrt(T) nodes (measured,
/// at 6 ms a training: Fed-PNE's svm-detection at T = 200 about 70 per client, HCT's at T = 100
/// about 50).
double distinct_points(const xarmed::FedPneConfig& f, double pulls) {
  if (f.point == xarmed::PointRule::uniform) return pulls;
  return std::min(pulls, std::ceil(2.5 * f.k * std::sqrt(pulls)));
}

/// The X-armed family's parts.
void xarmed_parts(const ScenarioConfig& c, WorkEstimate& e) {
  std::vector<WorkPart>& parts = e.parts;
  const auto& f = c.xarmed.fed_pne;
  const double clients = c.world.agents;
  const double budget = static_cast<double>(f.budget);
  const actors::algorithms::AlgorithmKind& kind = algorithm_kind(c);
  e.sizes = "M = " + number_text(clients) + ", T = " + number_text(budget);
  double evaluations = 0, per_evaluation = 1;
  if (c.xarmed.hct) {
    // T steps, each down a tree of depth about log2 T, and the global objective's M clients.
    const double depth = std::max(1.0, std::log2(std::max(2.0, budget)));
    parts.push_back({"algorithm.budget", "HCT's steps (T log2 T tree updates, 0.1 us each)",
                     budget * depth * 0.1e-6});
    evaluations = distinct_points(f, budget);
    per_evaluation = clients;
  } else if (kind.xarmed->tree) {
    parts.push_back(
        {"algorithm.budget", "the clients' pulls (M T, 0.1 us each)", clients * budget * 0.1e-6});
    evaluations = clients * distinct_points(f, budget);
  } else {
    // A baseline: its own terms (GP fits, network training), then its evaluations.
    if (kind.work) {
      std::vector<WorkPart> own = kind.work(algorithm_params(c), c);
      parts.insert(parts.end(), own.begin(), own.end());
    }
    evaluations = kind.xarmed->federated ? clients * budget : budget;
    per_evaluation = kind.xarmed->federated ? 1 : clients;
  }
  const auto& problem = f.problem;
  if (problem.is_tuning())
    tuning_parts(problem.task, problem.dataset, problem.samples, problem.epochs, c.world.agents,
                 evaluations, per_evaluation, parts);
}

}  // namespace

double tuning_evaluation_ops(TuningSettings::Task task, double train, double features,
                             double classes, double epochs) {
  switch (task) {
    case TuningSettings::Task::logistic:
      return 3 * epochs * train * features * classes;
    case TuningSettings::Task::mlp:
      return epochs * train * features * 32 * 1.5;
    case TuningSettings::Task::svm:
      return 1.5 * train * train * features + train * train * train / 3;
  }
  throw std::logic_error("tuning_evaluation_ops: not a TuningSettings::Task value");
}

double WorkEstimate::seconds() const {
  double total = 0;
  for (const WorkPart& p : parts) total += p.seconds;
  return total;
}

const WorkPart& WorkEstimate::largest() const {
  return *std::max_element(parts.begin(), parts.end(), [](const WorkPart& a, const WorkPart& b) {
    return a.seconds < b.seconds;
  });
}

WorkEstimate estimate_work(const ScenarioConfig& config) {
  WorkEstimate e;
  // The process's start, the scenario's load and the outputs' writing.
  e.parts.push_back({"", "the process itself", 0.03});
  if (config.xarmed.enabled)
    xarmed_parts(config, e);
  else
    fbo_parts(config, e);
  return e;
}

std::optional<double> parse_work_time(const std::string& text, const std::string& option) {
  if (text == "none") return std::nullopt;
  const auto bad = [&] {
    return std::invalid_argument(option + " " + quote(text) +
                                 ": expected a CPU time like 24h, 90m, 2d or 3600 (seconds; "
                                 "units s, m, h, d), or none (no limit)");
  };
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw bad();
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  const std::string rest = text.substr(used);
  double unit = 1;
  if (rest == "m")
    unit = 60;
  else if (rest == "h")
    unit = 3600;
  else if (rest == "d")
    unit = 86400;
  else if (!rest.empty() && rest != "s")
    throw bad();
  const double seconds = value * unit;
  if (!(std::isfinite(seconds) && seconds > 0)) throw bad();
  return seconds;
}

std::string work_text(double seconds) {
  char buf[64];
  if (!std::isfinite(seconds) || seconds >= 86400 * 1e6)
    std::snprintf(buf, sizeof buf, "%.3g CPU-days", seconds / 86400);
  else if (seconds >= 86400)
    std::snprintf(buf, sizeof buf, "%.1f CPU-days", seconds / 86400);
  else if (seconds >= 3600)
    std::snprintf(buf, sizeof buf, "%.1f CPU-hours", seconds / 3600);
  else if (seconds >= 60)
    std::snprintf(buf, sizeof buf, "%.1f CPU-minutes", seconds / 60);
  else
    std::snprintf(buf, sizeof buf, "%.2g CPU-seconds", seconds);
  return buf;
}

WorkLimit work_limit(const std::string& option_value, const std::string& option) {
  if (!option_value.empty())
    return {parse_work_time(option_value, option), option + " " + option_value};
  return {default_max_work_seconds, "the default " + option + " 24h"};
}

std::string work_refusal(const std::string& what, const WorkEstimate& needed,
                         const WorkLimit& limit, const std::string& option) {
  if (!limit.seconds || needed.seconds() <= *limit.seconds) return "";
  const WorkPart& part = needed.largest();
  return what + " needs about " + work_text(needed.seconds()) + ", above " + limit.source + " (" +
         work_text(*limit.seconds) + "): the largest part is " + part.what + " = " +
         work_text(part.seconds) +
         (part.key.empty()               ? ""
          : part.key.rfind("--", 0) == 0 ? ", from " + part.key
                                         : ", from key '" + part.key + "'") +
         (needed.sizes.empty() ? "" : " (" + needed.sizes + ")") + "; lower it, or give " + option +
         " TIME (e.g. 72h) or " + option + " none to run anyway";
}

}  // namespace fedsim::scenario
