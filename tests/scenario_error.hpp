#pragma once
/// The loader's error for a scenario given as text, for tests of its one-line messages.
#include <string>

#include "scenarios/loader.hpp"

namespace fedsim::test {

/// What loading `text` as the file "test.toml" throws (ScenarioError's line), or "" when it
/// loads.
inline std::string scenario_error(const std::string& text) {
  try {
    scenario::load_scenario_text(text, "test.toml");
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace fedsim::test
