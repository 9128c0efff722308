#pragma once
/// Whether a command objective's program can be started, checked at load (world.objective.command)
/// so that a missing or non-executable program is refused in one line instead of failing every
/// evaluation of the run.
#include <string>

namespace fedsim::scenario {

/// Why `program` (a command's argv[0]) cannot be started, or "" when it can (the program
/// quoted, scenario::quote). A name without '/'
/// is looked up in PATH as posix_spawnp does (glibc's "/bin:/usr/bin" when PATH is unset; an
/// empty entry is the current folder); a path must exist, be a file (or a link to one) and be
/// executable by this user.
std::string program_problem(const std::string& program);

}  // namespace fedsim::scenario
