#pragma once
/// Authentication of a remote agent process joining a federation (fedsim serve / fedsim
/// agents): a challenge-response keyed by a shared secret. The server sends a fresh random
/// nonce; the joining process answers HMAC-SHA256(secret, domain tag || nonce || its agent
/// ids); the server checks it in constant time and accepts each nonce once (a replayed
/// response finds its nonce spent). The secret never crosses the network. No actors here.
#include <cstdint>
#include <string>
#include <vector>

namespace fedsim::actors::remote {

constexpr std::size_t nonce_bytes = 32;
constexpr std::size_t mac_bytes = 32;
/// A secret shorter than this is refused (a guessable secret makes the HMAC worthless).
constexpr std::size_t min_secret_bytes = 16;

/// Reads a secret file: its bytes, without one trailing newline. Throws std::invalid_argument
/// naming the file when it cannot be read or is shorter than min_secret_bytes.
std::string read_secret_file(const std::string& path);

/// A fresh nonce from OpenSSL's CSPRNG. Throws std::runtime_error if it has no entropy.
std::vector<std::uint8_t> make_nonce();

/// HMAC-SHA256(secret, "fedsim-join-v1" || nonce || ids as 4-byte little-endian).
std::vector<std::uint8_t> join_mac(const std::string& secret,
                                   const std::vector<std::uint8_t>& nonce,
                                   const std::vector<std::uint32_t>& ids);

/// Constant-time check of a joining process's answer.
bool join_mac_valid(const std::string& secret, const std::vector<std::uint8_t>& nonce,
                    const std::vector<std::uint32_t>& ids, const std::vector<std::uint8_t>& mac);

/// Parses an id list "0-9,12,15-17" (inclusive ranges) into sorted unique ids. Throws
/// std::invalid_argument with a message naming the bad part.
std::vector<std::uint32_t> parse_id_list(const std::string& text);

/// "0-9,12,15-17": the inverse of parse_id_list, for messages.
std::string format_id_list(const std::vector<std::uint32_t>& ids);

}  // namespace fedsim::actors::remote
