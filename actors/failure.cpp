#include "actors/failure.hpp"

namespace fedsim::actors {

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
