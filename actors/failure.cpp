#include "actors/failure.hpp"

#include <atomic>
#include <cstdlib>

namespace fedsim::actors {

namespace {

/// The reserve: taken once, given back at the first out-of-memory. Written with atomics only,
/// as bad_alloc may be caught on any thread.
std::atomic<void*> reserve{nullptr};
std::atomic<bool> reserve_taken{false};

}  // namespace

void keep_memory_reserve() {
  if (reserve_taken.exchange(true)) return;
  // Touched, so that it is memory the allocator handed out, not only address space promised.
  void* block = std::malloc(memory_reserve_bytes);
  if (block) static_cast<volatile char*>(block)[0] = 1;
  reserve.store(block);
}

void release_memory_reserve() noexcept { std::free(reserve.exchange(nullptr)); }

caf::error member_failure(const std::string& who, const std::string& what) {
  return caf::make_error(caf::sec::runtime_error, who + ": " + what);
}

bool is_member_failure(const caf::error& reason) {
  return reason.category() == caf::atom("system") &&
         reason.code() == static_cast<std::uint8_t>(caf::sec::runtime_error) &&
         reason.context().match_elements<std::string>();
}

std::string describe_failure(const caf::error& reason) {
  if (is_member_failure(reason)) return reason.context().get_as<std::string>(0);
  return caf::to_string(reason);
}

}  // namespace fedsim::actors
