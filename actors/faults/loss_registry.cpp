#include <charconv>
#include <cmath>
#include <stdexcept>

#include "actors/faults/loss_model.hpp"

namespace fedsim::actors::faults {

// The kinds, one file each (NAME.cpp defines NAME()): a new kind is its file plus one
// declaration and one entry here.
LossKind bernoulli_loss();
LossKind gilbert_elliott_loss();

const std::vector<LossKind>& loss_kinds() {
  static const std::vector<LossKind> kinds = {
      bernoulli_loss(),
      gilbert_elliott_loss(),
  };
  return kinds;
}

const LossKind* find_loss_kind(const std::string& name) {
  for (const LossKind& k : loss_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::string loss_kind_names() {
  std::string out;
  for (const LossKind& k : loss_kinds()) out += (out.empty() ? "" : ", ") + k.name;
  return out;
}

void fail(const std::string& key, const std::string& what) {
  throw std::invalid_argument("key '" + key + "': " + what);
}

LossParams complete_params(const LossKind& kind, const LossParams& params, const std::string& key) {
  std::string names;
  for (const LossParameter& p : kind.parameters) names += (names.empty() ? "" : ", ") + p.name;
  for (const auto& [name, value] : params) {
    bool known = false;
    for (const LossParameter& p : kind.parameters) known = known || p.name == name;
    if (!known)
      fail(key + "." + name, "unknown parameter of loss kind '" + kind.name + "' (allowed: kind" +
                                 (names.empty() ? "" : ", " + names) + ")");
  }
  LossParams out = params;
  for (const LossParameter& p : kind.parameters)
    if (!out.count(p.name)) {
      if (std::isnan(p.default_value))
        fail(key + "." + p.name, "missing (loss kind '" + kind.name + "' needs " + names + ")");
      out[p.name] = p.default_value;
    }
  return out;
}

void require(bool ok, const std::string& key, const std::string& rule, double got) {
  if (ok) return;
  char buf[64];  // the shortest text that reads back to the same double
  const auto res = std::to_chars(buf, buf + sizeof(buf), got);
  fail(key, rule + ", got " + std::string(buf, res.ptr));
}

void require_probability(const LossParams& params, const std::string& name,
                         const std::string& key) {
  const double v = params.at(name);
  require(v >= 0 && v <= 1, key + "." + name, "must be in [0, 1]", v);
}

}  // namespace fedsim::actors::faults
