#include "engine/xarmed/hct_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/rng.hpp"

namespace fedsim::xarmed {

void HctRunConfig::validate() const {
  problem.validate();
  params.validate();
  if (budget < 1) throw std::invalid_argument("hct: budget T must be >= 1");
  if (k < 2) throw std::invalid_argument("hct: arity k must be >= 2");
}

HctResult run_hct(const HctRunConfig& config) {
  config.validate();
  return run_hct(config, make_problem(config.problem));
}

namespace {

/// The run with either HCT (both have propose, observe, last_slot, tree_size, depth, cell and
/// most_pulled).
template <class H>
HctResult run_with(H& hct, const HctRunConfig& config, const FederatedProblem& problem) {
  RandomStream rng(config.problem.seed, "hct.run");
  const Objective& f = *problem.global;
  const double f_star = f.optimum_value();
  const bool centre = config.point == PointRule::centre;
  std::vector<double> value_of_slot;  // centre rule: f at each node's centre, evaluated once

  HctResult result;
  if (config.record_curve) result.regret_curve.reserve(static_cast<std::size_t>(config.budget));
  double regret = 0.0;
  const std::int64_t every = std::max<std::int64_t>(1, config.budget / 100);
  for (std::int64_t t = 0; t < config.budget; ++t) {
    const Eigen::VectorXd& x = hct.propose(rng);
    double value;
    if (centre) {
      const std::size_t slot = hct.last_slot();
      if (value_of_slot.size() <= slot)
        value_of_slot.resize(hct.tree_size(), std::numeric_limits<double>::quiet_NaN());
      if (std::isnan(value_of_slot[slot])) value_of_slot[slot] = f.value(x);
      value = value_of_slot[slot];
    } else {
      value = f.value(x);
    }
    regret += f_star - value;
    hct.observe(value + rng.uniform(-problem.noise, problem.noise));
    if (config.record_curve) result.regret_curve.push_back(regret);
    if (config.on_progress && ((t + 1) % every == 0 || t + 1 == config.budget))
      config.on_progress(t + 1, regret);
  }
  result.cumulative_regret = regret;
  result.tree_size = hct.tree_size();
  result.depth = hct.depth();
  const Box& best = hct.cell(hct.most_pulled());
  result.recommendation = 0.5 * (best.lower + best.upper);
  return result;
}

}  // namespace

HctResult run_hct(const HctRunConfig& config, const FederatedProblem& problem) {
  config.validate();
  PartitionTree tree(problem.domain, config.k, config.split, config.problem.seed);
  switch (config.variant) {
    case HctVariant::azar: {
      Hct hct(std::move(tree), config.params, config.point);
      return run_with(hct, config, problem);
    }
    case HctVariant::pyxab: {
      PyxabHct hct(std::move(tree), config.params, config.point);
      HctResult r = run_with(hct, config, problem);
      r.re_expansions = hct.re_expansions();
      return r;
    }
  }
  throw std::logic_error("hct: unknown variant");
}

}  // namespace fedsim::xarmed
