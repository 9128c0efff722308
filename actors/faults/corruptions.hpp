#pragma once
/// Malformed payloads: a table of named corruptions the network applies to a report in
/// flight (world.network.malformed.kinds names them). Every entry says what it does to each
/// report type (`report` of the FBO family, `phase_report` of Fed-PNE); a test checks that
/// every entry covers every report type. Corruptions leave the sender's integrity digest
/// alone (actors/integrity.hpp), so a server can always tell.
#include <string>
#include <vector>

#include "actors/messages.hpp"
#include "engine/rng.hpp"

namespace fedsim::actors::faults {

struct Corruption {
  const char* name;
  const char* doc;  ///< what it does, one line
  void (*on_report)(report& r, RandomStream& rng);
  void (*on_phase_report)(phase_report& r, RandomStream& rng);
};

/// The table, in a fixed order (the default of malformed.kinds lists every name).
const std::vector<Corruption>& corruptions();
/// The entry called `name`, or nullptr.
const Corruption* find_corruption(const std::string& name);
/// "nan, inf, wrong_dimension, huge_norm, stale_round": the names for an "allowed:" list.
std::string corruption_names();
/// Every name, in table order.
std::vector<std::string> all_corruption_names();

/// Whether the payload is a report type the corruptions apply to.
bool is_report_payload(const caf::message& payload);
/// Applies `c` to the report inside `payload` (which is_report_payload).
void apply(const Corruption& c, caf::message& payload, RandomStream& rng);

}  // namespace fedsim::actors::faults
