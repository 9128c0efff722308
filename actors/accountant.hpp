#pragma once
/// The privacy accountant actor: receives one charge per privacy mechanism the server applies,
/// composes them with the scenario's accountant (moments, moments-paper or tight) and, beside
/// it, with the moments and the tight accountant (dp::Ledger: every private run reports all
/// three), and enforces an optional epsilon budget on the scenario's: a charge that would
/// exceed it is refused and not recorded.
///
/// Per agent (docs/privacy.md, "Per-agent privacy"): each agent is charged only for the
/// releases whose received set held its report, composed with the scenario's accountant; with
/// a per-agent budget, a charge admits only the candidates whose own epsilon stays within it
/// after one more release (a privacy filter). The filter prices an agent by the scenario's
/// accountant on its count (pld), or, with `rdp_filter`, by its RDP at one order fixed at
/// load (a Rényi filter, valid under adaptive participation: actors/privacy_basis.hpp); the
/// per-agent epsilon reported is the same pricing.
#include <memory>
#include <optional>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "engine/dp/accountant.hpp"
#include "engine/dp/ledger.hpp"
#include "engine/dp/rdp_filter.hpp"

namespace fedsim::actors {

struct AccountantState {
  std::optional<dp::Ledger> ledger;
  std::string accountant;  ///< privacy.accountant
  double delta = 0.0;
  double budget = 0.0;
  double agent_budget = 0.0;
  std::int64_t steps = 0;
  dp::LedgerEpsilon epsilon;
  /// Every granted charge (q, z), in order: a checkpoint replays them into a fresh ledger.
  std::vector<std::pair<double, double>> charges;
  bool mixed_charges = false;  ///< two charges of different (q, z)
  /// Per agent: the releases its report took part in (saved), and the epsilon by the scenario's
  /// accountant of k releases of the run's one mechanism, by k (a cache, rebuilt on demand).
  std::vector<std::int64_t> agent_releases, agent_filtered;
  std::vector<double> epsilon_of_count;
  std::unique_ptr<dp::Accountant> by_count;  ///< epsilon_of_count.size() - 1 releases
  std::optional<dp::RdpFilter> rdp_filter;    ///< the Rényi filter pricing agents, if chosen
  static inline const char* name = "accountant";
};

/// What is wrong with an accountant state restored from a checkpoint, its charges already
/// replayed into `s.ledger` (empty if nothing): a step count that is not the number of charges,
/// a charge that is not a mechanism (q in (0, 1], z > 0), per-agent counts of another number of
/// agents than `agents` or out of [0, steps], or an epsilon that is not the replayed charges'
/// (or past the budget).
std::string check_accountant_state(const AccountantState& s, int agents);

/// Handles charge_request -> privacy_status (granted, epsilon after, steps, the candidates
/// admitted), (caf::get_atom) -> privacy_status (the current totals), (agents_atom) ->
/// agent_privacy; checkpoints: (save_atom) -> bytes, (restore_atom, bytes) -> ok. `agents`: N.
/// `rdp_filter`: agents priced by a Rényi filter instead of their count (empty: by count).
caf::behavior accountant_actor(caf::stateful_actor<AccountantState>* self, std::string name,
                               double delta, double budget, double agent_budget, int agents,
                               std::optional<dp::RdpFilter> rdp_filter);

}  // namespace fedsim::actors
