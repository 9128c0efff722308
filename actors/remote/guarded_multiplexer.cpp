#include "actors/remote/guarded_multiplexer.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <caf/actor_system_config.hpp>
#include <caf/io/basp/header.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/network/interfaces.hpp>
#include <caf/io/network/acceptor_impl.hpp>
#include <caf/io/network/scribe_impl.hpp>

#include "actors/logging.hpp"

namespace fedsim::actors::remote {
namespace {

namespace basp = caf::io::basp;
using caf::io::network::native_socket;

constexpr const char* key_max_frame = "fedsim-remote.max-frame-bytes";
constexpr const char* key_unauth_frame = "fedsim-remote.unauthenticated-frame-bytes";
constexpr const char* key_unauth_bytes = "fedsim-remote.unauthenticated-bytes";
constexpr const char* key_auth_timeout = "fedsim-remote.auth-timeout-ms";
constexpr const char* key_per_address = "fedsim-remote.unauthenticated-per-address";

FrameLimits limits_of(const caf::actor_system_config& cfg) {
  FrameLimits l;
  auto get = [&](const char* key, std::uint64_t fallback) {
    return static_cast<std::uint64_t>(
        caf::get_or(cfg, caf::string_view{key, std::strlen(key)}, static_cast<std::int64_t>(fallback)));
  };
  l.max_frame_bytes = get(key_max_frame, l.max_frame_bytes);
  l.unauthenticated_frame_bytes = get(key_unauth_frame, l.unauthenticated_frame_bytes);
  l.unauthenticated_bytes = get(key_unauth_bytes, l.unauthenticated_bytes);
  l.auth_timeout = std::chrono::milliseconds(get(key_auth_timeout, l.auth_timeout.count()));
  l.unauthenticated_per_address = get(key_per_address, l.unauthenticated_per_address);
  return l;
}

/// A connection whose every header (and a client handshake's payload) the guard sees before
/// the middleman does. A refused connection is shut down: its next read ends it the way a
/// peer's close would, so the middleman forgets it as usual.
class GuardedScribe final : public caf::io::network::scribe_impl {
 public:
  GuardedScribe(caf::io::network::default_multiplexer& mx, native_socket fd,
                std::shared_ptr<ConnectionGuard> guard, bool inbound)
      : scribe_impl(mx, fd), guard_(std::move(guard)), watch_writes_(inbound) {
    std::string refusal;
    id_ = guard_->opened(inbound, addr(), ConnectionGuard::Clock::now(), &refusal);
    guard_->set_socket(id_, static_cast<int>(fd));
    reader_.emplace(*guard_, id_);
    if (!refusal.empty()) close_now(refusal);
  }

  ~GuardedScribe() override { guard_->closed(id_); }  // before the socket is closed

  void configure_read(caf::io::receive_policy::config config) override {
    // The middleman asks for exactly the announced payload: never more than the guard allows
    // (consume() refuses such a header first; this is the second line).
    if (config.second > guard_->frame_bound(id_) && config.second > basp::header_size) {
      close_now("a read larger than the bound");
      config = caf::io::receive_policy::exactly(basp::header_size);
    }
    scribe_impl::configure_read(config);
  }

  /// Until an inbound peer has joined, the middleman writes whole frames here, then flushes:
  /// the guard reads their headers (which actors wrote to the peer) before they go to the
  /// socket. Afterwards (and for outbound connections) it writes to the socket's own buffer,
  /// without the copy.
  std::vector<char>& wr_buf() override { return watch_writes_ ? out_ : scribe_impl::wr_buf(); }

  void flush() override {
    if (watch_writes_ && !out_.empty()) {
      watch_writes_ = guard_->wrote(id_, out_.data(), out_.size());
      auto& socket_buffer = scribe_impl::wr_buf();
      socket_buffer.insert(socket_buffer.end(), out_.begin(), out_.end());
      out_.clear();
    }
    scribe_impl::flush();
  }

  bool consume(caf::execution_unit* ctx, const void* buf, std::size_t n) override {
    if (closing_) return true;  // the shut-down socket's next read ends the connection
    const std::string refusal = reader_->read(static_cast<const char*>(buf), n);
    if (!refusal.empty()) {
      close_now(refusal);
      return true;
    }
    return scribe_impl::consume(ctx, buf, n);
  }

 private:
  void close_now(const std::string& why) {
    if (closing_) return;
    closing_ = true;
    logger("remote")->info("connection from {} closed: {}", addr(), why);
    ::shutdown(stream_.fd(), SHUT_RDWR);
  }

  std::shared_ptr<ConnectionGuard> guard_;
  ConnectionGuard::ConnectionId id_ = 0;
  std::optional<GuardedReader> reader_;
  bool watch_writes_;      ///< the guard still reads what is written (an inbound peer not joined)
  std::vector<char> out_;  ///< what the middleman wrote since the last flush, while watched
  bool closing_ = false;
};

/// CAF's TCP accept, except when this process has no file descriptor left: CAF's then fails,
/// leaves the connection queued and is woken again at once, for ever (a busy loop). This one
/// keeps one descriptor in reserve, and on EMFILE/ENFILE frees it to accept the connection and
/// close it at once, so the peer learns and the loop waits for the next one.
class ReserveTcp {
 public:
  explicit ReserveTcp(std::shared_ptr<ConnectionGuard> guard)
      : guard_(std::move(guard)), reserve_(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {}
  ReserveTcp(const ReserveTcp&) = delete;
  ReserveTcp& operator=(const ReserveTcp&) = delete;
  ~ReserveTcp() {
    if (reserve_ >= 0) ::close(reserve_);
  }

  bool try_accept(native_socket& result, native_socket fd) {
    result = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (result >= 0) return true;
    const int err = errno;
    result = caf::io::network::invalid_native_socket;
    if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR || err == ECONNABORTED) return true;
    if ((err == EMFILE || err == ENFILE) && reserve_ >= 0) {
      ::close(reserve_);
      const int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) ::close(c);
      reserve_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (guard_->closed_unregistered("no file descriptor left") == 1)
        logger("remote")->warn("a connection was closed as accepted: this process has no file "
                               "descriptor left (ulimit -n); later ones are counted in summary.json");
      return true;
    }
    logger("remote")->warn("accept failed: {}", std::strerror(err));
    return false;
  }
  static constexpr bool must_read_more(native_socket, std::size_t) { return false; }

