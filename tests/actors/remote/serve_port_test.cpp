// The listening port of a served run against peers that never join (issue 32): raw TCP
// connections speaking BASP's framing, as any process that can reach the port could. What they
// may do is actors/remote/frame_guard.hpp's; here the real server closes them before reading
// what they announce, and the run they attacked writes what an undisturbed run writes.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>

#include <caf/binary_serializer.hpp>
#include <caf/io/basp/header.hpp>

#include "tests/actors/remote/remote_test_support.hpp"
#include "tests/test_files.hpp"

using namespace fedsim;
using namespace fedsim::test::remote;
namespace basp = caf::io::basp;

namespace {

/// A raw connection to 127.0.0.1:port (closed with the object).
struct Raw {
  int fd = -1;
  explicit Raw(std::uint16_t port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~Raw() {
    if (fd >= 0) ::close(fd);
  }
  Raw(const Raw&) = delete;
  Raw& operator=(const Raw&) = delete;
  bool send(const std::vector<char>& bytes) const {
    return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  /// Whether the server closed the connection within `timeout` (what it sent is read and
  /// dropped: its own handshake).
  bool closed_within(std::chrono::milliseconds timeout) const {
    const auto until = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return true;  // end of stream, or reset
    }
  }
};

std::vector<char> frame(basp::message_type op, std::uint32_t payload_len,
                        std::uint64_t dest_actor = 0, const std::vector<char>& payload = {}) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  basp::header hdr{op, 0, payload_len, 0, 0, dest_actor};
  REQUIRE(!sink(hdr));
  REQUIRE(buf.size() == basp::header_size);
  buf.insert(buf.end(), payload.begin(), payload.end());
  return buf;
}

/// A client handshake naming `node` (what CAF's client sends first).
std::vector<char> client_handshake(const caf::node_id& node) {
  std::vector<char> payload;
  caf::binary_serializer sink{nullptr, payload};
  REQUIRE(!sink(node));
  return frame(basp::message_type::client_handshake, static_cast<std::uint32_t>(payload.size()), 0,
               payload);
}

/// This process's resident memory in bytes (Linux).
std::uint64_t resident_bytes() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

/// One hostile connection of the flood, chosen by `rng`: a header announcing the largest
/// payload (of a valid type, or of a valid type after a valid handshake), 32 random bytes, or
/// random bytes after a valid handshake.
void hostile_connection(std::uint16_t port, std::mt19937_64& rng, const caf::node_id& fresh) {
  Raw c(port);
  if (c.fd < 0) return;
  std::vector<char> bytes;
  switch (rng() % 4) {
    case 0:
      bytes = frame(basp::message_type::client_handshake, 0xFFFFFFFFu);
      break;
    case 1:
      bytes = client_handshake(fresh);
      for (char b : frame(basp::message_type::direct_message, 0xFFFFFFFFu, 1)) bytes.push_back(b);
      break;
    case 2:
      for (int k = 0; k < 32; ++k) bytes.push_back(static_cast<char>(rng()));
      break;
    default:
      bytes = frame(basp::message_type::direct_message, static_cast<std::uint32_t>(rng() >> 32));
      break;
  }
  c.send(bytes);
  c.closed_within(std::chrono::milliseconds(2000));
}

std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().filename().string()] = test::slurp(e.path());
  return out;
}

/// tiny.toml with 3 agents served, joined by one honest process once `before` has run; the
/// files it wrote.
std::map<std::string, std::string> served(const std::string& name,
                                          const std::function<void(std::uint16_t)>& before) {
  const scenario::ScenarioConfig config = tiny({"world.agents=3"});
  const fs::path dir = test::fresh_dir("serve-port-" + name);
  actors::remote::ServeOptions serve;
  serve.join_timeout = 60;
  ServedRun run(config, dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  if (before) before(port);
  HonestHost honest(port, {0, 1, 2}, dir / "agents");
  REQUIRE(run.wait(60s));
  honest.join();
  CHECK(honest.error().empty());
  INFO(run.error());
  REQUIRE(run.result());
  CHECK(run.result()->remote->connections >= 1);
  return files_of(dir / "run");
}

}  // namespace

