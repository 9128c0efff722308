#pragma once
/// fedsim.Scenario: a scenario's TOML text, where it came from and the overrides set on it,
/// loaded by the loader of `fedsim run` (scenarios/loader.hpp) after every change, so it always
/// holds a validated configuration.
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "scenarios/loader.hpp"

namespace fedsim::python {

struct Scenario {
  std::string text;    ///< the TOML the loader reads
  std::string source;  ///< the file's path, or "<dict>", "<toml>": messages and relative paths
  std::vector<std::string> overrides;  ///< "key=value", as `fedsim run --set` gives them
  scenario::LoadedScenario loaded;     ///< of text with overrides

  /// Loads `text` from `source`; raises fedsim.ScenarioError with the loader's line.
  static Scenario from_text(std::string text, std::string source);
  /// The same scenario with one more override; raises fedsim.ScenarioError (and `this` is left
  /// as it was) when the loader refuses it.
  Scenario with(const std::string& override_text) const;
};

/// Calls `load` and turns the loader's ScenarioError into fedsim.ScenarioError.
scenario::LoadedScenario load_or_raise(const std::string& text, const std::string& source,
                                       const std::vector<std::string>& overrides);

void add_scenario(pybind11::module_& module);

}  // namespace fedsim::python
