// The listening port's guard (actors/remote/frame_guard.hpp) without sockets: what a peer may
// send before and after its node has joined, the per-address budget, and the join deadline.
#include <catch2/catch.hpp>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/io/basp/header.hpp>
#include <caf/io/basp/message_type.hpp>

#include "actors/remote/frame_guard.hpp"

using namespace fedsim::actors::remote;
using caf::io::basp::message_type;

namespace {

const auto t0 = ConnectionGuard::Clock::time_point{} + std::chrono::hours(1);

FrameHeader header(message_type op, std::uint32_t payload, std::uint64_t dest = 0,
                   std::uint8_t flags = 0) {
  FrameHeader h;
  h.operation = static_cast<std::uint8_t>(op);
  h.payload_len = payload;
  h.dest_actor = dest;
  h.flags = flags;
  return h;
}

/// Two distinct node ids, made by two actor systems with CAF's middleman (as peers' processes
/// are; without it CAF 0.17 gives a system no node id).
struct Nodes {
  static caf::actor_system_config& with_middleman(caf::actor_system_config& c) {
    c.load<caf::io::middleman>();
    return c;
  }
  caf::actor_system_config cfg_a, cfg_b;
  caf::actor_system a{with_middleman(cfg_a)}, b{with_middleman(cfg_b)};
};

/// An inbound connection that has sent its client handshake naming `node`.
ConnectionGuard::ConnectionId handshaken(ConnectionGuard& g, const caf::node_id& node,
                                         const std::string& address = "10.0.0.1") {
  std::string refusal;
  const auto id = g.opened(true, address, t0, &refusal);
  REQUIRE(refusal.empty());
  REQUIRE(g.header(id, header(message_type::client_handshake, 40)).empty());
  const std::string why = g.payload(id, 40, node);
  INFO(why);
  REQUIRE(why.empty());
  return id;
}

}  // namespace

