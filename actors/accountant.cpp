#include "actors/accountant.hpp"

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
        return privacy_status{true, s.epsilon, s.steps};
      },
      [self](caf::get_atom) {
        auto& s = self->state;
        return privacy_status{true, s.epsilon, s.steps};
      },
  };
}

}  // namespace fedsim::actors
