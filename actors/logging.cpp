#include "actors/logging.hpp"

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include <spdlog/cfg/env.h>
#include <spdlog/cfg/helpers.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace fedsim::actors {
namespace {
std::once_flag env_loaded;
}

std::shared_ptr<spdlog::logger> logger(const std::string& role) {
  std::call_once(env_loaded, [] {
    spdlog::set_level(spdlog::level::warn);
    spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL, applied to loggers created later too
  });
  if (auto existing = spdlog::get(role)) return existing;
  try {
    return spdlog::stderr_color_mt(role);
  } catch (const spdlog::spdlog_ex&) {  // another thread created it first
    return spdlog::get(role);
  }
}

void set_log_levels(const std::string& spec) {
  // Validate every level named in the spec before applying it.
  std::string rest = spec;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string item = rest.substr(0, comma);
    const auto eq = item.find('=');
    const std::string level = eq == std::string::npos ? item : item.substr(eq + 1);
    if (spdlog::level::from_str(level) == spdlog::level::off && level != "off")
      throw std::invalid_argument("unknown log level '" + level +
                                  "': allowed trace, debug, info, warn, error, critical, off");
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  logger("federation");  // make sure the defaults are in place first
  spdlog::cfg::helpers::load_levels(spec);
}

}  // namespace fedsim::actors
