#include "external/process_tag.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <vector>

namespace fedsim::external {

namespace {

/// Whether /proc/<pid>/environ holds `entry` as one of its NUL-separated entries.
bool environ_holds(const char* pid, const std::string& entry) {
  const std::string path = std::string("/proc/") + pid + "/environ";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // gone, or another user's
  std::string env;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    env.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  for (std::size_t at = 0; at < env.size();) {
    const std::size_t end = env.find('\0', at);
    const std::size_t len = (end == std::string::npos ? env.size() : end) - at;
    if (env.compare(at, len, entry) == 0) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

/// The pids of the processes whose environment holds `entry`, but this process.
std::vector<pid_t> tagged(const std::string& entry) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  const pid_t self = ::getpid();
  while (const dirent* d = ::readdir(proc)) {
    if (d->d_name[0] < '1' || d->d_name[0] > '9') continue;
    const pid_t pid = static_cast<pid_t>(std::atol(d->d_name));
    if (pid != self && environ_holds(d->d_name, entry)) out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

}  // namespace

std::string make_process_tag() {
  static std::atomic<unsigned long> serial{0};
  return "FEDSIM_WORKER_TAG_" + std::to_string(::getpid()) + "_" +
         std::to_string(serial.fetch_add(1)) + "=1";
}

int kill_tagged(const std::string& tag) {
  std::vector<pid_t> killed;
  for (int round = 0; round < 5; ++round) {
    const std::vector<pid_t> found = tagged(tag);
    if (found.empty()) break;
    for (pid_t pid : found)
      if (::kill(pid, SIGKILL) == 0 &&
          std::find(killed.begin(), killed.end(), pid) == killed.end())
        killed.push_back(pid);
    // A killed process's environment reads empty once it is a zombie: the next round sees
    // only what was started meanwhile.
  }
  return static_cast<int>(killed.size());
}

}  // namespace fedsim::external
