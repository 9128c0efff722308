#pragma once
/// The privacy accountant actor: receives one charge per privacy mechanism the server applies,
/// composes them with an engine accountant (moments or tight), and enforces an optional
/// epsilon budget: a charge that would exceed it is refused and not recorded.
#include <memory>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "engine/dp/accountant.hpp"

namespace fedsim::actors {

struct AccountantState {
  std::unique_ptr<dp::Accountant> accountant;
  double delta = 0.0;
  double budget = 0.0;
  std::int64_t steps = 0;
  double epsilon = 0.0;
  /// Every granted charge (q, z), in order: a checkpoint replays them into a fresh accountant.
  std::vector<std::pair<double, double>> charges;
  static inline const char* name = "accountant";
};

/// Handles (charge_atom, q, z) -> privacy_status (granted, epsilon after, steps) and
/// (caf::get_atom) -> privacy_status (the current totals); checkpoints: (save_atom) -> bytes,
/// (restore_atom, bytes) -> ok.
caf::behavior accountant_actor(caf::stateful_actor<AccountantState>* self, std::string name,
                               double delta, double budget);

}  // namespace fedsim::actors
