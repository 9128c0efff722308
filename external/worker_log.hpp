#pragma once
/// A worker slot's stderr log (<log_folder>/worker-<slot>.log), capped. What the slot's workers
/// print is written as it comes until the file holds `cap - tail` bytes (its head); after that
/// only the last `tail` bytes are kept, in memory, and each time a worker of the slot ends (and
/// when the log is closed) the file is rewritten past its head as one line saying how many
/// bytes were cut, then that tail. A worker that prints without end costs at most `cap` bytes
/// of disk (plus that line) and `tail` bytes of memory. Used on the evaluator's thread only.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace fedsim::external {

class WorkerLog {
 public:
  static constexpr std::size_t default_cap = std::size_t{1} << 20;  ///< 1 MiB per slot

  /// Opens `path` (created if missing; what it holds counts towards the head). Throws
  /// std::runtime_error naming the file when it cannot. tail < cap.
  explicit WorkerLog(std::filesystem::path path, std::size_t cap = default_cap,
                     std::size_t tail = default_cap / 4);
  ~WorkerLog();
  WorkerLog(const WorkerLog&) = delete;
  WorkerLog& operator=(const WorkerLog&) = delete;

  void write(std::string_view bytes);
  /// Writes the cut line and the tail after the head, if anything went past the head.
  void flush();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t head_end_ = 0;    ///< bytes of the file written as they came
  std::uint64_t head_limit_ = 0;  ///< cap - tail
  std::vector<char> ring_;        ///< the tail: the last ring_.size() bytes past the head
  std::size_t ring_start_ = 0;    ///< the oldest byte kept
  std::size_t ring_used_ = 0;
  std::uint64_t cut_ = 0;         ///< bytes past the head that are no longer kept
  bool dirty_ = false;            ///< bytes past the head since the last flush
};

}  // namespace fedsim::external
