#include "engine/rng.hpp"

#include <cmath>

namespace fedsim {
namespace {
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::string_view purpose, std::uint64_t id0,
                           std::uint64_t id1)
    : RandomStream(mix64(mix64(mix64(mix64(seed) ^ fnv1a(purpose)) ^ id0) ^ id1)) {}

RandomStream::RandomStream(std::uint64_t key) : key_(key) {
  std::uint64_t z = key;
  for (auto& s : s_) {
    z += 0x9e3779b97f4a7c15ull;
    s = mix64(z);
  }
}

RandomStream::State RandomStream::state() const {
  State out;
  out.key = key_;
  for (int k = 0; k < 4; ++k) out.s[k] = s_[k];
  out.spare_normal = spare_normal_;
  out.has_spare = has_spare_;
  return out;
}

RandomStream RandomStream::from_state(const State& state) {
  RandomStream r(state.key);
  for (int k = 0; k < 4; ++k) r.s_[k] = state.s[k];
  r.spare_normal_ = state.spare_normal;
  r.has_spare_ = state.has_spare;
  return r;
}

RandomStream RandomStream::derive(std::string_view purpose, std::uint64_t id) const {
  return RandomStream(mix64(mix64(key_ ^ fnv1a(purpose)) ^ id));
}

std::uint64_t RandomStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::uint64_t RandomStream::uniform_index(std::uint64_t n) {
  // Rejection on the top of the range removes modulo bias.
  const std::uint64_t limit = max() - max() % n;
  std::uint64_t r;
  do {
    r = next_u64();
  } while (r >= limit);
  return r % n;
}

double RandomStream::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  double u1;
  do {
    u1 = uniform();
  } while (u1 <= 0.0);
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * M_PI * u2;
  spare_normal_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

double RandomStream::exponential(double rate) {
  double u;
  do {
    u = uniform();
  } while (u <= 0.0);
  return -std::log(u) / rate;
}

}  // namespace fedsim
