#include "tools/fedsim/dashboard_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cctype>
#include <chrono>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "actors/remote/serve.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/dashboard_assets.hpp"

namespace fedsim::cli {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

/// A send that cannot finish within `seconds` fails (for the 503 to a connection too many).
void set_send_timeout(tcp::socket& s, int seconds) {
  timeval tv{seconds, 0};
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

using Clock = std::chrono::steady_clock;

/// Connections served at once; more are answered 503 and closed.
constexpr std::size_t max_connections = 64;
/// A connection that has not sent its request by then is closed.
constexpr auto request_timeout = std::chrono::seconds(10);

/// A connection's thread, whether it has ended (so finished ones can be joined), and until
/// when it may take to send its request (reset once it has).
struct Worker {
  std::thread thread;
  int fd = -1;  ///< its socket, shut down to wake a blocked call (timeout, or the server stops)
  std::shared_ptr<std::atomic<bool>> ended = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<Clock::rep>> request_due =
      std::make_shared<std::atomic<Clock::rep>>((Clock::now() + request_timeout).time_since_epoch().count());
};

}  // namespace

struct DashboardServer::Impl {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::string host;
  std::uint16_t port_number = 0;
  bool allow_remote = false;
  std::shared_ptr<DashboardHub> hub;
  std::atomic<bool> stopping{false};
  std::atomic<int> streams{0};  ///< open /events connections
  std::thread accept_thread;
  std::mutex workers_mutex;
  std::list<Worker> workers;

  /// Joins the connections that have ended; shuts down those past their request's time.
  void reap() {
    const auto now = Clock::now().time_since_epoch().count();
    for (auto it = workers.begin(); it != workers.end();) {
      if (*it->ended) {
        it->thread.join();
        it = workers.erase(it);
        continue;
      }
      if (*it->request_due != 0 && now > *it->request_due) {
        ::shutdown(it->fd, SHUT_RDWR);
        *it->request_due = 0;
      }
      ++it;
    }
  }

  /// Shuts down the connection that has waited longest for its request; false if none waits.
  bool evict_oldest_waiting() {
    for (auto& w : workers)
      if (!*w.ended && *w.request_due != 0) {
        ::shutdown(w.fd, SHUT_RDWR);
        *w.request_due = 0;
        return true;
      }
    return false;
  }