TEST_CASE("a header announcing 4 GiB before any join closes the connection, nothing read",
          "[remote][security][serve-port]") {
  Node stranger;
  served("max-header", [&](std::uint16_t port) {
    const std::uint64_t before = resident_bytes();
    // Eight connections held open announcing 512 MiB each: without the guard the middleman
    // allocates (and zero-fills) 4 GiB here.
    std::vector<std::unique_ptr<Raw>> held;
    for (int k = 0; k < 8; ++k) {
      held.push_back(std::make_unique<Raw>(port));
      REQUIRE(held.back()->fd >= 0);
      REQUIRE(held.back()->send(frame(basp::message_type::client_handshake, 512u << 20)));
    }
    for (const auto& c : held) CHECK(c->closed_within(std::chrono::milliseconds(5000)));
    Raw largest(port);
    REQUIRE(largest.send(frame(basp::message_type::client_handshake, 0xFFFFFFFFu)));
    CHECK(largest.closed_within(std::chrono::milliseconds(5000)));
    // After a valid handshake, a message announcing 4 GiB.
    Raw after(port);
    std::vector<char> bytes = client_handshake(stranger.sys.node());
    for (char b : frame(basp::message_type::direct_message, 0xFFFFFFFFu, 1)) bytes.push_back(b);
    REQUIRE(after.send(bytes));
    CHECK(after.closed_within(std::chrono::milliseconds(5000)));
    CHECK(resident_bytes() < before + (64u << 20));
  });
}

TEST_CASE("a connection that does not join within the authentication timeout is closed",
          "[remote][security][serve-port]") {
  const scenario::ScenarioConfig config = tiny({"world.agents=2"});
  const fs::path dir = test::fresh_dir("serve-port-timeout");
  actors::remote::ServeOptions serve;
  serve.join_timeout = 4;  // nobody joins: the server gives up after it
  serve.auth_timeout = 0.5;
  ServedRun run(config, dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  Raw silent(port);
  REQUIRE(silent.fd >= 0);
  CHECK_FALSE(silent.closed_within(std::chrono::milliseconds(200)));  // not at once
  CHECK(silent.closed_within(std::chrono::milliseconds(3000)));
  REQUIRE(run.wait(30s));
  CHECK_THAT(run.error(), Catch::Contains("no agent joined"));
}

TEST_CASE("before the join, a handshake replaying a connected node or a message to another actor "
          "closes the connection",
          "[remote][security][serve-port]") {
  const scenario::ScenarioConfig config = tiny({"world.agents=2"});
  const fs::path dir = test::fresh_dir("serve-port-replay");
  actors::remote::ServeOptions serve;
  serve.join_timeout = 4;
  serve.auth_timeout = 30;  // what closes them here is the guard's verdict, not the deadline
  ServedRun run(config, dir / "run", serve);
  const std::uint16_t port = run.port();
  REQUIRE(port != 0);
  Node honest, fresh;
  const caf::actor gk = honest.connect(port);  // a live connection speaking for its node
  REQUIRE(gk);
  {
    Raw replay(port);
    REQUIRE(replay.send(client_handshake(honest.sys.node())));
    CHECK(replay.closed_within(std::chrono::milliseconds(3000)));
  }
  {
    Raw other(port);
    REQUIRE(other.send(client_handshake(fresh.sys.node())));
    CHECK_FALSE(other.closed_within(std::chrono::milliseconds(500)));  // a new node may try
    REQUIRE(other.send(frame(basp::message_type::direct_message, 4, 123456, {'a', 'b', 'c', 'd'})));
    CHECK(other.closed_within(std::chrono::milliseconds(3000)));
  }
  REQUIRE(run.wait(30s));  // nobody joined
}

TEST_CASE("a flood of 1,000 hostile connections leaves memory bounded and the run's files as "
          "an undisturbed run's",
          "[remote][security][serve-port]") {
  const auto undisturbed = served("quiet", {});
  Node stranger;
  std::uint64_t growth = 0;
  const auto attacked = served("flood", [&](std::uint16_t port) {
    const std::uint64_t before = resident_bytes();
    std::mt19937_64 rng(20261127);
    // Four connections at a time until 1,000 have been made, before the agents join.
    for (int done = 0; done < 1000; done += 4) {
      std::vector<std::thread> wave;
      for (int k = 0; k < 4; ++k) {
        const std::uint64_t seed = rng();
        wave.emplace_back([&, seed] {
          std::mt19937_64 r(seed);
          hostile_connection(port, r, stranger.sys.node());
        });
      }
      for (auto& t : wave) t.join();
    }
    growth = resident_bytes() > before ? resident_bytes() - before : 0;
  });
  CHECK(growth < (64u << 20));
  REQUIRE(attacked.size() == undisturbed.size());
  for (const auto& [file, text] : undisturbed) {
    INFO(file);
    CHECK(attacked.at(file) == text);
  }
}
