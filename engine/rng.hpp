#pragma once
/// Keyed random streams: a stream is derived from (run seed, purpose, ids), never from a
/// shared global generator, so what an agent draws never depends on thread scheduling or on
/// how many draws another agent made.
#include <cstdint>
#include <utility>
#include <vector>
#include <limits>
#include <string_view>

namespace fedsim {

/// 64-bit FNV-1a, usable at compile time, to turn a purpose name into a key.
constexpr std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 1099511628211ull;
  }
  return h;
}

/// SplitMix64 finaliser: a strong 64-bit mixing function.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A copyable random stream (xoshiro256**) seeded by hashing its key
/// (seed, purpose, id0, id1). Satisfies UniformRandomBitGenerator, but the distributions
/// below are used instead of <random>'s, whose outputs differ between standard libraries.
class RandomStream {
 public:
  using result_type = std::uint64_t;

  RandomStream(std::uint64_t seed, std::string_view purpose, std::uint64_t id0 = 0,
               std::uint64_t id1 = 0);

  /// A child stream keyed by this stream's key plus (purpose, id): independent of this one.
  RandomStream derive(std::string_view purpose, std::uint64_t id = 0) const;

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return next_u64(); }

  std::uint64_t next_u64();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform in [a, b).
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  /// Uniform integer in [0, n), without modulo bias. n > 0.
  std::uint64_t uniform_index(std::uint64_t n);
  /// Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double normal();
  double normal(double mean, double sd) { return mean + sd * normal(); }
  /// True with probability p.
  bool bernoulli(double p) { return uniform() < p; }
  /// Exponential with the given rate (> 0).
  double exponential(double rate);

  std::uint64_t key() const { return key_; }

  /// Everything that decides the stream's future draws: a checkpoint saves it, and a stream
  /// restored from it continues exactly where the saved one was.
  struct State {
    std::uint64_t key = 0;
    std::uint64_t s[4] = {0, 0, 0, 0};
    double spare_normal = 0.0;
    bool has_spare = false;
  };
  State state() const;
  static RandomStream from_state(const State& state);

 private:
  explicit RandomStream(std::uint64_t key);
  std::uint64_t key_;
  std::uint64_t s_[4];
  double spare_normal_ = 0.0;
  bool has_spare_ = false;
};

/// Fisher-Yates shuffle of v with the stream's unbiased indices (last position first).
template <class T>
void shuffle(std::vector<T>& v, RandomStream& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.uniform_index(i)]);
}

}  // namespace fedsim
