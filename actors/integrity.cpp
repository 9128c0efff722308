#include "actors/integrity.hpp"

#include <cstring>

#include "engine/rng.hpp"

namespace fedsim::actors {
namespace {

/// Folds one 64-bit word into the running digest.
std::uint64_t fold(std::uint64_t h, std::uint64_t word) { return mix64(h ^ word); }

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

std::uint64_t content_digest(const report& r) {
  std::uint64_t h = fold(fnv1a("report"), static_cast<std::uint32_t>(r.round));
  h = fold(h, r.agent);
  h = fold(h, r.omega.size());
  for (double v : r.omega) h = fold(h, bits(v));
  return h;
}

std::uint64_t content_digest(const phase_report& r) {
  std::uint64_t h = fold(fnv1a("phase_report"), static_cast<std::uint32_t>(r.client));
  h = fold(h, static_cast<std::uint64_t>(r.phase));
  h = fold(h, r.means.size());
  for (double v : r.means) h = fold(h, bits(v));
  h = fold(h, r.pulls.size());
  for (std::int64_t p : r.pulls) h = fold(h, static_cast<std::uint64_t>(p));
  return h;
}

}  // namespace fedsim::actors
