#include "engine/dp/rdp.hpp"

#include <math.h>  // lgamma_r (glibc)

#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/dp/checks.hpp"
#include "engine/dp/log_math.hpp"

namespace fedsim::dp {
namespace {
// Terms of the fractional-order series summed at most (the rest is then bounded, not summed):
// at q = 1/2 and large z the terms fall off only polynomially.
constexpr long kMaxSeriesTerms = 100'000;
// Below this noise multiplier the fractional series loses its accuracy to cancellation
// between terms of size 1/z^2 (and overflows below ~1e-154): fractional orders then use the
// exact integer sum at the next integer order, an upper bound since RDP grows with the order.
constexpr double kMinSeriesZ = 1e-3;
// Above this the Gaussian bound order / (2 z^2) is below 1e-100 per unit of order: it is used
// directly (subsampling can only lower RDP), where z^2 in the series would overflow.
constexpr double kMaxSeriesZ = 1e50;

/// ln Gamma(x), by lgamma_r: std::lgamma (glibc's lgamma) also writes the sign to the global
/// signgam on every call, a data race between two runs' accountants in one process (a sweep's
/// parallel jobs; CI's ThreadSanitizer job reports it). Same value.
double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

double log_binomial(double n, double k) {
  return log_gamma(n + 1.0) - log_gamma(k + 1.0) - log_gamma(n - k + 1.0);
}

// log A_alpha for integer alpha: A = sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^((k^2-k)/(2 z^2)),
// i.e. E_{x~N(0,z^2)} [(1 - q + q e^((2x-1)/(2z^2)))^alpha] expanded; every term is positive.
double log_a_integer(double q, double z, long alpha) {
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  double log_a = -kInf;
  for (long k = 0; k <= alpha; ++k) {
    const double kk = static_cast<double>(k);
    log_a = log_add(log_a, log_binomial(static_cast<double>(alpha), kk) + kk * log_q +
                               static_cast<double>(alpha - k) * log_1mq +
                               (kk * kk - kk) / (2.0 * z * z));
  }
  return log_a;
}

// log A_alpha for fractional alpha: split the integral at z0, where the two mixture components
// cross, and expand (1 - q + q r)^alpha binomially on each side so every series converges
// (Mironov, Talwar, Zhang 2019, section 3.3; the same series as TF Privacy). Positive and
// negative terms are summed separately so cancellation never drives a log negative mid-way.
// +inf (never an under-estimate) when a term overflows; after kMaxSeriesTerms terms the sum
// stops with its remainder bounded from above.
double log_a_fractional(double q, double z, double alpha) {
  const double log_q = std::log(q), log_1mq = std::log1p(-q);
  const double z0 = z * z * (std::log(1.0 / q - 1.0)) + 0.5;
  double pos0 = -kInf, neg0 = -kInf, pos1 = -kInf, neg1 = -kInf;
  double log_coef = 0.0;  // log |C(alpha, i)|, by the recurrence C(a,i+1) = C(a,i)(a-i)/(i+1)
  bool negative = false;  // sign of C(alpha, i)
  // The terms fall off at least polynomially; the cap only guards against a runaway loop.
  for (long i = 0; i < kMaxSeriesTerms; ++i) {
    const double di = static_cast<double>(i), j = alpha - di;
    const double log_t0 = log_coef + di * log_q + j * log_1mq;
    const double log_t1 = log_coef + j * log_q + di * log_1mq;
    const double log_e0 = std::log(0.5) + log_erfc((di - z0) / (M_SQRT2 * z));
    const double log_e1 = std::log(0.5) + log_erfc((z0 - j) / (M_SQRT2 * z));
    const double log_s0 = log_t0 + (di * di - di) / (2.0 * z * z) + log_e0;
    const double log_s1 = log_t1 + (j * j - j) / (2.0 * z * z) + log_e1;
    if (std::isnan(log_s0) || std::isnan(log_s1) || log_s0 == kInf || log_s1 == kInf) return kInf;
    if (negative) {
      neg0 = log_add(neg0, log_s0);
      neg1 = log_add(neg1, log_s1);
    } else {
      pos0 = log_add(pos0, log_s0);
      pos1 = log_add(pos1, log_s1);
    }
    // Past i = alpha the signs of C(alpha, i) alternate, so the rest of each series is below
    // its next term; A >= 1, so terms under e^-37 (1e-16) no longer change log A.
    if (std::max(log_s0, log_s1) < -37.0 && di > alpha + 1.0) {
      const double pos = log_add(pos0, pos1), neg = log_add(neg0, neg1);
      return pos > neg ? log_sub(pos, neg) : 0.0;
    }
    log_coef += std::log(std::abs(alpha - di)) - std::log(di + 1.0);
    if (alpha - di < 0.0) negative = !negative;
    if (i + 1 == kMaxSeriesTerms && di > alpha + 1.0) {
      // Cut short: each series alternates with shrinking terms past i = alpha, so its rest is
      // below its last term; adding both last terms keeps log A an upper bound.
      const double pos = log_add(log_add(pos0, pos1), log_add(log_s0, log_s1)),
                   neg = log_add(neg0, neg1);
      return pos > neg ? log_sub(pos, neg) : 0.0;
    }
  }
  return kInf;
}
}  // namespace

double rdp_subsampled_gaussian(double q, double z, double order) {
  check_sampling_probability(q);
  check_noise_multiplier(z);
  if (!(order > 1.0) || !std::isfinite(order))
    throw std::invalid_argument("RDP order must be a finite number > 1");
  if (q == 1.0 || z > kMaxSeriesZ) return order / (2.0 * z) / z;
  const bool integer = order == std::floor(order) && order < 1e6;
  if (!integer && z < kMinSeriesZ && order < 1e6)
    return rdp_subsampled_gaussian(q, z, std::ceil(order));
  const double log_a = integer ? log_a_integer(q, z, static_cast<long>(order))
                               : log_a_fractional(q, z, order);
  // NaN or overflow anywhere means the loss is not bounded by anything we computed: +inf, never
  // an optimistic 0.
  if (std::isnan(log_a) || log_a == kInf) return kInf;
  // A >= 1 exactly; rounding can leave log A a hair below 0.
  return std::max(0.0, log_a / (order - 1.0));
}

double rdp_to_epsilon(double order, double rdp, double delta, RdpConversion conversion) {
  const double log_delta = std::log(delta);
  if (conversion == RdpConversion::classic) return rdp - log_delta / (order - 1.0);
  // KL <= rdp and TV <= sqrt(1 - e^-KL) (Bretagnolle-Huber): then (0, delta)-DP already holds.
  if (delta * delta + std::expm1(-rdp) >= 0.0) return 0.0;
  if (order <= 1.01) return kInf;  // the bound is numerically useless this close to 1
  return rdp + std::log1p(-1.0 / order) - (log_delta + std::log(order)) / (order - 1.0);
}

RdpEpsilon rdp_to_epsilon(const std::vector<double>& orders, const std::vector<double>& rdp,
                          double delta, RdpConversion conversion) {
  check_delta(delta);
  if (orders.empty() || orders.size() != rdp.size())
    throw std::invalid_argument("need one RDP value per order, and at least one order");
  RdpEpsilon best{kInf, orders.front()};
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double eps = rdp_to_epsilon(orders[i], rdp[i], delta, conversion);
    if (eps < best.epsilon) best = {eps, orders[i]};
  }
  best.epsilon = std::max(0.0, best.epsilon);
  return best;
}

}  // namespace fedsim::dp
