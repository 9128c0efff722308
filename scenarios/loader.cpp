#include "scenarios/loader.hpp"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "scenarios/echo.hpp"
#include "scenarios/overrides.hpp"
#include "scenarios/schema_fields.hpp"
#include "scenarios/toml_depth.hpp"

namespace fedsim::scenario {

namespace fs = std::filesystem;

namespace {

/// Says which override set the key an error message is about (the first quoted name), if one
/// did: the same key, a key inside it, or a table it created.
std::string blame(const std::string& message, const std::vector<Override>& overrides) {
  const size_t open = message.find('\'');
  const size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
  if (close == std::string::npos) return "";
  const std::string key = message.substr(open + 1, close - open - 1);
  auto within = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
           (inner[outer.size()] == '.' || inner[outer.size()] == '[');
  };
  for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
    if (key == it->key || within(key, it->key) || within(it->key, key))
      return " (from --set " + one_line(it->text, 120) + ")";
  return "";
}

}  // namespace

LoadedScenario load_scenario_text(const std::string& text, const std::string& source,
                                  const std::vector<std::string>& overrides) {
  toml::table root;
  if (const auto excess = find_depth_excess(text))
    throw ScenarioError(source + ":" + std::to_string(excess->line) + ":" +
                        std::to_string(excess->column) + ": nested deeper than " +
                        std::to_string(max_toml_depth) + " levels of tables and arrays");
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& pos = e.source().begin;
    throw ScenarioError(source + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                        ": TOML syntax error: " + std::string(e.description()));
  }
  std::vector<Override> applied;
  std::set<std::string> from_command;
  try {
    for (const std::string& o : overrides) {
      applied.push_back(apply_override(root, o));
      from_command.insert(applied.back().key);
    }
    // A resolved config holds every key, those without effect included: warn of overrides only.
    const bool resolved = text.rfind(resolved_header, 0) == 0;
    return read_scenario(root, source, from_command, !resolved);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(source + ": " + e.what() + blame(e.what(), applied));
  }
}

std::string read_scenario_file(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw ScenarioError(path + ": no such scenario file");
  if (fs::is_directory(path, ec)) throw ScenarioError(path + ": is a folder, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (!in || !(text << in.rdbuf())) throw ScenarioError(path + ": cannot read the scenario file");
  return text.str();
}

LoadedScenario load_scenario_file(const std::string& path,
                                  const std::vector<std::string>& overrides) {
  return load_scenario_text(read_scenario_file(path), path, overrides);
}

ScenarioConfig load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return load_scenario_file(path, overrides).config;
}

}  // namespace fedsim::scenario
