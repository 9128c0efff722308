#pragma once
/// Privacy loss distributions (PLDs) on a grid, and the PLD of one step of the
/// Poisson-subsampled Gaussian mechanism discretised PESSIMISTICALLY: the discrete PLD
/// dominates the true one, so every epsilon computed from it (alone or composed) is a
/// rigorous upper bound, up to floating-point rounding.
///
/// Convention: for a neighbouring pair (P, Q) the privacy loss is L = log(P(x)/Q(x)) with
/// x ~ P, and delta(eps) = E[(1 - e^(eps - L))_+] + P(L = +inf).
#include <vector>

namespace fedsim::dp {

/// A PLD on the grid {k * interval}: mass[i] sits at loss (offset + i) * interval, and
/// infinity_mass at +inf. The masses may sum to slightly more than 1 (pessimistic slack).
struct DiscretePld {
  double interval = 1e-4;
  long offset = 0;
  std::vector<double> mass;
  double infinity_mass = 0.0;

  double loss(std::size_t i) const {
    return static_cast<double>(offset + static_cast<long>(i)) * interval;
  }
};

/// delta(eps) of a discrete PLD.
double pld_delta(const DiscretePld& pld, double epsilon);
/// The smallest eps >= 0 with pld_delta(pld, eps) <= delta (+inf if infinity_mass >= delta);
/// exact for the discrete PLD, found by one scan from the top.
double pld_epsilon(const DiscretePld& pld, double delta);

/// Which neighbouring relation: removing one member (P = subsampled mixture, Q = without the
/// member) or adding one (P and Q swapped). For the subsampled Gaussian the two differ, and a
/// guarantee for "add or remove" is the larger epsilon of the two.
enum class PldDirection { remove, add };

/// How the continuous PLD becomes a grid.
enum class Discretisation {
  /// Round every loss up to the grid: dominates by a pointwise coupling; after T steps the
  /// reported epsilon exceeds the exact one by at most T * interval.
  round_up,
  /// "Connect the dots" (Doroshenko et al. 2022): the discrete PLD whose delta(e^eps) curve
  /// interpolates the exact one linearly between grid points; dominates by convexity, is never
  /// worse than round_up, and its error is second order in the interval.
  connect_the_dots,
};

/// The range [lo, hi] of losses kept for one step before tail_mass (of P) goes to +inf.
struct LossRange {
  double lo;
  double hi;
};
LossRange subsampled_gaussian_loss_range(double q, double z, PldDirection direction,
                                         double tail_mass);

/// The discretised PLD of one step of the Poisson-subsampled Gaussian mechanism (sensitivity 1,
/// noise multiplier z, sampling probability q; q = 1 is the plain Gaussian mechanism). At most
/// about tail_mass of the upper tail goes to infinity_mass; the lower tail is rounded up.
DiscretePld subsampled_gaussian_pld(double q, double z, PldDirection direction, double interval,
                                    Discretisation discretisation, double tail_mass);

}  // namespace fedsim::dp
