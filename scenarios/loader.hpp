#pragma once
/// Reads a scenario file (TOML, schema in scenarios/README.md) into a validated ScenarioConfig,
/// and writes a config back as TOML with every default filled in. The keys, their rules and
/// their docs are declared once, in scenarios/schema_fields.cpp.
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

/// A loaded scenario and the one-line warnings about it: keys, present in the file or set by
/// an override, that have no effect under the chosen algorithm or policy ("key
/// 'policy.deadline' has no effect: used by policy.kind = deadline, quorum, not sync").
/// A resolved config (config.resolved.toml) holds every key: only its overrides are warned of.
struct LoadedScenario {
  ScenarioConfig config;
  std::vector<std::string> warnings;
};

/// Loads the TOML `text` of scenario `source` (relative paths resolve against its folder),
/// applies `overrides` ("dotted.key=value", the value parsed as a TOML value or else taken as
/// a bare string; array entries as "world.network.groups[0].fraction=0.5"), fills the defaults
/// and validates. Throws ScenarioError.
LoadedScenario load_scenario_text(const std::string& text, const std::string& source,
                                  const std::vector<std::string>& overrides = {});

/// The text of the scenario file `path`; throws ScenarioError naming it when it is missing, a
/// folder or unreadable.
std::string read_scenario_file(const std::string& path);

/// load_scenario_text(read_scenario_file(path), path, overrides).
LoadedScenario load_scenario_file(const std::string& path,
                                  const std::vector<std::string>& overrides = {});

/// load_scenario_file(path, overrides).config: for callers that print no warnings.
ScenarioConfig load_scenario(const std::string& path,
                             const std::vector<std::string>& overrides = {});

/// Checks a config built in code against the same rules; throws std::invalid_argument
/// "key '...': ..." naming the scenario key.
void validate(const ScenarioConfig& config);

/// The fully resolved configuration (every field, defaults included) as TOML that
/// load_scenario reads back to an equal config.
std::string to_toml(const ScenarioConfig& config);

/// The schema as a markdown table (every key, its family, type, default, allowed values and
/// meaning), as scenarios/README.md holds it between its schema markers.
std::string schema_markdown();

}  // namespace fedsim::scenario
