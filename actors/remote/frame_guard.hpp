#pragma once
/// What a served run's listening port lets a peer do before and after it has joined (issue 32).
///
/// CAF 0.17's middleman reads a BASP frame as a 32-byte header announcing its payload's length
/// and then allocates that many bytes to read the payload into: one header from anyone who can
/// reach the port could make the server allocate 4 GiB, before any join or secret is checked.
/// CAF has no setting bounding it, so fedsim's multiplexer (guarded_multiplexer.hpp) shows
/// every inbound connection's headers to this guard first, and closes a connection it refuses
/// before the middleman sees the header, so nothing is allocated for it.
///
/// The rules, per inbound connection (an outbound one, to a server this process joins, has only
/// the frame bound):
/// - before its node has authenticated (the gatekeeper's join: authenticated()), a frame's
///   payload is at most `unauthenticated_frame_bytes`, the connection reads at most
///   `unauthenticated_bytes` in all, may only carry the BASP handshake, heartbeats, monitor and
///   down messages, CAF's own question to the spawn server (sent by every CAF client on
///   connecting) and messages to the gatekeeper or to an actor of this process that wrote to
///   the peer on this connection (its answers; CAF's own spawn-server query on connecting: see
///   wrote()), and is closed if it has not
///   authenticated `auth_timeout` after it was accepted;
/// - a peer address holds at most `unauthenticated_per_address` connections not yet
///   authenticated (a further one is closed as it is accepted);
/// - a client handshake naming a node that another open connection already speaks for is
///   refused (CAF would take it as another route to that node, before any join);
/// - after authentication a frame's payload is at most `max_frame_bytes`.
/// This object knows nothing of sockets: the multiplexer asks it and closes what it refuses.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <caf/node_id.hpp>

namespace fedsim::actors::remote {

struct FrameLimits {
  /// Payload of one frame from an authenticated peer (or, outbound, from the server): 64 MiB,
  /// unless set (fedsim serve: serve_frame_limits).
  std::uint64_t max_frame_bytes = 64u << 20;
  /// Payload of one frame before the peer's node has authenticated.
  std::uint64_t unauthenticated_frame_bytes = 64u << 10;
  /// Everything a connection may send before its node has authenticated (headers included).
  std::uint64_t unauthenticated_bytes = 256u << 10;
  /// Time from accept to authentication, after which the connection is closed.
  std::chrono::milliseconds auth_timeout{10000};
  /// Connections not yet authenticated that one peer address may hold open at once.
  std::size_t unauthenticated_per_address = 64;
};

/// One BASP header as the guard reads it (caf/io/basp/header.hpp).
struct FrameHeader {
  std::uint8_t operation = 0;  ///< caf::io::basp::message_type
  std::uint8_t flags = 0;
  std::uint32_t payload_len = 0;
  std::uint64_t operation_data = 0;  ///< a message's id (caf::message_id) for direct messages
  std::uint64_t dest_actor = 0;
};

/// The guard's counts of what it refused, by reason (into summary.json's "remote").
struct GuardCounts {
  std::uint64_t accepted = 0;
  std::map<std::string, std::uint64_t> refused;  ///< reason -> connections closed for it
};

class ConnectionGuard {
 public:
  using Clock = std::chrono::steady_clock;
  using ConnectionId = std::uint64_t;

  explicit ConnectionGuard(FrameLimits limits = {});

  const FrameLimits& limits() const { return limits_; }

  /// A connection accepted from `address` (inbound) or opened by this process (outbound):
  /// its id, and a reason to close it at once (empty: keep it).
  ConnectionId opened(bool inbound, const std::string& address, Clock::time_point now,
                      std::string* refusal);
  /// The connection is gone (its socket about to be closed).
  void closed(ConnectionId id);

  /// A header read on the connection: empty to go on, else why it is refused (close it).
  /// The next read is then the header's payload (if any), handed to payload().
  std::string header(ConnectionId id, const FrameHeader& h);
  /// The payload of the last header: empty to go on, else why it is refused. `node` is the
  /// node a client handshake names (the caller decodes it; ignored for other frames).
  std::string payload(ConnectionId id, std::uint64_t bytes, const caf::node_id& node);

  /// Frames this process wrote to the connection (whole frames, as CAF's middleman writes
  /// them): before the join, the actors that wrote become ones the peer may answer. Returns
  /// whether later writes still matter (false once the peer has joined, or for an outbound
  /// connection): the caller may stop showing them.
  bool wrote(ConnectionId id, const char* bytes, std::size_t n);
  /// The gatekeeper's actor id: a receiver of messages before authentication.
  void expect_gatekeeper(std::uint64_t actor_id);
  /// The gatekeeper verified `node`'s join: its connections lose the pre-join limits.
  void authenticated(const caf::node_id& node);
  /// Calls `close(socket)` for each inbound connection past its authentication deadline at
  /// `now` (once each), under the guard's lock: a connection leaves the guard (closed()) before
  /// its socket is closed, so the socket cannot have been reused meanwhile. The number closed.
  std::size_t expire(Clock::time_point now, const std::function<void(int)>& close);
  /// Remembers the socket of a connection (for expire()).
  void set_socket(ConnectionId id, int fd);

  /// Counts the connection as refused for `reason` (found outside the guard: an unreadable
  /// header); returns the reason.
  std::string refused(ConnectionId id, const std::string& reason);
  /// Counts a connection closed for `reason` without being registered (accepted and closed at
  /// once); returns how many have been so far.
  std::uint64_t closed_unregistered(const std::string& reason);

  GuardCounts counts() const;
  /// The node the connection's handshake named (none yet: the empty id).
  caf::node_id node_of(ConnectionId id) const;
  /// The next read's bound for the connection: the largest payload it may announce now.
  std::uint64_t frame_bound(ConnectionId id) const;

 private:
  struct Connection {
    bool inbound = false;
    std::string address;
    Clock::time_point deadline;
    caf::node_id node;       ///< from its client handshake
    std::uint64_t read = 0;  ///< bytes read so far (headers and payloads)
    bool expecting_payload = false;
    FrameHeader last;
    bool closing = false;
    int fd = -1;
    std::set<std::uint64_t> wrote_from;  ///< actors of this process that wrote to it (pre-join)
  };
  bool is_authenticated(const Connection& c) const;
  std::string refuse(ConnectionId id, const std::string& reason);  // counts it, returns it
  std::size_t unauthenticated_at(const std::string& address) const;

  FrameLimits limits_;
  mutable std::mutex mutex_;
  std::map<ConnectionId, Connection> connections_;
  std::set<caf::node_id> authenticated_;
  std::optional<std::uint64_t> gatekeeper_;
  ConnectionId next_ = 1;
  GuardCounts counts_;
};

/// One connection's reads as CAF's middleman asks for them (a 32-byte header, then the payload
/// it announced, then a header ...), decoded and shown to the guard: the multiplexer hands a
/// read on to the middleman only when read() returns no refusal.
class GuardedReader {
 public:
  GuardedReader(ConnectionGuard& guard, ConnectionGuard::ConnectionId id) : guard_(guard), id_(id) {}
  /// Empty to hand the bytes on; else why the connection is refused (it must then be closed:
  /// the reader's state is undefined after a refusal).
  std::string read(const char* bytes, std::size_t n);
  /// Whether the next read is a payload (else a header).
  bool in_payload() const { return in_payload_; }

 private:
  ConnectionGuard& guard_;
  ConnectionGuard::ConnectionId id_;
  bool in_payload_ = false;
  std::uint8_t last_operation_ = 0;
};

}  // namespace fedsim::actors::remote
