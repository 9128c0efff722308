#pragma once
/// CAF's default network backend with fedsim's ConnectionGuard (frame_guard.hpp) in front of the
/// middleman: every TCP connection's BASP headers are shown to the guard before the middleman
/// reads them, and a connection the guard refuses is shut down before its payload is allocated.
/// Its accept survives an exhausted file-descriptor table (CAF's own spins on it).
/// configure_network (tls.hpp) loads the middleman with this backend; the limits come from the
/// actor system's configuration (set_frame_limits). With TLS, CAF's OpenSSL module makes its own
/// connections, which this guard does not see: there the mutual certificate check refuses a
/// peer without a certificate of the run's CA before any BASP frame is read (docs/distributed.md).
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include <caf/io/network/default_multiplexer.hpp>

#include "actors/remote/frame_guard.hpp"

namespace fedsim::actors::remote {

/// Stores the limits in `cfg` for the GuardedMultiplexer its actor system will create.
void set_frame_limits(caf::actor_system_config& cfg, const FrameLimits& limits);

class GuardedMultiplexer : public caf::io::network::default_multiplexer {
 public:
  explicit GuardedMultiplexer(caf::actor_system* sys);
  ~GuardedMultiplexer() override;

  caf::io::scribe_ptr new_scribe(caf::io::network::native_socket fd) override;
  caf::io::doorman_ptr new_doorman(caf::io::network::native_socket fd) override;
  caf::expected<caf::io::scribe_ptr> new_tcp_scribe(const std::string& host,
                                                    std::uint16_t port) override;

  ConnectionGuard& guard() { return *guard_; }

 private:
  caf::io::scribe_ptr make_scribe(caf::io::network::native_socket fd, bool inbound);
  void start_sweeper();  // closes connections past their join deadline

  std::shared_ptr<ConnectionGuard> guard_;
  std::mutex sweeper_mutex_;
  std::condition_variable sweeper_wake_;
  bool sweeper_stop_ = false;
  std::thread sweeper_;
};

/// The guard of `system`'s middleman, or null (no middleman, or another backend).
ConnectionGuard* connection_guard(caf::actor_system& system);

}  // namespace fedsim::actors::remote
