#include "engine/dp/ledger.hpp"

namespace fedsim::dp {

Ledger::Ledger(const std::string& accountant)
    : name_(accountant),
      rdp_(make_accountant("moments")),
      pld_(make_accountant("tight")),
      other_(accountant == "moments" || accountant == "tight" ? nullptr
                                                                : make_accountant(accountant)) {}

Ledger::Ledger(const Ledger& other)
    : name_(other.name_),
      rdp_(other.rdp_->clone()),
      pld_(other.pld_->clone()),
      other_(other.other_ ? other.other_->clone() : nullptr) {}

Ledger& Ledger::operator=(const Ledger& other) {
  if (this != &other) *this = Ledger(other);
  return *this;
}

void Ledger::add_subsampled_gaussian(double q, double z, long steps) {
  rdp_->add_subsampled_gaussian(q, z, steps);
  pld_->add_subsampled_gaussian(q, z, steps);
  if (other_) other_->add_subsampled_gaussian(q, z, steps);
}

LedgerEpsilon Ledger::epsilon(double delta) const {
  LedgerEpsilon e;
  e.rdp = rdp_->epsilon(delta);
  e.pld = pld_->epsilon(delta);
  e.named = other_ ? other_->epsilon(delta) : name_ == "moments" ? e.rdp : e.pld;
  return e;
}

}  // namespace fedsim::dp
