#include "tools/fedsim/stream_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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

/// While alive, a write to a pipe whose reader has gone fails with EPIPE instead of killing the
/// process with SIGPIPE (blocked in this thread; a pending one is consumed before unblocking).
class NoSigpipe {
 public:
  explicit NoSigpipe(bool on) : on_(on) {
    if (!on_) return;
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old_);
  }
  ~NoSigpipe() {
    if (!on_) return;
    const int saved = errno;
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    const timespec now{0, 0};
    while (sigtimedwait(&pipe, nullptr, &now) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved;
  }
  NoSigpipe(const NoSigpipe&) = delete;
  NoSigpipe& operator=(const NoSigpipe&) = delete;

 private:
  bool on_;
  sigset_t old_{};
};

/// The checks that touch nothing: empty, a folder, inside `out_dir`, no parent folder.
void check_stream_file(const std::string& file, const fs::path& out_dir) {
  const std::string what = "--stream " + scenario::quote(file);
  if (file.empty()) throw UsageError(what + ": give a file, or - for standard output");
  if (file == "-") return;
  if (inside(file, out_dir))
    throw UsageError(what + ": inside the run's folder " + scenario::quote(out_dir.string()) +
                     ", whose files the run replaces when it ends; write it elsewhere");
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw UsageError(what + ": is a folder");
  const fs::path parent = fs::absolute(fs::path(file)).parent_path();
  if (!fs::is_directory(parent, ec))
    throw UsageError(what + ": cannot create it (no folder " + scenario::quote(parent.string()) + ")");
}

}  // namespace

LineSink open_stream_file(const std::string& file, const fs::path& out_dir) {
  check_stream_file(file, out_dir);
  const std::string what = "--stream " + scenario::quote(file);
  std::shared_ptr<std::FILE> handle;
  if (file == "-") {
    handle = std::shared_ptr<std::FILE>(stdout, [](std::FILE*) {});
  } else {
    // Without blocking: a FIFO nobody reads is an error now, not a run that never starts.
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0)
      throw UsageError(what + ": cannot create it (" +
                       (errno == ENXIO ? std::string("a FIFO with no reader") : std::strerror(errno)) +
                       ")");
    // One run per stream file: two would interleave their lines.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      throw UsageError(what + ": in use by another run (locked)");
    }
    struct stat st {};
    if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || ::fstat(fd, &st) != 0 ||
        (S_ISREG(st.st_mode) && ::ftruncate(fd, 0) != 0)) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw UsageError(what + ": cannot write it (" + why + ")");
    }
    std::FILE* f = ::fdopen(fd, "w");
    if (!f) {
      ::close(fd);
      throw UsageError(what + ": cannot write it (" + std::strerror(errno) + ")");
    }
    handle = std::shared_ptr<std::FILE>(f, [](std::FILE* p) { std::fclose(p); });
  }
  // A reader that went away (a pipe or FIFO: EPIPE, not SIGPIPE) or a full disk fails the run,
  // naming --stream.
  struct stat st {};
  const bool pipe = ::fstat(::fileno(handle.get()), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
  return {[handle, what, pipe](const std::string& line) {
            const NoSigpipe guard(pipe);
            if (std::fwrite(line.data(), 1, line.size(), handle.get()) != line.size() ||
                std::fputc('\n', handle.get()) == EOF)
              throw std::runtime_error(what + ": write failed (" + std::strerror(errno) + ")");
          },
          [handle, what, pipe] {
            const NoSigpipe guard(pipe);
            if (std::fflush(handle.get()) != 0)
              throw std::runtime_error(what + ": write failed (" + std::strerror(errno) + ")");
          }};
}

}  // namespace fedsim::cli