 private:
  std::shared_ptr<ConnectionGuard> guard_;
  int reserve_;
};

/// caf::io::network::doorman_impl with the ReserveTcp accept.
class GuardedDoorman final : public caf::io::doorman {
 public:
  GuardedDoorman(caf::io::network::default_multiplexer& mx, native_socket fd,
                 std::shared_ptr<ConnectionGuard> guard)
      : doorman(caf::io::network::accept_hdl_from_socket(fd)), acceptor_(mx, fd, std::move(guard)) {}

  bool new_connection() override {
    if (detached()) return false;  // as doorman_impl: the broker let go before the loop did
    auto& mx = acceptor_.backend();
    auto scribe = mx.new_scribe(acceptor_.accepted_socket());
    auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mx, hdl);
  }
  void graceful_shutdown() override {
    acceptor_.graceful_shutdown();
    detach(&acceptor_.backend(), false);
  }
  void launch() override { acceptor_.start(this); }
  std::string addr() const override {
    auto x = caf::io::network::local_addr_of_fd(acceptor_.fd());
    return x ? std::move(*x) : std::string();
  }
  std::uint16_t port() const override {
    auto x = caf::io::network::local_port_of_fd(acceptor_.fd());
    return x ? *x : 0;
  }
  void add_to_loop() override { acceptor_.activate(this); }
  void remove_from_loop() override { acceptor_.passivate(); }

 private:
  caf::io::network::acceptor_impl<ReserveTcp> acceptor_;
};

}  // namespace

void set_frame_limits(caf::actor_system_config& cfg, const FrameLimits& limits) {
  auto put = [&](const char* key, std::uint64_t value) {
    caf::put(cfg.content, caf::string_view{key, std::strlen(key)}, static_cast<std::int64_t>(value));
  };
  put(key_max_frame, limits.max_frame_bytes);
  put(key_unauth_frame, limits.unauthenticated_frame_bytes);
  put(key_unauth_bytes, limits.unauthenticated_bytes);
  put(key_auth_timeout, static_cast<std::uint64_t>(limits.auth_timeout.count()));
  put(key_per_address, limits.unauthenticated_per_address);
}

GuardedMultiplexer::GuardedMultiplexer(caf::actor_system* sys)
    : default_multiplexer(sys),
      guard_(std::make_shared<ConnectionGuard>(limits_of(sys->config()))) {}

GuardedMultiplexer::~GuardedMultiplexer() {
  {
    std::lock_guard<std::mutex> lock(sweeper_mutex_);
    sweeper_stop_ = true;
  }
  sweeper_wake_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
}

caf::io::scribe_ptr GuardedMultiplexer::new_scribe(native_socket fd) {
  // Called by the doorman for an accepted connection (new_tcp_scribe makes outbound ones).
  start_sweeper();
  return make_scribe(fd, true);
}

caf::io::doorman_ptr GuardedMultiplexer::new_doorman(native_socket fd) {
  return caf::make_counted<GuardedDoorman>(*this, fd, guard_);
}

caf::expected<caf::io::scribe_ptr> GuardedMultiplexer::new_tcp_scribe(const std::string& host,
                                                                     std::uint16_t port) {
  auto fd = caf::io::network::new_tcp_connection(host, port);
  if (!fd) return std::move(fd.error());
  return make_scribe(*fd, false);
}

caf::io::scribe_ptr GuardedMultiplexer::make_scribe(native_socket fd, bool inbound) {
  int on = 1;  // as default_multiplexer::new_scribe: keepalive
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  return caf::make_counted<GuardedScribe>(*this, fd, guard_, inbound);
}

void GuardedMultiplexer::start_sweeper() {
  std::lock_guard<std::mutex> lock(sweeper_mutex_);
  if (sweeper_.joinable() || sweeper_stop_) return;
  sweeper_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(sweeper_mutex_);
    const auto period = std::min<std::chrono::milliseconds>(guard_->limits().auth_timeout / 4,
                                                            std::chrono::milliseconds(250));
    while (!sweeper_wake_.wait_for(lock, std::max(period, std::chrono::milliseconds(1)),
                                   [this] { return sweeper_stop_; })) {
      // Under the guard's lock a registered socket is still open (a scribe leaves the guard
      // before its socket is closed), so the number cannot name another connection yet.
      guard_->expire(ConnectionGuard::Clock::now(), [](int fd) { ::shutdown(fd, SHUT_RDWR); });
    }
  });
}

ConnectionGuard* connection_guard(caf::actor_system& system) {
  if (!system.has_middleman()) return nullptr;
  auto* mx = dynamic_cast<GuardedMultiplexer*>(&system.middleman().backend());
  return mx ? &mx->guard() : nullptr;
}

}  // namespace fedsim::actors::remote
