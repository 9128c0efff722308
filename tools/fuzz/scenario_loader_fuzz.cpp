// libFuzzer target: the scenario loader with --set overrides. An input is a scenario text,
// then optionally a line "--set" and one override per line. Promise under test: the loader
// returns a configuration or throws ScenarioError (one line), never anything else, never
// crashes; and a configuration it returns writes out (to_toml) as TOML that loads back to
// the same configuration.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/loader.hpp"

namespace {

void expect(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_scenario_loader: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string_view separator = "\n--set\n";
  const auto at = input.find(separator);
  const std::string text(input.substr(0, at));
  std::vector<std::string> overrides;
  if (at != std::string_view::npos) {
    std::string_view rest = input.substr(at + separator.size());
    while (!rest.empty()) {
      const auto nl = rest.find('\n');
      overrides.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
  }
  fedsim::scenario::ScenarioConfig config;
  try {
    config = fedsim::scenario::load_scenario_text(text, FEDSIM_SCENARIO_DIR "/fuzz.toml", overrides).config;
  } catch (const fedsim::scenario::ScenarioError& e) {
    const std::string what = e.what();
    expect(!what.empty(), "empty error message");
    return 0;
  }
  const std::string toml = fedsim::scenario::to_toml(config);
  try {
    const auto again = fedsim::scenario::load_scenario_text(toml, FEDSIM_SCENARIO_DIR "/fuzz.toml").config;
    expect(fedsim::scenario::to_toml(again) == toml, "to_toml does not read back the same");
  } catch (const fedsim::scenario::ScenarioError& e) {
    std::fprintf(stderr, "%s\n--- written ---\n%s\n", e.what(), toml.c_str());
    expect(false, "the resolved configuration does not load");
  }
  return 0;
}
