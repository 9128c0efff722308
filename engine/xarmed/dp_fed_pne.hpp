#pragma once
/// DP-Fed-PNE (appendix D): every reward gets N(0, sigma^2) noise before the local mean, with
/// sigma^2 = 2 log(1.25 / delta) / eps^2 (the classic Gaussian mechanism at sensitivity 1).
/// Theorem D.1: the federation is then (eps, delta, M)-federated differentially private. The
/// guarantee is returned as data for an accountant to consume.
#include <cstdint>
#include <string>

namespace fedsim::xarmed {

/// sigma = sqrt(2 log(1.25 / delta)) / eps. Throws std::invalid_argument unless eps > 0 and
/// 0 < delta < 1 (the classic calibration's own validity range is eps < 1; larger eps is
/// accepted, as the paper does, and flagged in the guarantee).
double dp_fed_pne_noise_std(double epsilon, double delta);

/// What DP-Fed-PNE promises, per Theorem D.1 and Remark D.1.
struct FederatedDpGuarantee {
  double epsilon = 0.0;
  double delta = 0.0;
  int clients = 0;                 ///< M of (eps, delta, M)
  double noise_std = 0.0;          ///< sigma added to every reward
  double sensitivity = 1.0;        ///< assumed: every reward lies in an interval of width 1
  std::int64_t releases_per_node = 1;  ///< each node's local mean is released once (Remark D.1)
  bool classic_range = true;       ///< eps < 1, where the classic calibration is proven
  std::string mechanism = "gaussian (per reward, before the local mean)";
};

/// The largest default DP delta. The paper's 1/M (Theorem D.2) is the delta of a mechanism that
/// publishes one client's data outright, vacuous for small M (0.5 at M = 2, 1 at M = 1), and DP
/// wants delta well below 1/M: the default stops at 0.01, as privacy.delta's min(1/N^1.1, 0.01)
/// does for DP-FTS-DE (engine/fbo/reference_loop.hpp, max_default_delta). It keeps the paper's
/// value for M >= 100.
constexpr double max_default_dp_delta = 0.01;

/// A run's DP delta: `delta` when > 0, else the default min(1/M, max_default_dp_delta).
/// Throws std::invalid_argument unless clients >= 1.
double dp_fed_pne_delta(double delta, int clients);

/// The guarantee of a DP-Fed-PNE run with M clients. delta = 0 means the default,
/// dp_fed_pne_delta(0, M). Throws std::invalid_argument for bad values (see
/// dp_fed_pne_noise_std, clients >= 1; Definition 2 has M >= 2, and M = 1 reads as plain
/// (eps, delta)-DP).
FederatedDpGuarantee dp_fed_pne_guarantee(double epsilon, double delta, int clients);

}  // namespace fedsim::xarmed
