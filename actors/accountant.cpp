#include "actors/accountant.hpp"

#include <cmath>

#include "actors/checkpoint/state_archive.hpp"
#include "actors/failure.hpp"

namespace fedsim::actors {
namespace {

using self_ptr = caf::stateful_actor<AccountantState>*;

privacy_status status(const AccountantState& s, bool granted) {
  return {granted, s.epsilon.named, s.steps, s.epsilon.rdp, s.epsilon.pld, {}};
}

/// Notes that a release of (q, z), already in s.charges, was charged: whether every release so
/// far is of one mechanism (epsilon_of's shortcut) is kept as they come, and again on restore.
void note_mechanism(AccountantState& s, double q, double z) {
  s.mixed_charges = s.mixed_charges || std::make_pair(q, z) != s.charges.front();
}

/// The epsilon of k releases of (q, z) by the scenario's accountant: one agent's, when k of the
/// releases held its report. Every release of a run has the same (q, z), so it depends on k
/// alone and is kept by k.
double epsilon_of(AccountantState& s, std::int64_t k, double q, double z) {
  if (k == 0) return 0.0;
  // A Rényi filter prices k releases at its own order (its step is the run's one mechanism).
  if (s.rdp_filter) return s.rdp_filter->epsilon(k, s.delta);
  // Every release so far, all of this one mechanism: the ledger has priced exactly these with
  // the same accountant (the same additions, so the same number bit for bit). An agent that
  // took part in every release, as all do on a perfect network, costs no second composition.
  if (k == s.steps && !s.mixed_charges && s.charges.front() == std::make_pair(q, z))
    return s.epsilon.named;
  if (s.epsilon_of_count.empty()) {
    s.by_count = dp::make_accountant(s.accountant);
    s.epsilon_of_count.push_back(0.0);
  }
  // One release more at a time: the accountant keeps what it can between evaluations.
  while (static_cast<std::int64_t>(s.epsilon_of_count.size()) <= k) {
    s.by_count->add_subsampled_gaussian(q, z, 1);
    s.epsilon_of_count.push_back(s.by_count->epsilon(s.delta));
  }
  return s.epsilon_of_count[static_cast<std::size_t>(k)];
}

/// A release's parameters as the server charges them: sampling ratio q in (0, 1], noise z > 0.
bool valid_charge(double q, double z) { return q > 0.0 && q <= 1.0 && z > 0.0 && std::isfinite(z); }

}  // namespace

std::string check_accountant_state(const AccountantState& s, int agents) {
  if (s.steps != static_cast<std::int64_t>(s.charges.size()))
    return std::to_string(s.steps) + " releases, " + std::to_string(s.charges.size()) + " charges";
  for (const auto& [q, z] : s.charges)
    if (!valid_charge(q, z))
      return "a charge of q " + std::to_string(q) + ", z " + std::to_string(z) +
             " (q in (0, 1], z > 0)";
  const auto n = static_cast<std::size_t>(agents);
  if (s.agent_releases.size() != n || s.agent_filtered.size() != n)
    return "counts of " + std::to_string(s.agent_releases.size()) + " agents, the scenario has " +
           std::to_string(agents);
  for (std::size_t k = 0; k < n; ++k)
    if (s.agent_releases[k] < 0 || s.agent_releases[k] > s.steps || s.agent_filtered[k] < 0)
      return "agent " + std::to_string(k) + ": " + std::to_string(s.agent_releases[k]) +
             " releases of " + std::to_string(s.steps) + ", " + std::to_string(s.agent_filtered[k]) +
             " filtered";
  // The epsilon saved is what the ledger said after the last charge: the replayed ledger says
  // it again, bit for bit (and nothing at all before the first).
  const dp::LedgerEpsilon replayed = s.charges.empty() ? dp::LedgerEpsilon{} : s.ledger->epsilon(s.delta);
  auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  if (!same(replayed.named, s.epsilon.named) || !same(replayed.rdp, s.epsilon.rdp) ||
      !same(replayed.pld, s.epsilon.pld))
    return "epsilon saved is not that of its charges";
  if (!s.charges.empty() && s.epsilon.named > s.budget)
    return "epsilon " + std::to_string(s.epsilon.named) + " past the budget " + std::to_string(s.budget);
  return {};
}

caf::behavior accountant_actor(self_ptr self, std::string name, double delta, double budget,
                               double agent_budget, int agents,
                               std::optional<dp::RdpFilter> rdp_filter) {
  fail_loudly(self, "accountant");
  auto& s = self->state;
  s.rdp_filter = rdp_filter;
  s.accountant = name;
  s.ledger.emplace(name);
  s.delta = delta;
  s.budget = budget;
  s.agent_budget = agent_budget;
  s.agent_releases.assign(static_cast<std::size_t>(agents), 0);
  s.agent_filtered.assign(static_cast<std::size_t>(agents), 0);
  return {
      [self](charge_request& r) {
        auto& s = self->state;
        // The filter: a candidate whose own epsilon would pass its budget with this release is
        // not aggregated (and not charged). Candidates are agent ids the server checked.
        std::vector<std::int32_t> admitted;
        for (std::int32_t n : r.candidates) {
          const auto k = s.agent_releases.at(static_cast<std::size_t>(n));
          // Without a budget nothing is priced here (the per-agent epsilons are composed once,
          // when asked for at the end).
          const bool fits = std::isinf(s.agent_budget) ||
                            (s.rdp_filter ? s.rdp_filter->admits(k)
                                          : epsilon_of(s, k + 1, r.q, r.z) <= s.agent_budget);
          if (fits)
            admitted.push_back(n);
          else
            ++s.agent_filtered.at(static_cast<std::size_t>(n));
        }
        if (admitted.empty()) return status(s, false);  // nothing to release or charge
        // Without a budget every charge is granted: no copy to try it on first.
        if (std::isinf(s.budget)) {
          s.ledger->add_subsampled_gaussian(r.q, r.z, 1);
          s.epsilon = s.ledger->epsilon(s.delta);
        } else {
          dp::Ledger next = *s.ledger;
          next.add_subsampled_gaussian(r.q, r.z, 1);
          const dp::LedgerEpsilon eps = next.epsilon(s.delta);
          if (eps.named > s.budget) {
            privacy_status refused = status(s, false);
            refused.admitted = std::move(admitted);
            return refused;
          }
          s.ledger = std::move(next);
          s.epsilon = eps;
        }
        ++s.steps;
        s.charges.emplace_back(r.q, r.z);
        note_mechanism(s, r.q, r.z);
        for (std::int32_t n : admitted) ++s.agent_releases[static_cast<std::size_t>(n)];
        privacy_status granted = status(s, true);
        granted.admitted = std::move(admitted);
        return granted;
      },
      [self](agents_atom) {
        auto& s = self->state;
        agent_privacy out;
        out.releases = s.agent_releases;
        out.filtered = s.agent_filtered;
        for (std::int64_t k : s.agent_releases)
          out.epsilon.push_back(s.charges.empty()
                                    ? 0.0
                                    : epsilon_of(s, k, s.charges.front().first,
                                                 s.charges.front().second));
        return out;
      },
      [self](save_atom) {
        auto& s = self->state;
        return save_state(self->context(), [&](auto& a) {
          a(s.charges, s.steps, s.epsilon.named, s.epsilon.rdp, s.epsilon.pld, s.agent_releases,
            s.agent_filtered);
        });
      },
      [self, name, agents](restore_atom, const std::vector<char>& bytes) {
        auto& s = self->state;
        return restore_state(self->context(), bytes, "accountant", [&](auto& a) {
          a(s.charges, s.steps, s.epsilon.named, s.epsilon.rdp, s.epsilon.pld, s.agent_releases,
            s.agent_filtered);
          for (const auto& [q, z] : s.charges)  // before the ledger takes them
            if (!valid_charge(q, z)) throw std::runtime_error(check_accountant_state(s, agents));
          // One charge at a time, as they were granted: the same arithmetic, the same state.
          s.ledger.emplace(name);
          s.mixed_charges = false;
          for (const auto& [q, z] : s.charges) {
            s.ledger->add_subsampled_gaussian(q, z, 1);
            note_mechanism(s, q, z);
          }
          s.epsilon_of_count.clear();
          s.by_count.reset();
          const std::string wrong = check_accountant_state(s, agents);
          if (!wrong.empty()) throw std::runtime_error(wrong);
        });
      },
      [self](caf::get_atom) { return status(self->state, true); },
  };
}

}  // namespace fedsim::actors
