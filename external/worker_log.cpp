#include "external/worker_log.hpp"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string>

namespace fedsim::external {

namespace {

/// Writes all of `data` at `offset` (false on an error: a log that cannot be written is not
/// worth failing an evaluation for).
bool write_at(int fd, const char* data, std::size_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
  return true;
}

}  // namespace

WorkerLog::WorkerLog(std::filesystem::path path, std::size_t cap, std::size_t tail)
    : path_(std::move(path)), head_limit_(cap - std::min(tail, cap)), ring_(std::min(tail, cap)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot open the log file \"" + path_.string() +
                             "\": " + ::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) == 0) head_end_ = static_cast<std::uint64_t>(st.st_size);
}

WorkerLog::~WorkerLog() {
  flush();
  ::close(fd_);
}

void WorkerLog::write(std::string_view bytes) {
  if (head_end_ < head_limit_) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), head_limit_ - head_end_));
    if (write_at(fd_, bytes.data(), n, head_end_)) head_end_ += n;
    else head_limit_ = head_end_;  // the disk refuses: keep the tail only
    bytes.remove_prefix(n);
  }
  if (bytes.empty()) return;
  dirty_ = true;
  const std::size_t size = ring_.size();
  if (size == 0) {
    cut_ += bytes.size();
    return;
  }
  if (bytes.size() >= size) {  // the newest bytes replace everything kept
    cut_ += ring_used_ + bytes.size() - size;
    std::copy(bytes.end() - size, bytes.end(), ring_.begin());
    ring_start_ = 0;
    ring_used_ = size;
    return;
  }
  const std::size_t n = bytes.size();
  if (ring_used_ + n > size) {  // the oldest bytes make room
    const std::size_t drop = ring_used_ + n - size;
    ring_start_ = (ring_start_ + drop) % size;
    ring_used_ -= drop;
    cut_ += drop;
  }
  const std::size_t end = (ring_start_ + ring_used_) % size;
  const std::size_t first = std::min(n, size - end);
  std::copy(bytes.begin(), bytes.begin() + first, ring_.begin() + end);
  std::copy(bytes.begin() + first, bytes.end(), ring_.begin());
  ring_used_ += n;
}

void WorkerLog::flush() {
  if (!dirty_) return;
  dirty_ = false;
  std::string out = "\n[fedsim: " + std::to_string(cut_) +
                    " bytes of stderr cut here: a worker log keeps its first " +
                    std::to_string(head_limit_) + " and its last " +
                    std::to_string(ring_.size()) + " bytes]\n";
  const std::size_t first = std::min(ring_used_, ring_.size() - ring_start_);
  out.append(ring_.data() + ring_start_, first);
  out.append(ring_.data(), ring_used_ - first);
  if (write_at(fd_, out.data(), out.size(), head_end_))
    (void)::ftruncate(fd_, static_cast<off_t>(head_end_ + out.size()));
}

}  // namespace fedsim::external
