#include "engine/dp/pld_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/dp/checks.hpp"
#include "engine/dp/pld_composition.hpp"

namespace fedsim::dp {

PldAccountant::PldAccountant(PldOptions options) : options_(options) {
  if (!(options_.interval > 0.0) || !std::isfinite(options_.interval))
    throw std::invalid_argument("PLD interval must be a finite number > 0");
  if (!(options_.tail_bound > 0.0 && options_.tail_bound <= 1e-3))
    throw std::invalid_argument("PLD tail bound must be in (0, 1e-3]");
  if (options_.max_bins < 1024) throw std::invalid_argument("PLD max_bins must be >= 1024");
}

void PldAccountant::add_subsampled_gaussian(double q, double z, long steps) {
  check_sampling_probability(q);
  check_noise_multiplier(z);
  check_steps(steps);
  if (steps == 0) return;
  steps_ = add_steps(steps_, steps);
  if (!events_.empty() && events_.back().q == q && events_.back().z == z)
    events_.back().steps = add_steps(events_.back().steps, steps);
  else
    events_.push_back({q, z, steps});
}

std::unique_ptr<Accountant> PldAccountant::clone() const {
  return std::make_unique<PldAccountant>(*this);
}

double PldAccountant::direction_epsilon(PldDirection direction, double delta,
                                        double& interval) const {
  // Each step may send this much of its upper tail to infinity: tail_bound in all.
  const double step_tail = options_.tail_bound / static_cast<double>(steps_);
  const double max_bins = static_cast<double>(options_.max_bins);
  for (;;) {
    double widest = 0.0;
    for (const auto& e : events_) {
      const LossRange r = subsampled_gaussian_loss_range(e.q, e.z, direction, step_tail);
      widest = std::max(widest, (r.hi - r.lo) / interval + 2.0);
    }
    if (widest > max_bins) {
      interval *= 1.01 * widest / max_bins;
      continue;
    }
    std::vector<DiscretePld> plds;
    for (const auto& e : events_)
      plds.push_back(subsampled_gaussian_pld(e.q, e.z, direction, interval, options_.discretisation,
                                             step_tail));
    std::vector<PldFactor> factors;
    for (std::size_t i = 0; i < plds.size(); ++i) factors.push_back({&plds[i], events_[i].steps});
    const GridWindow window = composition_window(factors, options_.tail_bound);
    // The window's width in losses barely depends on the interval: coarsen in proportion.
    if (static_cast<double>(window.bins()) > max_bins) {
      interval *= 1.05 * static_cast<double>(window.bins()) / max_bins;
      continue;
    }
    return pld_epsilon(compose(factors, window, options_.tail_bound), delta);
  }
}

PldEpsilon PldAccountant::evaluate(double delta) const {
  check_delta(delta);
  if (steps_ == 0) return {0.0, options_.interval, 0.0};
  double remove_interval = options_.interval, add_interval = options_.interval;
  const double eps_remove = direction_epsilon(PldDirection::remove, delta, remove_interval);
  // Without subsampling the two relations give the same PLD (the Gaussian is symmetric).
  const bool all_gaussian =
      std::all_of(events_.begin(), events_.end(), [](const Event& e) { return e.q == 1.0; });
  const double eps_add =
      all_gaussian ? eps_remove : direction_epsilon(PldDirection::add, delta, add_interval);
  const double interval = std::max(remove_interval, add_interval);
  return {std::max(eps_remove, eps_add), interval, static_cast<double>(steps_) * interval};
}

}  // namespace fedsim::dp
