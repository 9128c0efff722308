// libFuzzer target: what an unauthenticated peer sends to `fedsim serve`'s port, as the port's
// guard reads it (actors/remote/frame_guard.hpp: GuardedReader, ConnectionGuard). The input is
// one connection's byte stream, cut into reads the way CAF's middleman asks for them (a 32-byte
// header, then the payload it announced), for a gatekeeper of id 7, with and without the
// peer's node having joined midway. Promises under test: never a crash; a header the guard
// lets through announces no more than the connection's bound (so the middleman allocates at
// most that); a payload is handed on only whole; nothing is handed on after a refusal; before
// the join, no more than the pre-join byte budget is handed on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <caf/binary_deserializer.hpp>
#include <caf/io/basp/header.hpp>

#include "actors/remote/frame_guard.hpp"

namespace {

using fedsim::actors::remote::ConnectionGuard;
using fedsim::actors::remote::FrameLimits;
using fedsim::actors::remote::GuardedReader;

void one_stream(const std::uint8_t* data, std::size_t size, bool join_midway) {
  FrameLimits limits;
  ConnectionGuard guard(limits);
  guard.expect_gatekeeper(7);
  std::string refusal;
  const auto id = guard.opened(true, "127.0.0.1", ConnectionGuard::Clock::now(), &refusal);
  if (!refusal.empty()) std::abort();  // the first connection of an address is always let in
  GuardedReader reader(guard, id);
  std::size_t at = 0;
  std::uint64_t handed_on = 0;
  std::uint32_t announced = 0;
  int frames = 0;
  while (at < size) {
    const bool payload = reader.in_payload();
    const std::size_t want = payload ? announced : 32;
    if (size - at < want) break;  // the peer stopped mid-read: nothing more is handed on
    const std::uint64_t bound = guard.frame_bound(id);
    const std::string why = reader.read(reinterpret_cast<const char*>(data + at), want);
    if (!why.empty()) return;  // the connection is closed
    handed_on += want;
    if (!payload) {
      caf::io::basp::header hdr;
      caf::binary_deserializer source{nullptr, reinterpret_cast<const char*>(data + at), want};
      if (source(hdr)) std::abort();  // the guard let through a header it could not read
      announced = hdr.payload_len;
      if (announced > bound) std::abort();  // the middleman would allocate beyond the bound
    }
    at += want;
    if (join_midway && ++frames == 2) {
      // The node the handshake named (if it named one) has joined: its limits are lifted.
      guard.authenticated(guard.node_of(id));
    }
    if (!join_midway && handed_on > limits.unauthenticated_bytes) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  one_stream(data, size, false);
  one_stream(data, size, true);
  return 0;
}
