#pragma once
/// File helpers shared by tests that write and read run outputs.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fedsim::test {

/// A file's whole content.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// An empty (removed) folder under the temp directory, named fedsim-test-<name>.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("fedsim-test-" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace fedsim::test
