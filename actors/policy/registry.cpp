#include "actors/policy/registry.hpp"

#include <stdexcept>

namespace fedsim::actors::policy {

// Each policy's factory, defined in the policy's own file.
std::unique_ptr<RoundPolicy> make_sync(const scenario::PolicyConfig&);
std::unique_ptr<RoundPolicy> make_deadline(const scenario::PolicyConfig&);
std::unique_ptr<RoundPolicy> make_quorum(const scenario::PolicyConfig&);
std::unique_ptr<RoundPolicy> make_async(const scenario::PolicyConfig&);
std::unique_ptr<RoundPolicy> make_fedbuff(const scenario::PolicyConfig&);

const std::vector<Entry>& registered() {
  using K = scenario::PolicyConfig::Kind;
  static const std::vector<Entry> entries = {
      {K::sync, "sync", make_sync},
      {K::deadline, "deadline", make_deadline},
      {K::quorum, "quorum", make_quorum},
      {K::async, "async", make_async},
      {K::fedbuff, "fedbuff", make_fedbuff},
  };
  return entries;
}

namespace {

const Entry& entry(scenario::PolicyConfig::Kind kind) {
  for (const Entry& e : registered())
    if (e.kind == kind) return e;
  throw std::logic_error("internal error: round policy kind " +
                         std::to_string(static_cast<int>(kind)) + " is not registered");
}

}  // namespace

std::unique_ptr<RoundPolicy> make_round_policy(const scenario::PolicyConfig& config) {
  return entry(config.kind).make(config);
}

std::string name_of(scenario::PolicyConfig::Kind kind) { return entry(kind).name; }

std::string names() {
  std::string out;
  for (const Entry& e : registered()) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::string names(Family family) {
  std::string out;
  for (const Entry& e : registered())
    if (e.make(scenario::PolicyConfig{})->supports(family))
      out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

}  // namespace fedsim::actors::policy
