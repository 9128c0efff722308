#include "actors/remote/frame_guard.hpp"

#include <caf/atom.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/io/basp/header.hpp>
#include <caf/io/basp/message_type.hpp>

namespace fedsim::actors::remote {
namespace {

using caf::io::basp::message_type;

constexpr std::uint64_t basp_header_bytes = 32;
constexpr std::uint8_t named_receiver_flag = 0x01;  // caf::io::basp::header::named_receiver_flag
/// Actors of this process remembered as having written to one peer before its join.
constexpr std::size_t max_writers = 64;
constexpr std::uint64_t spawn_server_name = static_cast<std::uint64_t>(caf::atom("SpawnServ"));

bool known_operation(std::uint8_t op) {
  return op <= static_cast<std::uint8_t>(message_type::heartbeat);
}

}  // namespace

ConnectionGuard::ConnectionGuard(FrameLimits limits) : limits_(limits) {}

ConnectionGuard::ConnectionId ConnectionGuard::opened(bool inbound, const std::string& address,
                                                      Clock::time_point now, std::string* refusal) {
  std::lock_guard<std::mutex> lock(mutex_);
  const ConnectionId id = next_++;
  Connection c;
  c.inbound = inbound;
  c.address = address;
  c.deadline = now + limits_.auth_timeout;
  if (inbound) ++counts_.accepted;
  const bool over_budget =
      inbound && unauthenticated_at(address) >= limits_.unauthenticated_per_address;
  connections_.emplace(id, std::move(c));
  if (over_budget && refusal != nullptr)
    *refusal = refuse(id, "too many connections not yet joined from one address");
  return id;
}

void ConnectionGuard::closed(ConnectionId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  connections_.erase(id);
}

void ConnectionGuard::set_socket(ConnectionId id, int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = connections_.find(id); it != connections_.end()) it->second.fd = fd;
}

std::string ConnectionGuard::header(ConnectionId id, const FrameHeader& h) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return "unknown connection";
  Connection& c = it->second;
  c.read += basp_header_bytes;
  c.last = h;
  c.expecting_payload = h.payload_len > 0;
  if (!known_operation(h.operation)) return refuse(id, "unknown frame type");
  if (!c.inbound) {
    if (h.payload_len > limits_.max_frame_bytes) return refuse(id, "frame larger than the bound");
    return {};
  }
  if (is_authenticated(c)) {
    if (h.payload_len > limits_.max_frame_bytes) return refuse(id, "frame larger than the bound");
    if (h.operation == static_cast<std::uint8_t>(message_type::server_handshake) ||
        h.operation == static_cast<std::uint8_t>(message_type::routed_message))
      return refuse(id, "frame of a type a joined agent never sends");
    return {};
  }
  if (h.payload_len > limits_.unauthenticated_frame_bytes)
    return refuse(id, "frame larger than the bound before the join");
  if (c.read + h.payload_len > limits_.unauthenticated_bytes)
    return refuse(id, "too many bytes before the join");
  switch (static_cast<message_type>(h.operation)) {
    case message_type::client_handshake:
    case message_type::monitor_message:
    case message_type::down_message:
    case message_type::heartbeat:
      return {};
    case message_type::direct_message:
      if ((h.flags & named_receiver_flag) != 0) {
        // CAF's client asks the node it learnt of for its spawn server's name (sys, get,
        // "info"), answered by CAF itself; fedsim registers no actor type that server could
        // spawn. Any other named receiver (ConfigServ keeps what a peer puts in it) is refused.
        if (h.dest_actor != spawn_server_name)
          return refuse(id, "message to a named actor other than CAF's spawn server before the join");
        return {};
      }
      // The gatekeeper, or an actor of this process that wrote to the peer on this connection
      // (the gatekeeper's answers; CAF's own spawn-server query on connecting).
      if ((gatekeeper_ && h.dest_actor == *gatekeeper_) || c.wrote_from.count(h.dest_actor) > 0)
        return {};
      return refuse(id, "message to an actor that did not write to it, before the join");
      return {};
    case message_type::server_handshake:
    case message_type::routed_message:
      return refuse(id, "frame of a type a joining agent never sends");
  }
  return refuse(id, "unknown frame type");  // not reached: known_operation() above
}

