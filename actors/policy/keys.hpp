#pragma once
/// The scenario keys of the [policy] members that the actor layer names in its messages (a
/// policy's round wait or arrival count, in liveness warnings). Each is spelled once, here: the
/// schema (scenarios/schema_fields.cpp) declares these fields with these names, so that the
/// policies, and fedsim::actors used alone, name keys without the loader (layers depend in one
/// direction: scenarios -> actors, as for the enum name tables of actors/run_config.cpp).
#include <string>

#include "actors/run_config.hpp"

namespace fedsim::actors::policy::keys {

constexpr const char* table = "policy";  ///< [policy]
constexpr const char* round_timeout = "round_timeout";
constexpr const char* deadline = "deadline";
constexpr const char* buffer_size = "buffer_size";

/// "policy.round_timeout" for &PolicyConfig::round_timeout, and so for each member above.
/// Throws std::logic_error (an internal error) for a member without a name here.
std::string of(double scenario::PolicyConfig::*field);
std::string of(int scenario::PolicyConfig::*field);

}  // namespace fedsim::actors::policy::keys
