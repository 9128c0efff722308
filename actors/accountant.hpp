#pragma once
/// The privacy accountant actor: receives one charge per privacy mechanism the server applies,
/// composes them with the scenario's accountant (moments, moments-paper or tight) and, beside
/// it, with the moments and the tight accountant (dp::Ledger: every private run reports all
/// three), and enforces an optional epsilon budget on the scenario's: a charge that would
/// exceed it is refused and not recorded.
#include <optional>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "engine/dp/ledger.hpp"

namespace fedsim::actors {

struct AccountantState {
  std::optional<dp::Ledger> ledger;
  double delta = 0.0;
  double budget = 0.0;
  std::int64_t steps = 0;
  dp::LedgerEpsilon epsilon;
  /// Every granted charge (q, z), in order: a checkpoint replays them into a fresh ledger.
  std::vector<std::pair<double, double>> charges;
  static inline const char* name = "accountant";
};

/// Handles (charge_atom, q, z) -> privacy_status (granted, epsilon after, steps) and
/// (caf::get_atom) -> privacy_status (the current totals); checkpoints: (save_atom) -> bytes,
/// (restore_atom, bytes) -> ok.
caf::behavior accountant_actor(caf::stateful_actor<AccountantState>* self, std::string name,
                               double delta, double budget);

}  // namespace fedsim::actors
