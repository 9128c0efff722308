#include "tools/fedsim/seed_option.hpp"

#include <charconv>
#include <string>

namespace fedsim::cli {

CLI::Validator seed_check(unsigned long long max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        unsigned long long v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        if (text.empty() || text[0] == '+' || ec != std::errc() || ptr != end || v > max)
          return "a seed is an integer in [0, " + std::to_string(max) + "], got '" + text + "'";
        return "";
      },
      "SEED");
}

}  // namespace fedsim::cli
