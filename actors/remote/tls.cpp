#include "actors/remote/tls.hpp"

#include <chrono>
#include <fstream>
#include <stdexcept>

#include <caf/openssl/all.hpp>

#include "actors/remote/guarded_multiplexer.hpp"

namespace fedsim::actors::remote {
namespace {

void check_readable(const std::string& path, const char* option) {
  if (path.empty())
    throw std::invalid_argument(std::string("TLS needs --tls-cert, --tls-key and --tls-ca: ") +
                                option + " is missing");
  if (!std::ifstream(path))
    throw std::invalid_argument(std::string(option) + " '" + path + "': cannot be read");
}

}  // namespace

void configure_network(caf::actor_system_config& cfg, const TlsFiles& tls,
                       const FrameLimits& limits) {
  cfg.load<caf::io::middleman, GuardedMultiplexer>();
  set_frame_limits(cfg, limits);
  // A peer that stops answering (a frozen process, a machine gone without closing its
  // connections) is a lost node after a few seconds, not a run that waits for ever.
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds(1)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(10)});
  // An idle scheduler thread of CAF 0.17 spins, then sleeps 50 us up to 500 times before it
  // waits to be woken: in a served run, a chain of round trips, that polling was half of the
  // processes' CPU time (tools/bench/distributed). Idle threads wait at once instead.
  cfg.set("work-stealing.moderate-poll-attempts", 0);
  if (!tls.enabled()) return;
  check_readable(tls.certificate, "--tls-cert");
  check_readable(tls.key, "--tls-key");
  check_readable(tls.ca, "--tls-ca");
  cfg.openssl_certificate = tls.certificate;
  cfg.openssl_key = tls.key;
  cfg.openssl_cafile = tls.ca;
  cfg.load<caf::openssl::manager>();
}

caf::expected<std::uint16_t> publish_actor(caf::actor_system& system, const caf::actor& whom,
                                           const std::string& host, std::uint16_t port,
                                           const TlsFiles& tls) {
  const char* in = host.empty() ? nullptr : host.c_str();
  if (tls.enabled()) return caf::openssl::publish(whom, port, in, true);
  return system.middleman().publish(whom, port, in, true);
}

caf::expected<caf::actor> connect_actor(caf::actor_system& system, const std::string& host,
                                        std::uint16_t port, const TlsFiles& tls) {
  if (tls.enabled()) return caf::openssl::remote_actor(system, host, port);
  return system.middleman().remote_actor(host, port);
}

}  // namespace fedsim::actors::remote
