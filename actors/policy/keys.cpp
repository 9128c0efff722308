#include "actors/policy/keys.hpp"

#include <stdexcept>

namespace fedsim::actors::policy::keys {
namespace {

using scenario::PolicyConfig;

std::string full(const char* name) { return std::string(table) + "." + name; }

[[noreturn]] void unnamed() {
  throw std::logic_error("internal error: a [policy] member without a key in actors/policy/keys");
}

}  // namespace

std::string of(double PolicyConfig::*field) {
  if (field == &PolicyConfig::round_timeout) return full(round_timeout);
  if (field == &PolicyConfig::deadline) return full(deadline);
  unnamed();
}

std::string of(int PolicyConfig::*field) {
  if (field == &PolicyConfig::buffer_size) return full(buffer_size);
  unnamed();
}

}  // namespace fedsim::actors::policy::keys
