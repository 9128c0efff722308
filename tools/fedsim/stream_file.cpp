#include "tools/fedsim/stream_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "scenarios/echo.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {

namespace fs = std::filesystem;

namespace {

/// `inner` is `outer` or below it (both made absolute, without resolving what does not exist).
bool inside(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(fs::absolute(inner), ec);
  const fs::path b = fs::weakly_canonical(fs::absolute(outer), ec);
  auto i = a.begin();
  for (auto j = b.begin(); j != b.end(); ++j, ++i) {
    if (j->empty() && std::next(j) == b.end()) break;  // a trailing separator
    if (i == a.end() || *i != *j) return false;
  }
  return true;
}

}  // namespace

LineSink open_stream_file(const std::string& file, const fs::path& out_dir) {
  const std::string what = "--stream " + scenario::quote(file);
  if (file.empty()) throw UsageError(what + ": give a file, or - for standard output");
  if (file == "-") {
    return {[](const std::string& line) {
              std::fwrite(line.data(), 1, line.size(), stdout);
              std::fputc('\n', stdout);
            },
            [] { std::fflush(stdout); }};
  }
  if (inside(file, out_dir))
    throw UsageError(what + ": inside the run's folder " + scenario::quote(out_dir.string()) +
                     ", whose files the run replaces when it ends; write it elsewhere");
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw UsageError(what + ": is a folder");
  std::FILE* f = std::fopen(file.c_str(), "w");
  if (!f) throw UsageError(what + ": cannot create it (" + std::strerror(errno) + ")");
  auto handle = std::shared_ptr<std::FILE>(f, [](std::FILE* p) { std::fclose(p); });
  return {[handle, what](const std::string& line) {
            if (std::fwrite(line.data(), 1, line.size(), handle.get()) != line.size() ||
                std::fputc('\n', handle.get()) == EOF)
              throw std::runtime_error(what + ": write failed (" + std::strerror(errno) + ")");
          },
          [handle, what] {
            if (std::fflush(handle.get()) != 0)
              throw std::runtime_error(what + ": write failed (" + std::strerror(errno) + ")");
          }};
}

}  // namespace fedsim::cli
