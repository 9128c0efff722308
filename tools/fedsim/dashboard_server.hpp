#pragma once
/// The dashboard's HTTP server (Boost.Beast): the page (tools/dashboard/, embedded in the
/// binary: dashboard_assets.hpp) and its live data as server-sent events from a DashboardHub.
///   GET /, /index.html, /dashboard.js, /dashboard.css   the page
///   GET /events   text/event-stream: every kept line so far (`data: LINE`), then each new one
///                 as it comes, then `event: done` when the hub is finished
/// Anything else is 404 (405 for a method other than GET). Each connection has its own
/// thread; a connection that sends no request within 10 s is closed.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "tools/fedsim/dashboard_hub.hpp"

namespace fedsim::cli {

class DashboardServer {
 public:
  /// Listens on `endpoint` (HOST:PORT; port 0: any free one). A HOST that is not a loopback
  /// address is refused (UsageError naming `option`) unless `allow_remote`: the page shows the
  /// run to whoever connects.
  DashboardServer(const std::string& endpoint, const std::string& option, bool allow_remote,
                  std::shared_ptr<DashboardHub> hub);
  /// Stops listening, closes every connection and joins their threads.
  ~DashboardServer();
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;

  std::uint16_t port() const;
  /// http://HOST:PORT/
  std::string url() const;
  /// Waits up to `seconds` for the open event streams to end on their own (their browsers
  /// have been sent `event: done`), so that a finished run's last lines reach them.
  void drain(double seconds);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fedsim::cli