TEST_CASE("before its join a connection may only send small frames of the join's kinds",
          "[remote][security][guard]") {
  Nodes nodes;
  FrameLimits limits;
  ConnectionGuard g(limits);
  g.expect_gatekeeper(7);
  const auto id = handshaken(g, nodes.a.node());

  SECTION("a payload of 64 KiB passes, one byte more is refused (the 4 GiB header too)") {
    CHECK(g.header(id, header(message_type::direct_message, limits.unauthenticated_frame_bytes, 7)).empty());
    CHECK(g.payload(id, limits.unauthenticated_frame_bytes, {}).empty());
    CHECK(g.header(id, header(message_type::direct_message,
                              static_cast<std::uint32_t>(limits.unauthenticated_frame_bytes + 1), 7)) ==
          "frame larger than the bound before the join");
    ConnectionGuard h(limits);
    std::string refusal;
    const auto other = h.opened(true, "10.0.0.2", t0, &refusal);
    CHECK(h.header(other, header(message_type::client_handshake, 0xFFFFFFFFu)) ==
          "frame larger than the bound before the join");
  }
  SECTION("a message to another actor than the gatekeeper, or to another named one, is refused") {
    CHECK(g.header(id, header(message_type::direct_message, 100, 8)) ==
          "message to an actor that did not write to it, before the join");
    CHECK(g.header(id, header(message_type::direct_message, 100,
                              static_cast<std::uint64_t>(caf::atom("ConfigServ")), 0x01)) ==
          "message to a named actor other than CAF's spawn server before the join");
    CHECK(g.header(id, header(message_type::direct_message, 100, 7, 0x01)) ==
          "message to a named actor other than CAF's spawn server before the join");
  }
  SECTION("a message to an actor of this process that wrote to the peer passes") {
    CHECK(g.header(id, header(message_type::direct_message, 100, 42)) ==
          "message to an actor that did not write to it, before the join");
    ConnectionGuard h(limits);
    h.expect_gatekeeper(7);
    const auto other = handshaken(h, nodes.b.node());
    // Two frames as the middleman writes them: a message from actor 42, a heartbeat.
    std::vector<char> out;
    caf::binary_serializer sink{nullptr, out};
    REQUIRE(!sink(caf::io::basp::header{message_type::direct_message, 0, 3, 0, 42, 99}));
    out.insert(out.end(), {'x', 'y', 'z'});
    REQUIRE(!sink(caf::io::basp::header{message_type::heartbeat, 0, 0, 0, 0, 0}));
    CHECK(h.wrote(other, out.data(), out.size()));  // still before the join: keep showing
    CHECK(h.header(other, header(message_type::direct_message, 100, 42)).empty());
    CHECK(h.payload(other, 100, {}).empty());
    CHECK(h.header(other, header(message_type::direct_message, 100, 43)) ==
          "message to an actor that did not write to it, before the join");
  }
  SECTION("CAF's own question to the spawn server passes (every CAF client asks it)") {
    CHECK(g.header(id, header(message_type::direct_message, 100,
                              static_cast<std::uint64_t>(caf::atom("SpawnServ")), 0x01))
              .empty());
  }
  SECTION("a server handshake, a routed message and an unknown type are refused") {
    CHECK(g.header(id, header(message_type::server_handshake, 10)) ==
          "frame of a type a joining agent never sends");
    CHECK(g.header(id, header(message_type::routed_message, 10)) ==
          "frame of a type a joining agent never sends");
    FrameHeader unknown = header(message_type::heartbeat, 0);
    unknown.operation = 7;
    CHECK(g.header(id, unknown) == "unknown frame type");
  }
  SECTION("heartbeats, monitor and down messages pass") {
    CHECK(g.header(id, header(message_type::heartbeat, 0)).empty());
    CHECK(g.header(id, header(message_type::monitor_message, 50)).empty());
    CHECK(g.payload(id, 50, {}).empty());
    CHECK(g.header(id, header(message_type::down_message, 50)).empty());
  }
  SECTION("the bytes before the join are bounded in all: 256 KiB") {
    std::uint64_t sent = 72;  // the handshake's header and payload
    std::string refusal;
    while (refusal.empty()) {
      refusal = g.header(id, header(message_type::direct_message, 60000, 7));
      if (refusal.empty()) refusal = g.payload(id, 60000, {});
      sent += 32 + 60000;
    }
    CHECK(refusal == "too many bytes before the join");
    CHECK(sent > limits.unauthenticated_bytes);
    CHECK(sent - (32 + 60000) <= limits.unauthenticated_bytes);
  }
  SECTION("a payload of another length than its header announced is refused") {
    REQUIRE(g.header(id, header(message_type::direct_message, 100, 7)).empty());
    CHECK(g.payload(id, 99, {}) == "payload of another length than announced");
  }
  CHECK(g.frame_bound(id) == limits.unauthenticated_frame_bytes);
}

TEST_CASE("after its node's join a connection may send frames up to the bound",
          "[remote][security][guard]") {
  Nodes nodes;
  FrameLimits limits;
  limits.max_frame_bytes = 1 << 20;
  ConnectionGuard g(limits);
  g.expect_gatekeeper(7);
  const auto id = handshaken(g, nodes.a.node());
  const auto stranger = handshaken(g, nodes.b.node());
  g.authenticated(nodes.a.node());
  CHECK(g.frame_bound(id) == limits.max_frame_bytes);
  CHECK(g.frame_bound(stranger) == limits.unauthenticated_frame_bytes);
  CHECK(g.header(id, header(message_type::direct_message, 1 << 20, 99)).empty());
  CHECK(g.payload(id, 1 << 20, {}).empty());
  CHECK(g.header(id, header(message_type::direct_message, (1 << 20) + 1, 99)) ==
        "frame larger than the bound");
  CHECK(g.header(stranger, header(message_type::direct_message, 100, 99)) ==
        "message to an actor that did not write to it, before the join");
  CHECK(g.header(id, header(message_type::routed_message, 10)) ==
        "frame of a type a joined agent never sends");
  CHECK_FALSE(g.wrote(id, nullptr, 0));       // joined: its writes no longer matter
  CHECK(g.wrote(stranger, nullptr, 0));       // not joined: they do
  const GuardCounts counts = g.counts();
  CHECK(counts.accepted == 2);
  CHECK(counts.refused.at("frame larger than the bound") == 1);
  CHECK(counts.refused.at("message to an actor that did not write to it, before the join") == 1);
}

