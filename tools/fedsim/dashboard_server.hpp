#pragma once
/// The dashboard's HTTP server (Boost.Beast): the page (tools/dashboard/, embedded in the
/// binary: dashboard_assets.hpp) and its live data as server-sent events from a DashboardHub.
///   GET /, /index.html, /dashboard.js, /dashboard.css   the page
///   GET /events   text/event-stream: every kept line so far (`data: LINE`), then each new one
///                 as it comes, then `event: done` when the hub is finished
/// Anything else is 404 (405 for a method other than GET). Each connection has its own
/// thread; a connection that sends no request within 10 s is closed. At most 64 connections at
/// once: when full, the oldest one still sending its request is closed to make room (half-sent
/// requests cannot keep a browser out), and only when all 64 are being served is a new one
/// answered 503. Bound to a loopback address, it answers only requests whose Host is that
/// address, localhost or [::1] (403 otherwise): a web page in the user's browser whose name
/// was made to resolve to 127.0.0.1 (DNS rebinding) cannot read the run.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "tools/fedsim/dashboard_hub.hpp"

namespace fedsim::cli {

/// Whether a request with this Host header (empty: none) is answered by a dashboard bound to
/// bound_host:port: always with allow_remote, else only for the bound host, 127.0.0.1,
/// localhost or [::1], with or without the port (case-insensitive).
bool dashboard_host_allowed(const std::string& host_header, const std::string& bound_host,
                            std::uint16_t port, bool allow_remote);

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
