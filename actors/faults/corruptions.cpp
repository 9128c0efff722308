#include "actors/faults/corruptions.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedsim::actors::faults {
namespace {

// The operations on a vector of values, shared by the report types.

/// One value, chosen uniformly, set to v (nothing for an empty vector).
void set_one(std::vector<double>& values, double v, RandomStream& rng) {
  if (!values.empty()) values[rng.uniform_index(values.size())] = v;
}

void scale(std::vector<double>& values, double factor) {
  for (double& v : values) v *= factor;
}

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();
constexpr double huge_factor = 1e12;
constexpr int stale_by = 1000;

}  // namespace

const std::vector<Corruption>& corruptions() {
  static const std::vector<Corruption> table = {
      {"nan", "one value of the vector (omega, means) becomes NaN",
       [](report& r, RandomStream& rng) { set_one(r.omega, nan_value, rng); },
       [](phase_report& r, RandomStream& rng) { set_one(r.means, nan_value, rng); }},
      {"inf", "one value of the vector (omega, means) becomes +infinity",
       [](report& r, RandomStream& rng) { set_one(r.omega, inf_value, rng); },
       [](phase_report& r, RandomStream& rng) { set_one(r.means, inf_value, rng); }},
      {"wrong_dimension", "the vector (omega, means) gets one extra value 0",
       [](report& r, RandomStream&) { r.omega.push_back(0.0); },
       [](phase_report& r, RandomStream&) { r.means.push_back(0.0); }},
      {"huge_norm", "every value of the vector (omega, means) is multiplied by 1e12",
       [](report& r, RandomStream&) { scale(r.omega, huge_factor); },
       [](phase_report& r, RandomStream&) { scale(r.means, huge_factor); }},
      {"stale_round", "the round (report) or phase (phase_report) is set 1000 earlier",
       [](report& r, RandomStream&) { r.round -= stale_by; },
       [](phase_report& r, RandomStream&) { r.phase -= stale_by; }},
  };
  return table;
}

const Corruption* find_corruption(const std::string& name) {
  for (const Corruption& c : corruptions())
    if (name == c.name) return &c;
  return nullptr;
}

std::vector<std::string> all_corruption_names() {
  std::vector<std::string> out;
  for (const Corruption& c : corruptions()) out.emplace_back(c.name);
  return out;
}

std::string corruption_names() {
  std::string out;
  for (const Corruption& c : corruptions()) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

bool is_report_payload(const caf::message& payload) {
  return payload.match_elements<report>() || payload.match_elements<phase_report>();
}

void apply(const Corruption& c, caf::message& payload, RandomStream& rng) {
  if (payload.match_elements<report>()) {
    report r = payload.get_as<report>(0);
    c.on_report(r, rng);
    payload = caf::make_message(std::move(r));
  } else if (payload.match_elements<phase_report>()) {
    phase_report r = payload.get_as<phase_report>(0);
    c.on_phase_report(r, rng);
    payload = caf::make_message(std::move(r));
  } else {
    throw std::logic_error("corruption '" + std::string(c.name) + "' applied to a non-report");
  }
}

}  // namespace fedsim::actors::faults