TEST_CASE("a handshake naming a node another open connection speaks for is refused",
          "[remote][security][guard]") {
  Nodes nodes;
  ConnectionGuard g;
  const auto first = handshaken(g, nodes.a.node());
  g.authenticated(nodes.a.node());
  std::string refusal;
  const auto replay = g.opened(true, "10.0.0.9", t0, &refusal);
  REQUIRE(g.header(replay, header(message_type::client_handshake, 40)).empty());
  CHECK(g.payload(replay, 40, nodes.a.node()) ==
        "handshake naming a node another connection speaks for");
  // The replaying connection never gets the joined node's bound.
  CHECK(g.frame_bound(replay) == g.limits().unauthenticated_frame_bytes);
  SECTION("once the first connection is gone, the node may connect again") {
    g.closed(first);
    g.closed(replay);
    const auto again = g.opened(true, "10.0.0.1", t0, &refusal);
    REQUIRE(g.header(again, header(message_type::client_handshake, 40)).empty());
    CHECK(g.payload(again, 40, nodes.a.node()).empty());
  }
  SECTION("a handshake naming no node, or a second naming another node, is refused") {
    const auto c = g.opened(true, "10.0.0.3", t0, &refusal);
    REQUIRE(g.header(c, header(message_type::client_handshake, 40)).empty());
    CHECK(g.payload(c, 40, caf::node_id{}) == "handshake naming no node");
    const auto d = handshaken(g, nodes.b.node(), "10.0.0.4");
    REQUIRE(g.header(d, header(message_type::client_handshake, 40)).empty());
    CHECK(g.payload(d, 40, nodes.a.node()) == "second handshake naming another node");
  }
}

TEST_CASE("one address holds a bounded number of connections that have not joined",
          "[remote][security][guard]") {
  Nodes nodes;
  FrameLimits limits;
  limits.unauthenticated_per_address = 3;
  ConnectionGuard g(limits);
  std::vector<ConnectionGuard::ConnectionId> ids;
  std::string refusal;
  for (int k = 0; k < 3; ++k) {
    ids.push_back(g.opened(true, "10.0.0.1", t0, &refusal));
    CHECK(refusal.empty());
  }
  g.opened(true, "10.0.0.1", t0, &refusal);
  CHECK(refusal == "too many connections not yet joined from one address");
  refusal.clear();
  g.opened(true, "10.0.0.2", t0, &refusal);  // another address has its own budget
  CHECK(refusal.empty());
  // A connection whose node joined no longer counts; one that closed neither.
  REQUIRE(g.header(ids[0], header(message_type::client_handshake, 40)).empty());
  REQUIRE(g.payload(ids[0], 40, nodes.a.node()).empty());
  g.authenticated(nodes.a.node());
  g.opened(true, "10.0.0.1", t0, &refusal);
  CHECK(refusal.empty());
  g.closed(ids[1]);
  g.opened(true, "10.0.0.1", t0, &refusal);
  CHECK(refusal.empty());
  g.opened(true, "10.0.0.1", t0, &refusal);
  CHECK(refusal == "too many connections not yet joined from one address");
  // Outbound connections (this process joining a server) are not budgeted.
  refusal.clear();
  for (int k = 0; k < 10; ++k) g.opened(false, "10.0.0.1", t0, &refusal);
  CHECK(refusal.empty());
}

