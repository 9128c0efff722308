#pragma once
/// Failures are never silent. An exception escaping a handler of a federation actor ends that
/// actor with an error naming it (role and id: "agent 3: <what>"); the network, which monitors
/// every member of the run, ends the run with that error instead of going on without it, and
/// run_federation throws RunFailure, so no summary is written as if the run were complete.
#include <exception>
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

/// Makes an exception escaping one of self's handlers end it with member_failure(who, ...).
template <class Self>
void fail_loudly(Self* self, std::string who) {
  self->set_exception_handler([who = std::move(who)](std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      return member_failure(who, x.what());
    } catch (...) {
      return member_failure(who, "an exception that is not a std::exception");
    }
  });
}

}  // namespace fedsim::actors
