#include "engine/dp/pld_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/dp/checks.hpp"

namespace fedsim::dp {
namespace {

/// The tail mass each step may send to +inf: tail_bound / 1024^k for the smallest k >= 1 with
/// 1024^k >= steps (at most tail_bound / steps, so tail_bound in all). A ladder rather than
/// tail_bound / steps so that a mechanism's discretised PLD is kept while releases are added
/// (it changes at 1024 steps, 2^20, ...).
double step_tail(double tail_bound, long steps) {
  double ladder = 1024.0;
  while (ladder < static_cast<double>(steps)) ladder *= 1024.0;
  return tail_bound / ladder;
}

}  // namespace

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
  // Composition commutes: one entry per distinct mechanism.
  for (Event& e : events_)
    if (e.q == q && e.z == z) {
      e.steps = add_steps(e.steps, steps);
      return;
    }
  events_.push_back({q, z, steps});
}

std::unique_ptr<Accountant> PldAccountant::clone() const {
  return std::make_unique<PldAccountant>(*this);
}

PldAccountant::Mechanism& PldAccountant::mechanism(double q, double z, PldDirection direction,
                                                   double tail) const {
  for (Mechanism& m : cache_)
    if (m.q == q && m.z == z && m.direction == direction && m.step_tail == tail) return m;
  // Entries of another tail are of the past (the ladder only goes down): drop them.
  cache_.remove_if([&](const Mechanism& m) { return m.step_tail != tail; });
  cache_.push_back({q, z, direction, tail, subsampled_gaussian_loss_range(q, z, direction, tail), {}});
  return cache_.back();
}

PldAccountant::Level& PldAccountant::level(Mechanism& m, double interval) const {
  for (Level& l : m.levels)
    if (l.interval == interval) return l;
  Level l{interval, {}, nullptr, 0, nullptr};
  l.pld = std::make_shared<const DiscretePld>(subsampled_gaussian_pld(
      m.q, m.z, m.direction, interval, options_.discretisation, m.step_tail));
  l.profile = chernoff_profile(*l.pld);
  m.levels.push_back(std::move(l));
  return m.levels.back();
}

double PldAccountant::direction_epsilon(PldDirection direction, double delta, double& interval,
                                        long bins_allowed) const {
  const double tail = step_tail(options_.tail_bound, steps_);
  const double max_bins = static_cast<double>(bins_allowed);
  std::vector<Mechanism*> mechanisms;
  for (const auto& e : events_) mechanisms.push_back(&mechanism(e.q, e.z, direction, tail));
  // Where to start looking: the composed window's width in losses, estimated from a coarse
  // grid on which every step has at most kSketchBins bins (cheap to discretise), tells which
  // spacings cannot fit; they are skipped without being discretised.
  constexpr double kSketchBins = 4096.0;
  double sketch = interval;
  for (const Mechanism* m : mechanisms)
    while ((m->range.hi - m->range.lo) / sketch + 2.0 > kSketchBins) sketch *= 2.0;
  std::vector<std::pair<const ChernoffProfile*, long>> sketches;
  for (std::size_t i = 0; i < mechanisms.size(); ++i)
    sketches.emplace_back(&level(*mechanisms[i], sketch).profile, events_[i].steps);
  const double width = static_cast<double>(composition_window(sketches, options_.tail_bound).bins() - 2) * sketch;
  while (width / interval > max_bins && interval < sketch) interval *= 2.0;
  // The spacing: the finest of interval x 2^k from there at which the composition fits,
  // decided at each spacing from that spacing's own pieces. Every choice here depends on the
  // releases alone, so the epsilon does too.
  for (;; interval *= 2.0) {
    // A step wider than the grid allows needs no discretisation to be refused.
    bool too_wide = false;
    for (const Mechanism* m : mechanisms)
      too_wide = too_wide || (m->range.hi - m->range.lo) / interval + 2.0 > max_bins;
    if (too_wide) continue;
    std::vector<Level*> levels;
    std::vector<std::pair<const ChernoffProfile*, long>> profiles;
    for (std::size_t i = 0; i < mechanisms.size(); ++i) {
      levels.push_back(&level(*mechanisms[i], interval));
      profiles.emplace_back(&levels.back()->profile, events_[i].steps);
    }
    const GridWindow window = composition_window(profiles, options_.tail_bound);
    if (static_cast<double>(window.bins()) > max_bins) continue;
    const long n = fft_size(window);
    std::vector<SpectralFactor> factors;
    for (std::size_t i = 0; i < levels.size(); ++i) {
      Level& l = *levels[i];
      if (l.spectrum_size != n) {
        l.spectrum = std::make_shared<const std::vector<std::complex<double>>>(pld_spectrum(*l.pld, n));
        l.spectrum_size = n;
      }
      factors.push_back({l.spectrum.get(), l.pld->offset, l.pld->infinity_mass, events_[i].steps});
    }
    return pld_epsilon(compose_spectra(factors, n, interval, window, options_.tail_bound), delta);
  }
}

PldEpsilon PldAccountant::evaluate(double delta) const {
  check_delta(delta);
  if (steps_ == 0) return {0.0, options_.interval, 0.0};
  double remove_interval = options_.interval, add_interval = options_.interval;
  const double eps_remove =
      direction_epsilon(PldDirection::remove, delta, remove_interval, options_.max_bins);
  // Without subsampling the two relations give the same PLD (the Gaussian is symmetric).
  const bool all_gaussian =
      std::all_of(events_.begin(), events_.end(), [](const Event& e) { return e.q == 1.0; });
  if (all_gaussian)
    return {eps_remove, remove_interval, static_cast<double>(steps_) * remove_interval};
  // Adding a member is usually the milder relation: an upper bound on it from a grid 16 times
  // smaller that stays at or below eps_remove settles the maximum (both are rigorous upper
  // bounds, so the true epsilon of both relations is at most eps_remove) without the fine
  // composition; the error bound is then eps_remove's.
  if (options_.settle_add_coarsely) {
    double coarse_interval = options_.interval;
    const double coarse_add = direction_epsilon(PldDirection::add, delta, coarse_interval,
                                                std::max(1024L, options_.max_bins / 16));
    if (coarse_add <= eps_remove)
      return {eps_remove, remove_interval, static_cast<double>(steps_) * remove_interval};
  }
  const double eps_add =
      direction_epsilon(PldDirection::add, delta, add_interval, options_.max_bins);
  const double interval = std::max(remove_interval, add_interval);
  return {std::max(eps_remove, eps_add), interval, static_cast<double>(steps_) * interval};
}

}  // namespace fedsim::dp
