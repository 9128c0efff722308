// The dashboard's HTTP server against hostile clients (issue 32): half-sent requests that would
// hold every connection slot, and pages of other origins reaching it through DNS rebinding.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "tools/fedsim/dashboard_server.hpp"

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using fedsim::cli::DashboardHub;
using fedsim::cli::DashboardServer;
using fedsim::cli::dashboard_host_allowed;

namespace {

/// Sends `request` on a new loopback connection and reads the response to its end.
std::string exchange(asio::io_context& io, std::uint16_t port, const std::string& request) {
  tcp::socket s(io);
  s.connect({asio::ip::make_address("127.0.0.1"), port});
  asio::write(s, asio::buffer(request));
  std::string response;
  boost::system::error_code ec;
  asio::read(s, asio::dynamic_buffer(response), ec);
  return response;
}

std::string get(const std::string& target, const std::string& host) {
  return "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
}

}  // namespace

TEST_CASE("the dashboard answers only its own host names when bound to loopback",
          "[dashboard][security]") {
  CHECK(dashboard_host_allowed("127.0.0.1:8080", "127.0.0.1", 8080, false));
  CHECK(dashboard_host_allowed("LOCALHOST:8080", "127.0.0.1", 8080, false));
  CHECK(dashboard_host_allowed("localhost", "127.0.0.1", 8080, false));
  CHECK(dashboard_host_allowed("[::1]:8080", "::1", 8080, false));
  CHECK(dashboard_host_allowed("", "127.0.0.1", 8080, false));  // HTTP/1.0: no Host
  CHECK_FALSE(dashboard_host_allowed("evil.example:8080", "127.0.0.1", 8080, false));
  CHECK_FALSE(dashboard_host_allowed("127.0.0.1.evil.example:8080", "127.0.0.1", 8080, false));
  CHECK_FALSE(dashboard_host_allowed("127.0.0.1:8081", "127.0.0.1", 8080, false));
  CHECK(dashboard_host_allowed("dashboards.lab:8080", "0.0.0.0", 8080, true));

  auto hub = std::make_shared<DashboardHub>();
  DashboardServer server("127.0.0.1:0", "--dashboard", false, hub);
  asio::io_context io;
  const std::string p = std::to_string(server.port());
  CHECK(exchange(io, server.port(), get("/", "127.0.0.1:" + p)).rfind("HTTP/1.1 200", 0) == 0);
  CHECK(exchange(io, server.port(), get("/", "localhost:" + p)).rfind("HTTP/1.1 200", 0) == 0);
  const std::string rebound = exchange(io, server.port(), get("/events", "attacker.example:" + p));
  CHECK(rebound.rfind("HTTP/1.1 403", 0) == 0);
  CHECK(rebound.find("data:") == std::string::npos);
}

TEST_CASE("half-sent requests filling every slot do not keep a browser out",
          "[dashboard][security]") {
  auto hub = std::make_shared<DashboardHub>();
  DashboardServer server("127.0.0.1:0", "--dashboard", false, hub);
  asio::io_context io;
  const std::string host = "127.0.0.1:" + std::to_string(server.port());
  for (int wave = 0; wave < 3; ++wave) {
    // 70 connections that start a request and never finish it (the server holds 64 at once).
    std::vector<std::unique_ptr<tcp::socket>> slow;
    for (int k = 0; k < 70; ++k) {
      slow.push_back(std::make_unique<tcp::socket>(io));
      slow.back()->connect({asio::ip::make_address("127.0.0.1"), server.port()});
      asio::write(*slow.back(), asio::buffer(std::string("GET / HTTP/1.1\r\nHost: ")));
    }
    INFO("wave " << wave);
    CHECK(exchange(io, server.port(), get("/", host)).rfind("HTTP/1.1 200", 0) == 0);
  }
}