TEST_CASE("connections that have not joined by the deadline are closed, once each",
          "[remote][security][guard]") {
  Nodes nodes;
  FrameLimits limits;
  limits.auth_timeout = std::chrono::milliseconds(500);
  ConnectionGuard g(limits);
  std::string refusal;
  const auto slow = g.opened(true, "10.0.0.1", t0, &refusal);
  g.set_socket(slow, 11);
  const auto joined = handshaken(g, nodes.a.node());
  g.set_socket(joined, 12);
  g.authenticated(nodes.a.node());
  const auto late = g.opened(true, "10.0.0.1", t0 + std::chrono::milliseconds(400), &refusal);
  g.set_socket(late, 13);
  const auto outbound = g.opened(false, "10.0.0.1", t0, &refusal);
  g.set_socket(outbound, 14);
  std::vector<int> closed;
  auto close = [&](int fd) { closed.push_back(fd); };
  CHECK(g.expire(t0 + std::chrono::milliseconds(499), close) == 0);
  CHECK(g.expire(t0 + std::chrono::milliseconds(500), close) == 1);
  CHECK(closed == std::vector<int>{11});
  CHECK(g.expire(t0 + std::chrono::milliseconds(950), close) == 1);
  CHECK(closed == std::vector<int>{11, 13});
  CHECK(g.expire(t0 + std::chrono::hours(1), close) == 0);  // reported once; the joined stays
  CHECK(g.counts().refused.at("not joined within the time allowed") == 2);
  g.closed(slow);
  CHECK(g.expire(t0 + std::chrono::hours(2), close) == 0);
}

TEST_CASE("an outbound connection has only the frame bound", "[remote][security][guard]") {
  FrameLimits limits;
  limits.max_frame_bytes = 1000;
  ConnectionGuard g(limits);
  std::string refusal;
  const auto id = g.opened(false, "127.0.0.1", t0, &refusal);
  CHECK(g.header(id, header(message_type::server_handshake, 1000)).empty());
  CHECK(g.payload(id, 1000, {}).empty());
  CHECK(g.header(id, header(message_type::direct_message, 1001, 5)) == "frame larger than the bound");
  CHECK(g.frame_bound(id) == 1000);
  CHECK_FALSE(g.wrote(id, nullptr, 0));  // outbound: what this process writes is not watched
}

TEST_CASE("the reader decodes CAF's own frames and refuses what it cannot read",
          "[remote][security][guard]") {
  Nodes nodes;
  ConnectionGuard g;
  g.expect_gatekeeper(7);
  std::string refusal;
  const auto id = g.opened(true, "10.0.0.1", t0, &refusal);
  GuardedReader reader(g, id);
  auto serialized = [](auto&&... xs) {
    std::vector<char> buf;
    caf::binary_serializer sink{nullptr, buf};
    REQUIRE(!sink(xs...));
    return buf;
  };
  const std::vector<char> node = serialized(nodes.a.node());
  caf::io::basp::header hs{message_type::client_handshake, 0,
                           static_cast<std::uint32_t>(node.size()), 0, 0, 0};
  const std::vector<char> hs_bytes = serialized(hs);
  REQUIRE(hs_bytes.size() == 32);
  CHECK(reader.read(hs_bytes.data(), hs_bytes.size()).empty());
  CHECK(reader.in_payload());
  CHECK(reader.read(node.data(), node.size()).empty());
  CHECK_FALSE(reader.in_payload());
  SECTION("the node named is the connection's: its join lifts the limits") {
    g.authenticated(nodes.a.node());
    CHECK(g.frame_bound(id) == g.limits().max_frame_bytes);
  }
  SECTION("a header of 4 GiB for another actor is refused before its payload") {
    caf::io::basp::header big{message_type::direct_message, 0, 0xFFFFFFFFu, 0, 0, 7};
    const auto bytes = serialized(big);
    CHECK(reader.read(bytes.data(), bytes.size()) == "frame larger than the bound before the join");
  }
  SECTION("a read that is not a whole header is refused") {
    CHECK(reader.read(hs_bytes.data(), 31) == "unreadable frame header");
    CHECK(g.counts().refused.at("unreadable frame header") == 1);
  }
  SECTION("a handshake whose payload is no node id names no node") {
    ConnectionGuard h;
    const auto other = h.opened(true, "10.0.0.1", t0, &refusal);
    GuardedReader r(h, other);
    caf::io::basp::header junk{message_type::client_handshake, 0, 3, 0, 0, 0};
    const auto bytes = serialized(junk);
    REQUIRE(r.read(bytes.data(), bytes.size()).empty());
    CHECK(r.read("abc", 3) == "handshake naming no node");
  }
}
