#include "tools/fedsim/dashboard_hub.hpp"

namespace fedsim::cli {

namespace {
/// Lines start with their type (live_run.cpp writes it first).
bool kept(const std::string& line) {
  return line.rfind(R"({"type":"observation")", 0) != 0 && line.rfind(R"({"type":"pull")", 0) != 0;
}
}  // namespace

void DashboardHub::publish(const std::string& line) {
  if (!kept(line)) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.push_back(line);
  }
  changed_.notify_all();
}

void DashboardHub::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  changed_.notify_all();
}

LineSink DashboardHub::sink() {
  return {[this](const std::string& line) { publish(line); }, {}};
}

DashboardHub::Batch DashboardHub::wait(std::size_t& next, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return next < lines_.size() || finished_; });
  Batch b;
  b.lines.assign(lines_.begin() + static_cast<std::ptrdiff_t>(std::min(next, lines_.size())),
                 lines_.end());
  next = lines_.size();
  b.done = finished_;
  return b;
}

std::size_t DashboardHub::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_.size();
}

}  // namespace fedsim::cli
