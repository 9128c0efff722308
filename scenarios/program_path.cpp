#include "scenarios/program_path.hpp"

#include <unistd.h>

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

}  // namespace

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
