#include "engine/dp/pld.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/dp/checks.hpp"
#include "engine/dp/log_math.hpp"

namespace fedsim::dp {
namespace {
// Losses beyond this would overflow e^loss; their mass goes to infinity_mass (pessimistic).
constexpr double kMaxLoss = 600.0;
// A larger noise multiplier is treated as this one: more noise only lowers the losses, so the
// PLD stays pessimistic, and s^2 stays finite (at 1e50 every loss is within 1e-50 of 0).
constexpr double kMaxNoise = 1e50;

// Phi(b) - Phi(a) for a <= b, from whichever tail keeps the difference accurate.
double normal_mass(double a, double b) {
  if (a >= 0.0) return normal_sf(a) - normal_sf(b);
  if (b <= 0.0) return normal_cdf(b) - normal_cdf(a);
  return 1.0 - normal_cdf(a) - normal_sf(b);
}

struct Masses {
  double p;  // P(a < L <= b)
  double q;  // Q(a < L <= b)
};

// The pair for one step: x ~ N(0, s^2) without the member, N(1, s^2) with it, the member
// present with probability q. "remove" has P = mixture, Q = N(0, s^2); "add" swaps them.
class SubsampledGaussianPair {
 public:
  SubsampledGaussianPair(double q, double s, PldDirection direction)
      : q_(q), s_(std::min(s, kMaxNoise)), direction_(direction), log_1mq_(q == 1.0 ? -kInf : std::log1p(-q)) {}

  // The remove-direction loss log(1 - q + q e^u), u = (2x - 1) / (2 s^2): increasing in x.
  double remove_loss(double x) const {
    const double u = (2.0 * x - 1.0) / (2.0 * s_ * s_);
    return u > 0.0 ? u + std::log(q_ + (1.0 - q_) * std::exp(-u)) : std::log1p(q_ * std::expm1(u));
  }

  // Inverse of remove_loss: -inf at or below log(1 - q).
  double x_of_remove_loss(double loss) const {
    if (loss <= log_1mq_) return -kInf;
    if (loss == kInf) return kInf;
    const double eu_minus = std::expm1(loss) + q_;       // e^loss - 1 + q = q e^u
    if (loss <= 1.0 && !(eu_minus > 0.0)) return -kInf;  // rounding just above log(1 - q)
    const double log_eu =
        loss > 1.0 ? loss + std::log1p((q_ - 1.0) * std::exp(-loss)) : std::log(eu_minus);
    return s_ * s_ * (log_eu - std::log(q_)) + 0.5;
  }

  // Masses of the loss interval (a, b]; a may be -inf and b +inf.
  Masses masses(double a, double b) const {
    if (direction_ == PldDirection::remove) {
      const double xa = x_of_remove_loss(a), xb = x_of_remove_loss(b);
      const double m0 = normal_mass(xa / s_, xb / s_);
      const double m1 = normal_mass((xa - 1.0) / s_, (xb - 1.0) / s_);
      return {(1.0 - q_) * m0 + q_ * m1, m0};
    }
    // add: a < L <= b  <=>  x in [x(-b), x(-a)).
    const double ya = x_of_remove_loss(-a), yb = x_of_remove_loss(-b);
    const double m0 = normal_mass(yb / s_, ya / s_);
    const double m1 = normal_mass((yb - 1.0) / s_, (ya - 1.0) / s_);
    return {m0, (1.0 - q_) * m0 + q_ * m1};
  }

  LossRange range(double tail_mass) const {
    // P(|x - mean| > c s) <= tail_mass for each component, since Phi-bar(c) <= e^(-c^2/2) / 2.
    const double c = std::sqrt(2.0 * std::log(1.0 / tail_mass));
    LossRange r = direction_ == PldDirection::remove
                      ? LossRange{remove_loss(-c * s_), remove_loss(1.0 + c * s_)}
                      : LossRange{-remove_loss(c * s_), -remove_loss(-c * s_)};
    r.lo = std::max(r.lo, -kMaxLoss);
    r.hi = std::min(r.hi, kMaxLoss);
    return r;
  }

