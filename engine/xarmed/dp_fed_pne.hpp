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

/// The guarantee of a DP-Fed-PNE run with M clients. delta = 0 means the paper's 1 / M.
/// Throws std::invalid_argument for bad values (see dp_fed_pne_noise_std, clients >= 2 as in
/// Definition 2; M = 1 is allowed and then reads as plain (eps, delta)-DP).
FederatedDpGuarantee dp_fed_pne_guarantee(double epsilon, double delta, int clients);

}  // namespace fedsim::xarmed
