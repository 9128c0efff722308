#pragma once
/// Optional TLS for distributed runs, through CAF's OpenSSL module (libcaf_openssl): the same
/// BASP protocol inside TLS sessions. With a certificate, its key and a CA file on both sides,
/// each side checks that the other's certificate is signed by the CA (mutual authentication, in
/// addition to the join's shared secret); docs/distributed.md says how to make the files.
#include <cstdint>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/remote/frame_guard.hpp"

namespace fedsim::actors::remote {

struct TlsFiles {
  std::string certificate;  ///< PEM: this process's certificate
  std::string key;          ///< PEM: its private key (unencrypted)
  std::string ca;           ///< PEM: the CA that signed every participant's certificate
  bool enabled() const { return !certificate.empty() || !key.empty() || !ca.empty(); }
};

/// Loads CAF's middleman with fedsim's guarded backend (guarded_multiplexer.hpp, with `limits`),
/// and with TLS enabled its OpenSSL module with the files. Throws std::invalid_argument naming
/// the option when TLS is half configured (all three files are needed) or a file cannot be read.
void configure_network(caf::actor_system_config& cfg, const TlsFiles& tls,
                       const FrameLimits& limits = {});

/// Publishes `whom` on host:port (port 0: any) over TCP, or TLS when tls.enabled(); the port.
caf::expected<std::uint16_t> publish_actor(caf::actor_system& system, const caf::actor& whom,
                                           const std::string& host, std::uint16_t port,
                                           const TlsFiles& tls);

/// The actor published at host:port, over TCP or TLS.
caf::expected<caf::actor> connect_actor(caf::actor_system& system, const std::string& host,
                                        std::uint16_t port, const TlsFiles& tls);

}  // namespace fedsim::actors::remote
