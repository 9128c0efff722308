#pragma once
/// --set overrides: "dotted.key=value" applied to a parsed scenario table before it is read.
#include <toml++/toml.h>

#include <string>

namespace fedsim::scenario {

struct Override {
  std::string text;  ///< as given, for messages
  std::string key;   ///< the dotted key, as error messages name it
};

/// Applies one override "dotted.key=value" to `root` (the value parsed as a TOML value or else
/// taken as a bare string; array entries as "world.network.groups[0].fraction=0.5").
/// Throws std::invalid_argument naming the override.
Override apply_override(toml::table& root, const std::string& text);

}  // namespace fedsim::scenario
