#pragma once
/// A double for fedsim's JSON outputs (summary.json, the live stream, fedsim compare --json):
/// the number, or null where it is not finite (JSON has no NaN or infinity; a number not
/// measured, or unbounded, is null).
#include <cmath>

#include <nlohmann/json.hpp>

namespace fedsim::cli {

inline nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace fedsim::cli
