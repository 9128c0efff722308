#pragma once
/// Reading a parsed scenario through the schema's field lists (scenarios/schema_fields.cpp).
#include <toml++/toml.h>

#include <set>
#include <string>

#include "scenarios/loader.hpp"

namespace fedsim::scenario {

/// The first line of every config.resolved.toml.
constexpr const char* resolved_header = "# fedsim scenario, fully resolved: every default filled in.";

/// Reads `root` (overrides already applied; `from_command` are the keys they set) into a
/// validated config. Warnings name keys that have no effect; keys from the file are warned
/// about only if `warn_file_keys`. Throws std::invalid_argument "key '...': ..." (no file).
LoadedScenario read_scenario(const toml::table& root, const std::string& source,
                             const std::set<std::string>& from_command, bool warn_file_keys);

}  // namespace fedsim::scenario
