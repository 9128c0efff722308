#pragma once
/// The fedsim version, from CMake's project(VERSION) (the one place it is spelled).
namespace fedsim::cli {

/// "0.1.0": written into summary.json and printed by `fedsim --version`.
const char* fedsim_version();

}  // namespace fedsim::cli
