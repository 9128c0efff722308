#pragma once
/// What a dashboard serves (dashboard_server.hpp): the lines of a live stream (live_run.hpp) or
/// of a finished run replayed, kept for browsers that connect late. Observation and pull lines
/// are not kept (a page draws rounds, phases, states and faults; a large run has millions of
/// observations). Thread-safe: the run publishes, each browser's connection waits.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "tools/fedsim/live_run.hpp"

namespace fedsim::cli {

class DashboardHub {
 public:
  /// Keeps a line (unless an observation or a pull) and wakes the browsers.
  void publish(const std::string& line);
  /// Nothing more will come: browsers are told so (`event: done`) once they have every line.
  void finish();
  /// A sink for LiveRun::add_sink.
  LineSink sink();

  struct Batch {
    std::vector<std::string> lines;  ///< the kept lines from `next` on
    bool done = false;               ///< finished, and `lines` ends with the last one
  };
  /// The lines kept after the first `next` ones, waiting up to `timeout` for one; advances
  /// `next` past them.
  Batch wait(std::size_t& next, std::chrono::milliseconds timeout);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
  bool finished_ = false;
};

}  // namespace fedsim::cli
