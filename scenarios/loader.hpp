#pragma once
/// Reads a scenario file (TOML, schema in scenarios/README.md) into a validated ScenarioConfig,
/// and writes a config back as TOML with every default filled in.
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/run_config.hpp"

namespace fedsim::scenario {

/// A bad scenario file, override or value. The message is one line naming the file, the key and
/// the allowed values, e.g. "x.toml: key 'algorithm.q': must be in (0, 1], got 1.5".
struct ScenarioError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Loads `path`, applies `overrides` ("dotted.key=value", the value parsed as a TOML value or
/// else taken as a bare string; array entries as "world.network.groups[0].fraction=0.5"), fills
/// the defaults and validates. Throws ScenarioError.
ScenarioConfig load_scenario(const std::string& path,
                             const std::vector<std::string>& overrides = {});

/// The same from TOML text; `source` names it in messages and relative paths resolve against
/// its folder.
ScenarioConfig parse_scenario(const std::string& text, const std::string& source,
                              const std::vector<std::string>& overrides = {});

/// The fully resolved configuration (every field, defaults included) as TOML that
/// load_scenario reads back to an equal config.
std::string to_toml(const ScenarioConfig& config);

}  // namespace fedsim::scenario
