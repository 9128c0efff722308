#pragma once
/// Whether a command objective's program can be started, checked at load (world.objective.command)
/// so that a missing or non-executable program is refused in one line instead of failing every
/// evaluation of the run.
#include <string>
#include <vector>

namespace fedsim::scenario {

/// Why `program` (a command's argv[0]) cannot be started, or "" when it can (the program
/// quoted, scenario::quote). A name without '/'
/// is looked up in PATH as posix_spawnp does (glibc's "/bin:/usr/bin" when PATH is unset; an
/// empty entry is the current folder); a path must exist, be a file (or a link to one) and be
/// executable by this user.
std::string program_problem(const std::string& program);

/// Why a script interpreter's script cannot be read, or "" when it can or the command names
/// none for certain. The rule, for what is certainly wrong only: when argv[0]'s file name is
/// a script interpreter (python, python3, python3.N, sh, bash, dash, zsh, ksh, perl, ruby,
/// node, Rscript, lua) and its first argument does not start with '-', that argument is the
/// script: it must be an existing file (a relative path from the current folder, where the
/// worker starts). `python3 -u worker.py`, `sh -c '...'` and any other program are not
/// checked.
std::string script_problem(const std::vector<std::string>& command);

}  // namespace fedsim::scenario
