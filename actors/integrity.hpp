#pragma once
/// Report integrity: the sender seals a report with a digest of its content (a stand-in for a
/// checksum or MAC on the wire); the network's corruptions change the content but not the
/// digest; the servers reject a report that is not intact, whatever its fields look like (a
/// corrupted round can be a valid earlier round). The digest covers every field but itself.
#include <cstdint>

#include "actors/messages.hpp"

namespace fedsim::actors {

/// The digest of the report's content (round, agent, vector), bit for bit.
std::uint64_t content_digest(const report& r);
/// The digest of the phase report's content (client, phase, means, pulls), bit for bit.
std::uint64_t content_digest(const phase_report& r);

/// Sets the report's digest; call once its content is final.
template <class Report>
void seal(Report& r) {
  r.digest = content_digest(r);
}

/// Whether the content still matches the digest set by seal().
template <class Report>
bool intact(const Report& r) {
  return r.digest == content_digest(r);
}

}  // namespace fedsim::actors
