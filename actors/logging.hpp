#pragma once
/// One named spdlog logger per role ("network", "server", "agent", "accountant", "recorder",
/// "federation"), writing to stderr. Levels come from SPDLOG_LEVEL (e.g. "server=debug") or
/// from set_log_levels (the command line's --log-level); the default is "warn".
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace fedsim::actors {

/// The logger of a role, created on first use.
std::shared_ptr<spdlog::logger> logger(const std::string& role);

/// Applies a spec like "info" or "warn,server=debug" to every role's logger (SPDLOG_LEVEL's
/// syntax). Throws std::invalid_argument on an unknown level.
void set_log_levels(const std::string& spec);

}  // namespace fedsim::actors