  void accept_loop() {
    pollfd p{acceptor.native_handle(), POLLIN, 0};
    while (!stopping) {
      p.revents = 0;
      const int ready = ::poll(&p, 1, 100);
      {
        std::lock_guard<std::mutex> lock(workers_mutex);
        reap();
      }
      if (ready <= 0) continue;
      boost::system::error_code ec;
      tcp::socket socket(io);
      acceptor.accept(socket, ec);
      if (ec) {  // e.g. out of file descriptors: not a busy loop
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      std::lock_guard<std::mutex> lock(workers_mutex);
      // Full: the oldest connection still sending its request makes room (so half-sent
      // requests cannot keep everyone out); when every one is being served, a 503.
      if (workers.size() >= max_connections && !evict_oldest_waiting()) {
        set_send_timeout(socket, 1);
        respond(socket, http::status::service_unavailable, "text/plain",
                "too many connections to this dashboard\n");
        continue;
      }
      Worker& w = workers.emplace_back();
      w.fd = socket.native_handle();
      w.thread = std::thread([this, s = std::move(socket), ended = w.ended,
                              due = w.request_due]() mutable {
        serve(s, *due);
        // Closed under the lock, so the server never shuts down a number reused since.
        std::lock_guard<std::mutex> closing(workers_mutex);
        boost::system::error_code ignored;
        s.shutdown(tcp::socket::shutdown_both, ignored);
        s.close(ignored);
        *ended = true;
      });
    }
  }

  void serve(tcp::socket& socket, std::atomic<Clock::rep>& request_due) {
    boost::beast::flat_buffer buffer;
    http::request_parser<http::string_body> parser;
    parser.header_limit(16 * 1024);
    parser.body_limit(16 * 1024);
    boost::system::error_code ec;
    http::read(socket, buffer, parser, ec);  // ended by reap() if it takes too long
    request_due = 0;
    if (ec) return;
    const auto& request = parser.get();
    if (!dashboard_host_allowed(std::string(request[http::field::host]), host, port_number, allow_remote))
      return respond(socket, http::status::forbidden, "text/plain",
                     "this dashboard answers requests for " + host + " and localhost only\n");
    std::string target(request.target());
    if (const auto q = target.find('?'); q != std::string::npos) target.resize(q);
    if (request.method() != http::verb::get) return respond(socket, http::status::method_not_allowed, "text/plain", "GET only\n");
    if (target == "/events") return stream(socket);
    const DashboardAsset* asset = find_dashboard_asset(target == "/" ? "/index.html" : target);
    if (!asset) return respond(socket, http::status::not_found, "text/plain", "not found\n");
    respond(socket, http::status::ok, asset->content_type, asset->body);
  }

  static void respond(tcp::socket& socket, http::status status, std::string_view type,
                      std::string_view body) {
    http::response<http::string_body> r{status, 11};
    r.set(http::field::server, "fedsim");
    r.set(http::field::content_type, boost::beast::string_view(type.data(), type.size()));
    r.set(http::field::cache_control, "no-store");
    r.keep_alive(false);
    r.body() = std::string(body);
    r.prepare_payload();
    boost::system::error_code ec;
    http::write(socket, r, ec);
  }

  /// Server-sent events: the hub's lines, then `event: done`; a comment every 15 s keeps
  /// proxies from closing an idle stream. Ends when the browser goes or the server stops.
  void stream(tcp::socket& socket) {
    ++streams;
    const std::string header =
        "HTTP/1.1 200 OK\r\nServer: fedsim\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-store\r\nConnection: close\r\n\r\n";
    boost::system::error_code ec;
    asio::write(socket, asio::buffer(header), ec);
    std::size_t next = 0;
    auto quiet_since = std::chrono::steady_clock::now();
    std::string out;
    while (!ec && !stopping) {
      DashboardHub::Batch b = hub->wait(next, std::chrono::milliseconds(200));
      out.clear();
      for (const auto& line : b.lines) out += "data: " + line + "\n\n";
      if (b.done) out += "event: done\ndata: {}\n\n";
      const auto now = std::chrono::steady_clock::now();
      if (out.empty() && now - quiet_since > std::chrono::seconds(15)) out = ": waiting\n\n";
      if (!out.empty()) {
        asio::write(socket, asio::buffer(out), ec);
        quiet_since = now;
      }
      if (b.done) break;
    }
    --streams;
  }
};

bool dashboard_host_allowed(const std::string& host_header, const std::string& bound_host,
                            std::uint16_t port, bool allow_remote) {
  if (allow_remote || host_header.empty()) return true;
  std::string h;
  for (char c : host_header) h += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string p = ":" + std::to_string(port);
  for (const std::string& name : {bound_host, std::string("127.0.0.1"), std::string("localhost"),
                                  std::string("[::1]")})
    if (h == name || h == name + p) return true;
  return false;
}

DashboardServer::DashboardServer(const std::string& endpoint, const std::string& option,
                                 bool allow_remote, std::shared_ptr<DashboardHub> hub)
    : impl_(std::make_unique<Impl>()) {
  std::string host;
  std::uint16_t port = 0;
  try {
    std::tie(host, port) = actors::remote::parse_endpoint(endpoint, option);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::string what = option + " '" + endpoint + "'";
  boost::system::error_code ec;
  asio::ip::address address =
      host == "localhost" ? asio::ip::address_v4::loopback() : asio::ip::make_address(host, ec);
  if (ec) throw UsageError(what + ": '" + host + "' is not an IP address (or localhost)");
  if (!address.is_loopback() && !allow_remote)
    throw UsageError(what + ": not a loopback address; the dashboard shows the run to whoever "
                     "connects: add " + option + "-allow-remote to serve other hosts");
  impl_->hub = std::move(hub);
  impl_->host = host == "localhost" ? "127.0.0.1" : host;
  const tcp::endpoint ep(address, port);
  impl_->acceptor.open(ep.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(ep, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw UsageError(what + ": cannot listen there (" + ec.message() + ")");
  impl_->port_number = impl_->acceptor.local_endpoint().port();
  impl_->allow_remote = allow_remote;
  impl_->accept_thread = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

DashboardServer::~DashboardServer() {
  impl_->stopping = true;
  impl_->accept_thread.join();
  {
    std::lock_guard<std::mutex> lock(impl_->workers_mutex);
    for (auto& w : impl_->workers)
      if (!*w.ended) ::shutdown(w.fd, SHUT_RDWR);  // a read waiting for a request returns
  }
  for (auto& w : impl_->workers) w.thread.join();
}

std::uint16_t DashboardServer::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string DashboardServer::url() const {
  const bool v6 = impl_->acceptor.local_endpoint().address().is_v6();
  return "http://" + (v6 ? "[" + impl_->host + "]" : impl_->host) + ":" + std::to_string(port()) + "/";
}

void DashboardServer::drain(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (impl_->streams > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

}  // namespace fedsim::cli
