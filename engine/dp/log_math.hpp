#pragma once
/// Log-space arithmetic and normal tails for the privacy accountants: sums of terms whose
/// logs reach the hundreds, and tail probabilities far below the smallest double.
#include <limits>

namespace fedsim::dp {

/// +infinity, for the accountants' log-space sums and losses.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// log(e^a + e^b); either argument may be -inf.
double log_add(double a, double b);
/// log(e^a - e^b) for a >= b; -inf when a == b. Throws std::domain_error if a < b.
double log_sub(double a, double b);
/// log(erfc(x)), accurate where erfc(x) underflows (x up to 1e150).
double log_erfc(double x);
/// Standard normal cdf Phi(x), from erfc so it keeps relative accuracy in the lower tail.
double normal_cdf(double x);
/// Standard normal upper tail 1 - Phi(x), with relative accuracy in the upper tail.
double normal_sf(double x);
/// log Phi(x), accurate for very negative x.
double log_normal_cdf(double x);

}  // namespace fedsim::dp
