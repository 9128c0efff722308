#pragma once
/// Runs the built `fedsim` binary (path in FEDSIM_BINARY) for end-to-end tests.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace fedsim::test {

struct CommandResult {
  int exit_code;
  std::string output;  ///< stdout and stderr together
};

/// The fedsim binary under test: FEDSIM_TEST_BINARY (CI points it at the sanitizer build's),
/// else the one built with these tests.
inline std::string fedsim_binary() {
  const char* env = std::getenv("FEDSIM_TEST_BINARY");
  return env && *env ? env : FEDSIM_BINARY;
}

/// Whether CI's sanitizer job runs these tests (FEDSIM_TEST_SANITIZER=1, .ci/run): its
/// binary is many times slower, and tests that only need a long run shrink it.
inline bool under_sanitizer() {
  const char* env = std::getenv("FEDSIM_TEST_SANITIZER");
  return env && std::string(env) == "1";
}

/// Overrides that keep a shipped scenario's tuning objective quick (a model is trained per
/// evaluation): fewer samples and epochs, fewer acquisition candidates (FBO) ...
constexpr const char* tuning_shrink =
    " --set world.objective.samples=1500 --set world.objective.epochs=2"
    " --set algorithm.acquisition_candidates=200";
/// ... and fewer samples for the X-armed family (a model per client and node).
constexpr const char* xarmed_tuning_shrink = " --set world.objective.samples=800";

/// Runs a shell command line, capturing both output streams.
inline CommandResult run_shell(const std::string& line) {
  const std::string command = "{ " + line + " ; } 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs `fedsim ARGS` through the shell, capturing both output streams.
inline CommandResult run_fedsim(const std::string& args) {
  return run_shell(fedsim_binary() + " " + args);
}

/// The Python that runs fedsim's scripts: FEDSIM_PYTHON, else Debian's /usr/bin/python3
/// (as `fedsim plot` and tools/reproduce choose it).
inline std::string python_interpreter() {
  const char* env = std::getenv("FEDSIM_PYTHON");
  return env && *env ? env : "/usr/bin/python3";
}

}  // namespace fedsim::test
