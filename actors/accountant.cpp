#include "actors/accountant.hpp"

#include <cmath>

#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"

namespace fedsim::actors {
namespace {

privacy_status status(const AccountantState& s, bool granted) {
  return {granted, s.epsilon.named, s.steps, s.epsilon.rdp, s.epsilon.pld};
}

}  // namespace

caf::behavior accountant_actor(caf::stateful_actor<AccountantState>* self, std::string name,
                               double delta, double budget) {
  fail_loudly(self, "accountant");
  auto& s = self->state;
  s.ledger.emplace(name);
  s.delta = delta;
  s.budget = budget;
  return {
      [self](charge_atom, double q, double z) {
        auto& s = self->state;
        // Without a budget every charge is granted: no copy to try it on first.
        if (std::isinf(s.budget)) {
          s.ledger->add_subsampled_gaussian(q, z, 1);
          s.epsilon = s.ledger->epsilon(s.delta);
        } else {
          dp::Ledger next = *s.ledger;
          next.add_subsampled_gaussian(q, z, 1);
          const dp::LedgerEpsilon eps = next.epsilon(s.delta);
          if (eps.named > s.budget) return status(s, false);
          s.ledger = std::move(next);
          s.epsilon = eps;
        }
        ++s.steps;
        s.charges.emplace_back(q, z);
        return status(s, true);
      },
      [self](save_atom) {
        auto& s = self->state;
        return save_state(self->context(), [&](auto& a) {
          a(s.charges, s.steps, s.epsilon.named, s.epsilon.rdp, s.epsilon.pld);
        });
      },
      [self, name](restore_atom, const std::vector<char>& bytes) {
        auto& s = self->state;
        load_state(self->context(), bytes, "accountant", [&](auto& a) {
          a(s.charges, s.steps, s.epsilon.named, s.epsilon.rdp, s.epsilon.pld);
        });
        // One charge at a time, as they were granted: the same arithmetic, the same state.
        s.ledger.emplace(name);
        for (const auto& [q, z] : s.charges) s.ledger->add_subsampled_gaussian(q, z, 1);
        return caf::ok_atom_v;
      },
      [self](caf::get_atom) { return status(self->state, true); },
  };
}

}  // namespace fedsim::actors
