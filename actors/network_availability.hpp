#pragma once
/// The availability trace reader: a CSV of up-intervals `agent,start,end`, one per line, with
/// an optional header row `agent,start,end`. Parsed strictly: every field whole (no `1x`, no
/// `1e3` as an agent id, no `0x10`), exactly three columns, numbers in range; an error names
/// the source, line and column. Pure (text in, records out) so that a fuzz target can call it.
#include <string>
#include <string_view>
#include <vector>

namespace fedsim::actors {

/// One up-interval [start, end) of an agent.
struct AvailabilityRecord {
  int agent = 0;
  double start = 0.0;
  double end = 0.0;  ///< may be inf: up for good
};

/// Parses `text` (the trace's contents; `source` names it in errors) for a federation of
/// `num_agents` agents: ids in [0, num_agents), 0 <= start < end, start finite. Blank lines
/// are skipped; spaces and tabs around a field and a trailing '\r' are ignored. Throws
/// std::invalid_argument "SOURCE:LINE:COLUMN: what" (LINE, COLUMN from 1).
std::vector<AvailabilityRecord> parse_availability(std::string_view text, const std::string& source,
                                                   int num_agents);

/// Reads the file and parses it; throws std::invalid_argument naming the file when it cannot
/// be read.
std::vector<AvailabilityRecord> read_availability_file(const std::string& file, int num_agents);

}  // namespace fedsim::actors