std::string ConnectionGuard::payload(ConnectionId id, std::uint64_t bytes, const caf::node_id& node) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return "unknown connection";
  Connection& c = it->second;
  c.read += bytes;
  c.expecting_payload = false;
  if (bytes != c.last.payload_len) return refuse(id, "payload of another length than announced");
  if (!c.inbound || c.last.operation != static_cast<std::uint8_t>(message_type::client_handshake))
    return {};
  if (node == caf::node_id{}) return refuse(id, "handshake naming no node");
  if (c.node != caf::node_id{} && c.node != node)
    return refuse(id, "second handshake naming another node");
  for (const auto& [other, o] : connections_)
    if (other != id && o.node == node)
      return refuse(id, "handshake naming a node another connection speaks for");
  c.node = node;
  return {};
}

bool ConnectionGuard::wrote(ConnectionId id, const char* bytes, std::size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = connections_.find(id);
  if (it == connections_.end() || !it->second.inbound || is_authenticated(it->second)) return false;
  Connection& c = it->second;
  std::size_t at = 0;
  while (n - at >= basp_header_bytes) {
    caf::io::basp::header hdr;
    caf::binary_deserializer source{nullptr, bytes + at, basp_header_bytes};
    if (source(hdr)) return true;  // not a frame of this process's: nothing learnt
    if (hdr.operation == message_type::direct_message && c.wrote_from.size() < max_writers)
      c.wrote_from.insert(hdr.source_actor);
    at += basp_header_bytes + hdr.payload_len;
    if (at > n) return true;
  }
  return true;
}

void ConnectionGuard::expect_gatekeeper(std::uint64_t actor_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  gatekeeper_ = actor_id;
}

void ConnectionGuard::authenticated(const caf::node_id& node) {
  std::lock_guard<std::mutex> lock(mutex_);
  authenticated_.insert(node);
}

std::size_t ConnectionGuard::expire(Clock::time_point now, const std::function<void(int)>& close) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t n = 0;
  for (auto& [id, c] : connections_) {
    if (!c.inbound || c.closing || is_authenticated(c) || now < c.deadline) continue;
    c.closing = true;
    ++counts_.refused["not joined within the time allowed"];
    ++n;
    if (c.fd >= 0) close(c.fd);
  }
  return n;
}

std::string ConnectionGuard::refused(ConnectionId id, const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  return refuse(id, reason);
}

std::uint64_t ConnectionGuard::closed_unregistered(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.accepted;
  return ++counts_.refused[reason];
}

GuardCounts ConnectionGuard::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

caf::node_id ConnectionGuard::node_of(ConnectionId id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = connections_.find(id);
  return it == connections_.end() ? caf::node_id{} : it->second.node;
}

std::uint64_t ConnectionGuard::frame_bound(ConnectionId id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return 0;
  const Connection& c = it->second;
  if (!c.inbound || is_authenticated(c)) return limits_.max_frame_bytes;
  return limits_.unauthenticated_frame_bytes;
}

bool ConnectionGuard::is_authenticated(const Connection& c) const {
  return c.node != caf::node_id{} && authenticated_.count(c.node) > 0;
}

std::string ConnectionGuard::refuse(ConnectionId id, const std::string& reason) {
  ++counts_.refused[reason];
  if (auto it = connections_.find(id); it != connections_.end()) it->second.closing = true;
  return reason;
}

std::size_t ConnectionGuard::unauthenticated_at(const std::string& address) const {
  std::size_t n = 0;
  for (const auto& [id, c] : connections_)
    if (c.inbound && c.address == address && !is_authenticated(c) && !c.closing) ++n;
  return n;
}

std::string GuardedReader::read(const char* bytes, std::size_t n) {
  if (in_payload_) {
    in_payload_ = false;
    caf::node_id node;
    if (last_operation_ == static_cast<std::uint8_t>(message_type::client_handshake)) {
      caf::binary_deserializer source{nullptr, bytes, n};
      if (source(node)) node = caf::node_id{};
    }
    return guard_.payload(id_, n, node);
  }
  caf::io::basp::header hdr;
  caf::binary_deserializer source{nullptr, bytes, n};
  if (n != basp_header_bytes || source(hdr)) return guard_.refused(id_, "unreadable frame header");
  FrameHeader h;
  h.operation = static_cast<std::uint8_t>(hdr.operation);
  h.flags = hdr.flags;
  h.payload_len = hdr.payload_len;
  h.operation_data = hdr.operation_data;
  h.dest_actor = hdr.dest_actor;
  last_operation_ = h.operation;
  std::string refusal = guard_.header(id_, h);
  in_payload_ = refusal.empty() && h.payload_len > 0;
  return refusal;
}

}  // namespace fedsim::actors::remote
