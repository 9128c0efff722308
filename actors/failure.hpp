#pragma once
/// Failures are never silent. An exception escaping a handler of a federation actor ends that
/// actor with an error naming it (role and id: "agent 3: <what>"); the network, which monitors
/// every member of the run, ends the run with that error instead of going on without it, and
/// run_federation throws RunFailure, so no summary is written as if the run were complete.
///
/// Out of memory stays loud: a std::bad_alloc escaping a handler ends the member with an error
/// made when the handler was installed (nothing is allocated to make it), and frees the
/// process's memory reserve (release_memory_reserve), so that what follows (the down message,
/// the network's and the driver's failure path, the one line on stderr) has room.
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include <caf/all.hpp>

namespace fedsim::actors {

/// A federation run that ended because one of its actors failed; what() names the actor.
struct RunFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The exit reason of a member that failed: its name and what went wrong.
caf::error member_failure(const std::string& who, const std::string& what);

/// The text of a member's exit reason for a user: "agent 3: ..." for member_failure, CAF's
/// rendering of anything else.
std::string describe_failure(const caf::error& reason);

/// Whether `reason` carries its own text (member_failure, or any runtime_error with a message).
bool is_member_failure(const caf::error& reason);

/// The address space the process keeps aside for its failure path after an out-of-memory
/// (mapped by the first fail_loudly, unmapped by release_memory_reserve).
inline constexpr std::size_t memory_reserve_bytes = std::size_t{32} << 20;

/// Gives the reserve back to the system (once; later calls do nothing). Never allocates,
/// never throws: safe inside a catch of std::bad_alloc.
void release_memory_reserve() noexcept;

/// Makes sure the reserve is taken (the first fail_loudly does it).
void keep_memory_reserve();

/// Makes an exception escaping one of self's handlers end it with member_failure(who, ...);
/// std::bad_alloc ends it with member_failure(who, "out of memory ..."), made beforehand.
template <class Self>
void fail_loudly(Self* self, std::string who) {
  keep_memory_reserve();
  // Moved out when used (a copy of a caf::error allocates); an actor fails once.
  auto oom = std::make_shared<caf::error>(
      member_failure(who, "out of memory (std::bad_alloc in a handler)"));
  self->set_exception_handler(
      [who = std::move(who), oom = std::move(oom)](std::exception_ptr& e) -> caf::error {
        try {  // out of memory, whether it escaped the handler or comes while naming what did
          try {
            std::rethrow_exception(e);
          } catch (const std::bad_alloc&) {
            throw;
          } catch (const std::exception& x) {
            return member_failure(who, x.what());
          } catch (...) {
            return member_failure(who, "an exception that is not a std::exception");
          }
        } catch (const std::bad_alloc&) {
          release_memory_reserve();
          return std::move(*oom);
        }
      });
}

}  // namespace fedsim::actors
