#pragma once
/// A run's privacy ledger: the releases charged so far, priced by the accountant the scenario
/// names (which enforces the budget) and, beside it, by both families of accountant, so every
/// private run reports its epsilon three ways: `named` (privacy.accountant), `rdp` (the
/// moments accountant, modern convention) and `pld` (the tight accountant). The three answer
/// the same releases; they differ only in how tightly they bound them (docs/privacy.md).
#include <memory>
#include <string>

#include "engine/dp/accountant.hpp"

namespace fedsim::dp {

struct LedgerEpsilon {
  double named = 0.0;  ///< by the scenario's accountant
  double rdp = 0.0;    ///< by "moments"
  double pld = 0.0;    ///< by "tight"
};

class Ledger {
 public:
  /// Throws std::invalid_argument for an unknown accountant name (make_accountant's).
  explicit Ledger(const std::string& accountant);
  Ledger(const Ledger& other);
  Ledger& operator=(const Ledger& other);
  Ledger(Ledger&&) noexcept = default;
  Ledger& operator=(Ledger&&) noexcept = default;

  /// Records `steps` releases of the Poisson-subsampled Gaussian (Accountant's contract).
  void add_subsampled_gaussian(double q, double z, long steps = 1);
  /// The three epsilons at this delta; named equals rdp or pld when the scenario names one
  /// of them (computed once).
  LedgerEpsilon epsilon(double delta) const;
  const std::string& accountant() const { return name_; }

 private:
  std::string name_;
  std::unique_ptr<Accountant> rdp_, pld_, other_;  ///< other_: a third convention (moments-paper)
};

}  // namespace fedsim::dp
