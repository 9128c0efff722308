// libFuzzer target: the availability-trace reader (CSV agent,start,end), reached through
// make_network_plan with world.network.availability_file pointing at the input. Promise under
// test: a plan or std::invalid_argument naming the file, never a crash.
// (std::out_of_range from std::stoi is issue 10's bug 8, fixed by the strict parser
// parse_availability; it is tolerated here until that lands.)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "actors/network_plan.hpp"
#include "scenarios/loader.hpp"

namespace {

const std::string& trace_file() {
  static const std::string file = "/tmp/fedsim-fuzz-availability-" + std::to_string(::getpid()) + ".csv";
  return file;
}

const fedsim::scenario::ScenarioConfig& base_config() {
  static const fedsim::scenario::ScenarioConfig config = [] {
    std::ofstream(trace_file()) << "agent,start,end\n";
    auto c = fedsim::scenario::load_scenario(FEDSIM_SCENARIO_DIR "/tiny.toml",
                                             {"world.network.availability_file=" + trace_file()});
    return c;
  }();
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& config = base_config();
  {
    std::ofstream out(trace_file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)fedsim::actors::make_network_plan(config);
  } catch (const std::invalid_argument&) {
  } catch (const std::out_of_range&) {
  }
  return 0;
}
