#include "engine/dp/pld_composition.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <unsupported/Eigen/FFT>

#include "engine/dp/log_math.hpp"

namespace fedsim::dp {
namespace {

void check_factors(const std::vector<PldFactor>& factors) {
  if (factors.empty()) throw std::invalid_argument("composition needs at least one PLD");
  for (const auto& f : factors) {
    if (f.pld == nullptr || f.pld->mass.empty() || f.times < 1)
      throw std::invalid_argument("each composed PLD needs mass and times >= 1");
    if (f.pld->interval != factors.front().pld->interval)
      throw std::invalid_argument("composed PLDs must share one discretisation interval");
  }
}

// log sum_i w_i e^(lambda l_i) over the finite part of a PLD.
double log_mgf(const Eigen::ArrayXd& log_mass, const Eigen::ArrayXd& loss, double lambda) {
  const Eigen::ArrayXd e = log_mass + lambda * loss;
  const double top = e.maxCoeff();
  return top + std::log((e - top).exp().sum());
}

// The window [lo, hi] of losses as grid indices, clipped to the composition's support.
GridWindow clipped_window(double lo, double hi, double support_lo, double support_hi,
                          double interval) {
  // Indices stay far inside a long (compose() adds and subtracts them).
  constexpr double kMaxIndex = 1e15;
  const double w_lo = std::isfinite(lo) ? std::max(support_lo, std::floor(lo / interval)) : support_lo;
  const double w_hi = std::isfinite(hi) ? std::min(support_hi, std::ceil(hi / interval)) : support_hi;
  GridWindow w{static_cast<long>(std::clamp(w_lo, -kMaxIndex, kMaxIndex)),
               static_cast<long>(std::clamp(w_hi, -kMaxIndex, kMaxIndex))};
  w.hi = std::max(w.hi, w.lo);
  return w;
}

// An FFT object per thread: Eigen keeps a plan (twiddle factors) per size in it, which a fresh
// object would compute again on every call.
Eigen::FFT<double>& half_spectrum_fft() {
  thread_local Eigen::FFT<double> fft = [] {
    Eigen::FFT<double> f;
    f.SetFlag(Eigen::FFT<double>::HalfSpectrum);
    return f;
  }();
  return fft;
}

// x * y without the C99 Annex G special cases (a library call per product in GCC): the
// spectra are finite.
inline std::complex<double> times(std::complex<double> x, std::complex<double> y) {
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

std::complex<double> integer_power(std::complex<double> x, long n) {
  std::complex<double> result = 1.0;
  while (n > 0) {
    if (n & 1) result = times(result, x);
    x = times(x, x);
    n >>= 1;
  }
  return result;
}
}  // namespace

GridWindow composition_window(const std::vector<PldFactor>& factors, double tail_bound) {
  check_factors(factors);
  const double interval = factors.front().pld->interval;
  double support_lo = 0.0, support_hi = 0.0;
  std::vector<Eigen::ArrayXd> log_mass, loss;  // exact, one entry per bin
  // Groups of bins with their total mass at the group's top or bottom edge: for lambda > 0
  // (< 0) that can only raise M(lambda), so the bound stays valid while costing little.
  std::vector<Eigen::ArrayXd> group_log_mass, group_top, group_bottom;
  for (const auto& f : factors) {
    const auto& m = f.pld->mass;
    const long n = static_cast<long>(m.size()), g = std::max(1L, n / 4096);
    const long groups = (n + g - 1) / g;
    Eigen::ArrayXd lm(n), l(n), glm(groups), gtop(groups), gbottom(groups);
    for (long i = 0; i < n; ++i) {
      lm[i] = m[i] > 0.0 ? std::log(m[i]) : -kInf;
      l[i] = f.pld->loss(static_cast<std::size_t>(i));
    }
    for (long j = 0; j < glm.size(); ++j) {
      const long b = j * g, e = std::min(n, b + g);
      double sum = 0.0;
      for (long i = b; i < e; ++i) sum += m[i];
      glm[j] = sum > 0.0 ? std::log(sum) : -kInf;
      gtop[j] = l[e - 1];
      gbottom[j] = l[b];
    }
    log_mass.push_back(lm);
    loss.push_back(l);
    group_log_mass.push_back(glm);
    group_top.push_back(gtop);
    group_bottom.push_back(gbottom);
    // In double: times * offset overflows a long for astronomically many steps.
    support_lo += static_cast<double>(f.times) * static_cast<double>(f.pld->offset);
    support_hi += static_cast<double>(f.times) * static_cast<double>(f.pld->offset + n - 1);
  }
  // Chernoff: P(S >= b) <= e^(-lambda b) prod M_f(lambda)^T_f, P(S <= a) <= e^(lambda a)
  // prod M_f(-lambda)^T_f, so b(lambda) = (sum T_f log M_f(lambda) - log tail) / lambda.
  // Any lambda gives a valid window: lambda is picked on a factor-2 grid with the grouped
  // masses, then the bound is evaluated exactly at the picked lambda and its neighbours.
  const double log_tail = std::log(tail_bound);
  auto bound = [&](const std::vector<Eigen::ArrayXd>& lms, const std::vector<Eigen::ArrayXd>& ls,
                   double lambda) {
    double b = -log_tail;
    for (std::size_t j = 0; j < factors.size(); ++j)
      b += static_cast<double>(factors[j].times) * log_mgf(lms[j], ls[j], lambda);
    return b / std::abs(lambda);
  };
  auto best_lambda = [&](double sign) {
    double best = kInf, arg = sign;
    for (int k = kChernoffMin; k <= kChernoffMax; ++k) {
      const double lambda = sign * std::ldexp(1.0, k);
      const double b = bound(group_log_mass, sign > 0.0 ? group_top : group_bottom, lambda);
      if (b < best) best = b, arg = lambda;
    }
    return arg;
  };
  double hi = kInf, lo = -kInf;
  const double up = best_lambda(1.0), down = best_lambda(-1.0);
  for (double f : {0.5, 1.0, 2.0}) {
    hi = std::min(hi, bound(log_mass, loss, f * up));
    lo = std::max(lo, -bound(log_mass, loss, f * down));
  }
  return clipped_window(lo, hi, support_lo, support_hi, interval);
}

DiscretePld compose(const std::vector<PldFactor>& factors, double tail_bound) {
  return compose(factors, composition_window(factors, tail_bound), tail_bound);
}

DiscretePld compose(const std::vector<PldFactor>& factors, const GridWindow& window,
                    double tail_bound) {
  check_factors(factors);
  const long n = fft_size(window);
  std::vector<std::vector<std::complex<double>>> spectra;
  spectra.reserve(factors.size());
  std::vector<SpectralFactor> spectral;
  for (const auto& f : factors) {
    spectra.push_back(pld_spectrum(*f.pld, n));
    spectral.push_back({&spectra.back(), f.pld->offset, f.pld->infinity_mass, f.times});
  }
  return compose_spectra(spectral, n, factors.front().pld->interval, window, tail_bound);
}

long fft_size(const GridWindow& window) {
  long n = 16;
  while (n < window.bins()) n *= 2;
  return n;
}

std::vector<std::complex<double>> pld_spectrum(const DiscretePld& pld, long n) {
  const std::size_t size = static_cast<std::size_t>(n);
  std::vector<double> buffer(size, 0.0);
  // Folding modulo n is harmless: the result is read modulo n anyway.
  for (std::size_t i = 0; i < pld.mass.size(); ++i) buffer[i % size] += pld.mass[i];
  std::vector<std::complex<double>> spectrum;
  half_spectrum_fft().fwd(spectrum, buffer);
  return spectrum;
}

DiscretePld compose_spectra(const std::vector<SpectralFactor>& factors, long n, double interval,
                            const GridWindow& window, double tail_bound) {
  if (factors.empty()) throw std::invalid_argument("composition needs at least one PLD");
  const std::size_t size = static_cast<std::size_t>(n);
  std::vector<std::complex<double>> product(size / 2 + 1, 1.0);
  long base = 0;            // grid index of buffer[0] in the circular result
  double log_finite = 0.0;  // log of the composed finite mass, prod (1 - inf_f)^T_f
  for (const auto& f : factors) {
    if (f.spectrum == nullptr || f.spectrum->size() != product.size() || f.times < 1)
      throw std::invalid_argument("each composed spectrum needs size n / 2 + 1 and times >= 1");
    const auto& spectrum = *f.spectrum;
    for (std::size_t j = 0; j < product.size(); ++j)
      product[j] = times(product[j], integer_power(spectrum[j], f.times));
    // Only base modulo n matters; the product overflows a long for huge `times`.
    base = static_cast<long>((static_cast<__int128>(f.times) * f.offset + base) % n);
    log_finite += static_cast<double>(f.times) * std::log1p(-f.infinity_mass);
  }
  std::vector<double> buffer(size);
  half_spectrum_fft().inv(buffer, product, n);

  DiscretePld out;
  out.interval = interval;
  out.offset = window.lo;
  out.mass.resize(size);
  // out.mass[j] is the circular result at (window.lo + j - base) mod n: a rotation.
  std::size_t r = static_cast<std::size_t>(((window.lo - base) % n + n) % n);
  for (std::size_t j = 0; j < size; ++j, r = r + 1 == size ? 0 : r + 1)
    // FFT rounding leaves values near +-1e-17 where the mass is 0; rounding up is pessimistic.
    out.mass[j] = std::max(0.0, buffer[r]);
  out.infinity_mass = std::min(1.0, -std::expm1(log_finite) + 2.0 * tail_bound);
  return out;
}

ChernoffProfile chernoff_profile(const DiscretePld& pld) {
  if (pld.mass.empty()) throw std::invalid_argument("a Chernoff profile needs mass");
  const auto& m = pld.mass;
  const long n = static_cast<long>(m.size()), g = std::max(1L, n / 4096);
  const long groups = (n + g - 1) / g;
  Eigen::ArrayXd glm(groups), gtop(groups), gbottom(groups);
  for (long j = 0; j < groups; ++j) {
    const long b = j * g, e = std::min(n, b + g);
    double sum = 0.0;
    for (long i = b; i < e; ++i) sum += m[i];
    glm[j] = sum > 0.0 ? std::log(sum) : -kInf;
    gtop[j] = pld.loss(static_cast<std::size_t>(e - 1));
    gbottom[j] = pld.loss(static_cast<std::size_t>(b));
  }
  ChernoffProfile p;
  for (int k = kChernoffMin; k <= kChernoffMax; ++k) {
    const double lambda = std::ldexp(1.0, k);
    p.up[k - kChernoffMin] = log_mgf(glm, gtop, lambda);
    p.down[k - kChernoffMin] = log_mgf(glm, gbottom, -lambda);
  }
  p.interval = pld.interval;
  p.support_lo = pld.offset;
  p.support_hi = pld.offset + n - 1;
  return p;
}

GridWindow composition_window(const std::vector<std::pair<const ChernoffProfile*, long>>& factors,
                              double tail_bound) {
  if (factors.empty()) throw std::invalid_argument("composition needs at least one PLD");
  const double interval = factors.front().first->interval;
  double support_lo = 0.0, support_hi = 0.0;
  for (const auto& [p, times] : factors) {
    if (p->interval != interval)
      throw std::invalid_argument("composed PLDs must share one discretisation interval");
    // In double: times * offset overflows a long for astronomically many steps.
    support_lo += static_cast<double>(times) * static_cast<double>(p->support_lo);
    support_hi += static_cast<double>(times) * static_cast<double>(p->support_hi);
  }
  // Chernoff, as in the other composition_window, at every grid lambda: the tightest wins.
  const double log_tail = std::log(tail_bound);
  double hi = kInf, lo = -kInf;
  for (int k = 0; k < kChernoffPoints; ++k) {
    const double lambda = std::ldexp(1.0, k + kChernoffMin);
    double up = -log_tail, down = -log_tail;
    for (const auto& [p, times] : factors) {
      up += static_cast<double>(times) * p->up[k];
      down += static_cast<double>(times) * p->down[k];
    }
    hi = std::min(hi, up / lambda);
    lo = std::max(lo, -down / lambda);
  }
  return clipped_window(lo, hi, support_lo, support_hi, interval);
}

}  // namespace fedsim::dp
