#pragma once
// One measurement in its own forked process, so that its peak RSS (the child's ru_maxrss) is its
// own. Shared by the benchmarks under tools/bench (each .cpp there is its own executable; this
// header is not one).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace fedsim::bench {

struct Measured {
  nlohmann::json result;
  double peak_rss_mib = 0;
};

/// Runs `work` in a forked child (which creates its own actor systems: the parent must not have
/// started a thread) and returns its JSON and peak RSS; `tool: what ...` goes to stderr first.
/// Exits on failure, naming `what`.
inline Measured in_child(const char* tool, const std::string& what,
                         const std::function<nlohmann::json()>& work) {
  std::fprintf(stderr, "%s: %s ...\n", tool, what.c_str());
  std::fflush(nullptr);
  int fd[2];
  if (pipe(fd) != 0) std::perror("pipe"), std::exit(1);
  const pid_t pid = fork();
  if (pid < 0) std::perror("fork"), std::exit(1);
  if (pid == 0) {
    close(fd[0]);
    int rc = 0;
    std::string text;
    try {
      text = work().dump();
    } catch (const std::exception& e) {
      text = nlohmann::json{{"error", e.what()}}.dump();
      rc = 1;
    }
    for (std::size_t off = 0; off < text.size();) {
      const ssize_t n = write(fd[1], text.data() + off, text.size() - off);
      if (n <= 0) _exit(1);
      off += static_cast<std::size_t>(n);
    }
    close(fd[1]);
    _exit(rc);
  }
  close(fd[1]);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    std::fprintf(stderr, "%s: %s failed: %s\n", tool, what.c_str(), text.c_str());
    std::exit(1);
  }
  return {nlohmann::json::parse(text), usage.ru_maxrss / 1024.0};  // kilobytes on Linux
}

}  // namespace fedsim::bench
