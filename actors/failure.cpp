#include "actors/failure.hpp"

#include <sys/mman.h>

#include <atomic>

namespace fedsim::actors {

namespace {

/// The reserve: taken once, given back at the first out-of-memory. Written with atomics only,
/// as bad_alloc may be caught on any thread. Mapped and unmapped directly, not through the
/// allocator: jemalloc keeps what is freed to it (opt.retain) for the arena that freed it, and
/// an address-space limit is what refuses the failure path, on any thread.
std::atomic<void*> reserve{nullptr};
std::atomic<bool> reserve_taken{false};

}  // namespace

void keep_memory_reserve() {
  if (reserve_taken.exchange(true)) return;
  void* block = ::mmap(nullptr, memory_reserve_bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  reserve.store(block == MAP_FAILED ? nullptr : block);
}

void release_memory_reserve() noexcept {
  if (void* block = reserve.exchange(nullptr)) ::munmap(block, memory_reserve_bytes);
}

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
