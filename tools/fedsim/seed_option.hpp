#pragma once
/// Seeds on the command line are non-negative integers given as digits: "-5" is not a huge
/// unsigned seed and 2^64 is not clamped, both are usage errors.
#include <CLI/CLI.hpp>

namespace fedsim::cli {

/// A CLI11 check: digits only, at most `max` (e.g. 9223372036854775807 for a signed seed).
CLI::Validator seed_check(unsigned long long max);

}  // namespace fedsim::cli
