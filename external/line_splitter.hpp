#pragma once
/// Splits a byte stream into lines of at most `max_line` bytes without ever holding more than
/// that: the guard against a worker that prints megabytes without a newline.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace fedsim::external {

class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line) : max_line_(max_line) {}

  /// Feeds bytes: calls `on_line` with each complete line (without "\n", and without one
  /// "\r" before it) until it returns false. Returns false once a line (complete or not)
  /// is longer than max_line, and from then on (the rest of the stream is not trusted).
  bool feed(std::string_view bytes, const std::function<bool(std::string&&)>& on_line);

  bool too_long() const { return too_long_; }
  std::size_t buffered() const { return partial_.size(); }

 private:
  std::size_t max_line_;
  std::string partial_;
  bool too_long_ = false;
};

}  // namespace fedsim::external
