#pragma once
// What a benchmark's JSON says of the circumstances of its numbers: the machine (CPU, cores,
// kernel, load), the build, the commit and the date. Shared by the benchmarks under
// tools/bench that write JSON for the results page (each .cpp there is its own executable; this
// header is not one). FEDSIM_BUILD_TYPE, FEDSIM_SOURCE_DIR come from tools/CMakeLists.txt.
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace fedsim::bench {

/// The first line a shell command prints, without its line end ("" when it prints nothing).
inline std::string first_line_of(const char* command) {
  std::string s;
  if (FILE* p = popen(command, "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, p)) s = buf;
    pclose(p);
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

/// The 1, 5 and 15 minute load averages (null when unknown).
inline nlohmann::json load_average_json() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) < 0) return nullptr;
  return {l[0], l[1], l[2]};
}

/// The machine: CPU model, logical cores, kernel, and the load average now (the benchmark adds
/// "load_average_at_end" when it is done).
inline nlohmann::json machine() {
  std::string cpu;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  utsname u{};
  uname(&u);
  return {{"cpu", cpu},
          {"logical_cores", std::thread::hardware_concurrency()},
          {"kernel", std::string(u.sysname) + " " + u.release},
          {"load_average_at_start", load_average_json()}};
}

/// The build the numbers come from: its type, the compiler, whether assertions are on.
inline nlohmann::json build() {
#ifdef NDEBUG
  const bool assertions = false;
#else
  const bool assertions = true;
#endif
  return {{"type", FEDSIM_BUILD_TYPE},
          {"compiler", std::string("GCC ") + __VERSION__},
          {"assertions", assertions}};
}

/// The source tree's commit, short ("" outside a git checkout).
inline std::string git_commit() {
  return first_line_of("git -C " FEDSIM_SOURCE_DIR " rev-parse --short HEAD 2>/dev/null");
}

/// Now, in UTC, as 2026-11-23T17:46:21Z.
inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

/// What every benchmark JSON starts with: the command, fedsim's version, the commit, the machine
/// (its load now) and the build. FEDSIM_VERSION comes from tools/CMakeLists.txt.
inline nlohmann::json report_header(const std::string& command) {
  return {{"command", command},         {"fedsim_version", FEDSIM_VERSION},
          {"git_commit", git_commit()}, {"machine", machine()},
          {"build", build()}};
}

/// Ends a report: the load at the end, the benchmark's wall seconds and the date; then writes it
/// to `path` (its folder made). False when it cannot be written.
inline bool finish_report(nlohmann::json& report, double wall_seconds, const std::string& path) {
  report["machine"]["load_average_at_end"] = load_average_json();
  report["wall_seconds"] = wall_seconds;
  report["date"] = utc_now();
  const std::filesystem::path out(path);
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
  std::ofstream f(out);
  f << report.dump(2) << "\n";
  return static_cast<bool>(f);
}

}  // namespace fedsim::bench
