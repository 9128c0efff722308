#pragma once
/// A Rényi filter at one fixed order (Feldman and Zrnic 2021, "Individual Privacy Accounting
/// via a Rényi Filter", NeurIPS, Theorem 3.1): each individual's RDP at order α is the sum of
/// the RDP of the releases it took part in, and a release is admitted for it only while that
/// sum stays within a budget B. The whole interaction is then (α, B)-RDP for every individual,
/// whatever decided which releases it joined -- its data, earlier releases, real time: the
/// filter is valid under full adaptivity because α and B are fixed before the run. (A filter
/// that takes the best order again at each check, as the moments accountant's epsilon does, or
/// that composes privacy loss distributions, is not one filter and has no such guarantee:
/// docs/privacy.md.)
///
/// (α, B)-RDP becomes (ε, δ)-DP by the conversion of Canonne, Kamath and Steinke 2020
/// (rdp_to_epsilon's `improved`), used here without its small-divergence shortcut, so that B
/// is the one number ε_budget - log1p(-1/α) + (log δ + log α) / (α - 1).
#include <cstdint>
#include <vector>

namespace fedsim::dp {

struct RdpFilter {
  double order = 0.0;       ///< α, fixed before the run
  double rdp_budget = 0.0;  ///< B: the RDP sum at α an individual may reach (<= 0: none)
  double step_rdp = 0.0;    ///< the RDP at α of one release of the run's mechanism

  /// The filter for releases of the Poisson-subsampled Gaussian (q in (0, 1], z > 0) and an
  /// individual budget (epsilon_budget > 0, delta in (0, 1)): among `orders` (> 1), the one
  /// that admits the most releases, counted up to `planned_releases` (>= 1); ties go to the
  /// order whose epsilon after that many releases is smallest, then to the smaller order. It
  /// depends on the configuration alone, never on the data. Throws std::invalid_argument on a
  /// bad argument.
  static RdpFilter choose(double q, double z, double epsilon_budget, double delta,
                          std::int64_t planned_releases, const std::vector<double>& orders);

  /// How many releases an individual can take part in before the filter stops it.
  std::int64_t admitted_releases() const;
  /// Whether an individual may take part in one more release after `releases` (>= 0).
  bool admits(std::int64_t releases) const;
  /// The epsilon at δ of `releases` releases at this filter's order (0 for none): what the
  /// individual's sum of RDP converts to. The guarantee under adaptivity is that of the
  /// budget, epsilon(admitted_releases()) <= epsilon_budget.
  double epsilon(std::int64_t releases, double delta) const;
};

}  // namespace fedsim::dp