 private:
  double q_, s_;
  PldDirection direction_;
  double log_1mq_;
};
// Mass that rounding lost (total below 1, ~1e-14) goes to +inf: the pessimistic place.
DiscretePld with_rounding_loss_at_infinity(DiscretePld pld) {
  double total = pld.infinity_mass;
  for (double m : pld.mass) total += m;
  pld.infinity_mass += std::max(0.0, 1.0 - total);
  return pld;
}
}  // namespace

double pld_delta(const DiscretePld& pld, double epsilon) {
  double delta = pld.infinity_mass;
  for (std::size_t i = 0; i < pld.mass.size(); ++i) {
    const double l = pld.loss(i);
    if (l > epsilon) delta += pld.mass[i] * -std::expm1(epsilon - l);
  }
  return delta;
}

double pld_epsilon(const DiscretePld& pld, double delta) {
  check_delta(delta);
  const double c = pld.infinity_mass;
  if (c >= delta) return kInf;
  const double shrink = std::exp(-pld.interval);
  // Scanning down from the top bin i: a = mass above l_i, b = sum of w_m e^(l_i - l_m) above
  // l_i (scaled to l_i so nothing overflows), hence delta(l_i) = c + a - b.
  double a = 0.0, b = 0.0;
  for (std::size_t k = pld.mass.size(); k-- > 0;) {
    const double l = pld.loss(k);
    if (c + a - b > delta) return std::max(0.0, l + std::log((c + a - delta) / b));
    if (l <= 0.0) return 0.0;
    const double w = std::max(0.0, pld.mass[k]);
    a += w;
    b = (b + w) * shrink;
  }
  // Below the lowest bin: delta(eps) = c + a - e^(eps - l_{-1}) b with l_{-1} one step lower.
  const double l = pld.loss(0) - pld.interval;
  if (c + a - delta <= 0.0 || b <= 0.0) return 0.0;
  return std::max(0.0, l + std::log((c + a - delta) / b));
}

LossRange subsampled_gaussian_loss_range(double q, double z, PldDirection direction,
                                         double tail_mass) {
  check_sampling_probability(q);
  check_noise_multiplier(z);
  if (!(tail_mass > 0.0 && tail_mass < 1.0))
    throw std::invalid_argument("tail mass must be in (0, 1)");
  return SubsampledGaussianPair(q, z, direction).range(tail_mass);
}

DiscretePld subsampled_gaussian_pld(double q, double z, PldDirection direction, double interval,
                                    Discretisation discretisation, double tail_mass) {
  if (!(interval > 0.0) || !std::isfinite(interval))
    throw std::invalid_argument("PLD interval must be a finite number > 0");
  const LossRange range = subsampled_gaussian_loss_range(q, z, direction, tail_mass);
  const SubsampledGaussianPair pair(q, z, direction);
  const long k_lo = static_cast<long>(std::floor(range.lo / interval));
  const long k_hi = std::max(k_lo + 1, static_cast<long>(std::ceil(range.hi / interval)));
  const std::size_t n = static_cast<std::size_t>(k_hi - k_lo + 1);
  auto eps = [&](long k) { return static_cast<double>(k) * interval; };

  DiscretePld pld;
  pld.interval = interval;
  pld.offset = k_lo;
  pld.mass.assign(n, 0.0);
  // bins[i] = masses of (eps_{i-1}, eps_i], bins[0] = masses of (-inf, eps_lo].
  std::vector<Masses> bins(n);
  bins[0] = pair.masses(-kInf, eps(k_lo));
  for (std::size_t i = 1; i < n; ++i)
    bins[i] = pair.masses(eps(k_lo + long(i) - 1), eps(k_lo + long(i)));
  const Masses top = pair.masses(eps(k_hi), kInf);

  if (discretisation == Discretisation::round_up) {
    for (std::size_t i = 0; i < n; ++i) pld.mass[i] = bins[i].p;
    pld.infinity_mass = top.p;
    return with_rounding_loss_at_infinity(pld);
  }

  // Connect the dots. With t = e^eps, delta(t) is convex; its chords between grid points (and
  // from (0, 1) to the first point) define a discrete PLD whose mass at t_i is t_i times the
  // change of chord slope there. Slope on (t_{i-1}, t_i] is d_i - Q(L > eps_i), where
  // d_i = (t_{i-1} Q_i - P_i) / (t_i - t_{i-1}) in [-Q_i, 0] comes from that bin's own masses,
  // so masses follow from bin masses without subtracting tail probabilities.
  const double up = std::expm1(interval), down = -std::expm1(-interval);  // e^D - 1, 1 - e^-D
  // t_i d_i and t_i d_{i+1}, with t_i / (t_i - t_{i-1}) = 1 / (1 - e^-D) and so on.
  auto scaled_d_own = [&](std::size_t i) {  // t_i d_i
    if (i == 0) return -bins[0].p;
    return (std::exp(-interval) * bins[i].q * std::exp(eps(k_lo + long(i))) - bins[i].p) / down;
  };
  auto scaled_d_next = [&](std::size_t i) {  // t_i d_{i+1}
    return (bins[i + 1].q * std::exp(eps(k_lo + long(i))) - bins[i + 1].p) / up;
  };
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double t = std::exp(eps(k_lo + long(i)));
    pld.mass[i] = std::max(0.0, scaled_d_next(i) - scaled_d_own(i) + t * bins[i + 1].q);
  }
  const double t_hi = std::exp(eps(k_hi));
  pld.mass[n - 1] = std::max(0.0, t_hi * top.q - scaled_d_own(n - 1));
  pld.infinity_mass = std::max(0.0, top.p - t_hi * top.q);
  return with_rounding_loss_at_infinity(pld);
}

}  // namespace fedsim::dp
