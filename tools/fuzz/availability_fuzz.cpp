// libFuzzer target: the availability-trace reader (CSV agent,start,end), the pure function
// actors::parse_availability. Promise under test: records that satisfy the reader's contract
// (ids in range, 0 <= start < end, start finite), or std::invalid_argument naming the source,
// line and column; never a crash, never another exception.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "actors/network_availability.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  constexpr int agents = 8;
  try {
    for (const auto& r : fedsim::actors::parse_availability(text, "trace.csv", agents))
      if (r.agent < 0 || r.agent >= agents || !(r.start >= 0) || !std::isfinite(r.start) ||
          !(r.end > r.start))
        std::abort();  // a record the contract excludes got through
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind("trace.csv:", 0) != 0) std::abort();  // unnamed error
  }
  return 0;
}
