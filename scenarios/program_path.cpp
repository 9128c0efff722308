#include "scenarios/program_path.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "scenarios/echo.hpp"

namespace fedsim::scenario {

namespace {

namespace fs = std::filesystem;

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// python, python3, python3.11, ... and the shells and interpreters script_problem names.
bool is_interpreter(const std::string& name) {
  static const char* const names[] = {"python", "sh",   "bash", "dash",    "zsh", "ksh",
                                      "perl",   "ruby", "node", "Rscript", "lua"};
  for (const char* n : names)
    if (name == n) return true;
  if (name.rfind("python", 0) != 0) return false;
  const std::string version = name.substr(6);  // "3", "3.11"
  return !version.empty() && version.find_first_not_of("0123456789.") == std::string::npos &&
         std::isdigit(static_cast<unsigned char>(version[0]));
}

}  // namespace

std::string script_problem(const std::vector<std::string>& command) {
  if (command.size() < 2 || !is_interpreter(fs::path(command[0]).filename().string())) return "";
  const std::string& script = command[1];
  if (script.empty() || script[0] == '-') return "";
  std::error_code ec;
  if (!fs::exists(script, ec))
    return "the script " + quote(script) + " of " + quote(command[0]) + " does not exist" +
           (fs::path(script).is_relative()
                ? " (relative to the current folder " + quote(fs::current_path(ec).string()) + ")"
                : std::string());
  if (fs::is_directory(script, ec)) return "the script " + quote(script) + " is a folder";
  return "";
}

std::string program_problem(const std::string& program) {
  if (program.find('/') == std::string::npos) {
    const char* env = std::getenv("PATH");
    const std::string path = env ? env : "/bin:/usr/bin";
    std::string::size_type begin = 0;
    while (true) {
      const auto end = path.find(':', begin);
      const std::string dir = path.substr(begin, end == std::string::npos ? end : end - begin);
      if (is_executable_file(fs::path(dir.empty() ? "." : dir) / program)) return "";
      if (end == std::string::npos) break;
      begin = end + 1;
    }
    return "program " + quote(program) + " is not an executable file in any folder of PATH";
  }
  std::error_code ec;
  const fs::file_status s = fs::status(program, ec);
  if (!fs::exists(s)) return "program " + quote(program) + " does not exist";
  if (!fs::is_regular_file(s)) return "program " + quote(program) + " is not a file";
  if (::access(program.c_str(), X_OK) != 0) return "program " + quote(program) + " is not executable";
  return "";
}

}  // namespace fedsim::scenario
