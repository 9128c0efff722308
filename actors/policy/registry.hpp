#pragma once
/// The round policies fedsim knows, by name: the scenario's policy.kind selects one once
/// (make_round_policy), and the names are the allowed values in messages. Adding a policy is
/// one new file in actors/policy/ defining its class and factory, plus its registration line
/// in registry.cpp (and its kind in scenario::PolicyConfig::Kind).
#include <memory>
#include <string>
#include <vector>

#include "actors/policy/round_policy.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors::policy {

using Factory = std::unique_ptr<RoundPolicy> (*)(const scenario::PolicyConfig&);

struct Entry {
  scenario::PolicyConfig::Kind kind;
  const char* name;
  Factory make;
};

/// Every registered policy, in registration order.
const std::vector<Entry>& registered();

/// The policy the configuration names. Throws std::logic_error for a kind nobody registered
/// (an internal error: the loader only accepts registered names).
std::unique_ptr<RoundPolicy> make_round_policy(const scenario::PolicyConfig& config);

/// The policy's name as scenario files spell it.
std::string name_of(scenario::PolicyConfig::Kind kind);

/// "sync, deadline, ..." for messages: every policy, or those serving `family`.
std::string names();
std::string names(Family family);

}  // namespace fedsim::actors::policy
