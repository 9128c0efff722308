#pragma once
/// The fedsim version, from CMake's project(VERSION) (the one place it is spelled), and the
/// build's identity.
namespace fedsim::cli {

/// "0.1.0": written into summary.json and printed by `fedsim --version`.
const char* fedsim_version();

/// The commit this binary was built from ("git rev-parse HEAD", with "-dirty" when a tracked
/// file differed from it; "unknown" when built outside a git checkout), generated at build time
/// by cmake/build_id.cmake. Written into summary.json ("build") and checkpoints, whose resume
/// by another build is refused (`fedsim run --resume-any-build` overrides): two commits share a
/// version, not their results. A "-dirty" build is not told from another dirty build of the
/// same commit.
const char* fedsim_build();

}  // namespace fedsim::cli
