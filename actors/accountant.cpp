#include "actors/accountant.hpp"

#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"

namespace fedsim::actors {

caf::behavior accountant_actor(caf::stateful_actor<AccountantState>* self, std::string name,
                               double delta, double budget) {
  fail_loudly(self, "accountant");
  auto& s = self->state;
  s.accountant = dp::make_accountant(name);
  s.delta = delta;
  s.budget = budget;
  return {
      [self](charge_atom, double q, double z) {
        auto& s = self->state;
        auto next = s.accountant->clone();
        next->add_subsampled_gaussian(q, z, 1);
        const double eps = next->epsilon(s.delta);
        if (eps > s.budget) return privacy_status{false, s.epsilon, s.steps};
        s.accountant = std::move(next);
        s.epsilon = eps;
        ++s.steps;
        s.charges.emplace_back(q, z);
        return privacy_status{true, s.epsilon, s.steps};
      },
      [self](save_atom) {
        auto& s = self->state;
        return save_state(self->context(), [&](auto& a) { a(s.charges, s.steps, s.epsilon); });
      },
      [self, name](restore_atom, const std::vector<char>& bytes) {
        auto& s = self->state;
        load_state(self->context(), bytes, "accountant",
                   [&](auto& a) { a(s.charges, s.steps, s.epsilon); });
        // One charge at a time, as they were granted: the same arithmetic, the same state.
        s.accountant = dp::make_accountant(name);
        for (const auto& [q, z] : s.charges) s.accountant->add_subsampled_gaussian(q, z, 1);
        return caf::ok_atom_v;
      },
      [self](caf::get_atom) {
        auto& s = self->state;
        return privacy_status{true, s.epsilon, s.steps};
      },
  };
}

}  // namespace fedsim::actors
