#pragma once
/// Renyi differential privacy (RDP) of the Poisson-subsampled Gaussian mechanism and the
/// conversion of an accumulated RDP curve to (epsilon, delta). Composition is the sum of the
/// per-step RDP at each order, so the accountant only adds vectors.
#include <vector>

namespace fedsim::dp {

/// RDP at `order` (> 1) of one step of the Poisson-subsampled Gaussian mechanism with sampling
/// probability q in (0, 1] and noise multiplier z, sensitivity 1 (Mironov, Talwar, Zhang 2019;
/// the bound holds for adding and for removing one member). q = 1 is the Gaussian mechanism,
/// order / (2 z^2). Integer orders use the exact binomial sum, fractional orders the
/// two-sided series of TF Privacy's compute_rdp; both are summed in log space.
double rdp_subsampled_gaussian(double q, double z, double order);

/// How an RDP guarantee becomes (epsilon, delta).
enum class RdpConversion {
  /// eps = rdp - log(delta) / (order - 1) (Mironov 2017; the original moments accountant).
  classic,
  /// eps = rdp + log1p(-1/order) - (log(delta) + log(order)) / (order - 1) (Canonne, Kamath,
  /// Steinke 2020; what TF Privacy and dp_accounting use now); never larger than classic.
  improved,
};

/// epsilon for the accumulated RDP `rdp` (>= 0) at one order (> 1), delta in (0, 1).
double rdp_to_epsilon(double order, double rdp, double delta, RdpConversion conversion);

/// The smallest epsilon over a grid of orders, and the order that gave it.
struct RdpEpsilon {
  double epsilon;
  double order;
};

/// Minimum of rdp_to_epsilon over `orders` (rdp[i] belongs to orders[i]); never negative.
/// Throws std::invalid_argument on mismatched or empty input or a bad delta.
RdpEpsilon rdp_to_epsilon(const std::vector<double>& orders, const std::vector<double>& rdp,
                          double delta, RdpConversion conversion);

}  // namespace fedsim::dp
