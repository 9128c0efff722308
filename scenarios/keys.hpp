#pragma once
/// Scenario keys by the config member they fill, for messages outside the loader (the round
/// policies' liveness warnings): a key is spelled once, in its field of
/// scenarios/schema_fields.cpp, and found here by the member pointer it was declared with.
#include <string>

#include "actors/run_config.hpp"

namespace fedsim::scenario {

/// "policy.round_timeout" for &PolicyConfig::round_timeout, and so on for every [policy] field.
/// Throws std::logic_error (an internal error) for a member the schema does not declare.
std::string policy_key(double PolicyConfig::*field);
std::string policy_key(int PolicyConfig::*field);

}  // namespace fedsim::scenario
