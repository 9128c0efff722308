#include "external/outcome.hpp"

namespace fedsim::external {

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::spawn_failed:
      return "spawn_failed";
    case FailureKind::connect_failed:
      return "connect_failed";
    case FailureKind::exited:
      return "exited";
    case FailureKind::crashed:
      return "crashed";
    case FailureKind::closed_output:
      return "closed_output";
    case FailureKind::timeout:
      return "timeout";
    case FailureKind::not_json:
      return "not_json";
    case FailureKind::wrong_id:
      return "wrong_id";
    case FailureKind::bad_y:
      return "bad_y";
    case FailureKind::bad_field:
      return "bad_field";
    case FailureKind::line_too_long:
      return "line_too_long";
    case FailureKind::unexpected_line:
      return "unexpected_line";
    case FailureKind::worker_error:
      return "worker_error";
    case FailureKind::invalid_request:
      return "invalid_request";
    case FailureKind::aborted:
      return "aborted";
    case FailureKind::cancelled:
      return "cancelled";
  }
  return "unknown";  // not reached: every kind is a case (-Werror=switch)
}

}  // namespace fedsim::external
