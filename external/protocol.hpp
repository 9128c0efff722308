#pragma once
/// The line protocol (docs/external-objectives.md): the request line fedsim writes and the
/// pure parser of a worker's answer line (the libFuzzer target's subject).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "external/outcome.hpp"

namespace fedsim::external {

/// {"id":17,"agent":3,"iteration":5,"x":[0.1,0.7]} and a newline. Every coordinate of x must
/// be finite (the evaluator refuses others before encoding); doubles round-trip exactly.
std::string encode_request(const Request& request);

/// A worker's valid answer: y, and f and cost when given.
struct Reply {
  double y = 0;
  std::optional<double> f;
  std::optional<double> cost;
};
/// The worker's own {"id": ..., "error": "why"}: the message, cut to at most 200 bytes.
struct WorkerError {
  std::string message;
};
/// A line that breaks the protocol: its kind (not_json, wrong_id, bad_y, bad_field) and why.
struct ProtocolError {
  FailureKind kind = FailureKind::not_json;
  std::string message;
};
using ParsedLine = std::variant<Reply, WorkerError, ProtocolError>;

/// Parses one answer line (without its newline) to the request `expected_id`. Never throws
/// (except std::bad_alloc); any input gives one of the three. Unknown keys are ignored; an
/// "error" key wins over "y"; messages quote at most 80 bytes of the line, escaped.
ParsedLine parse_response(std::string_view line, std::uint64_t expected_id);

/// `text` cut to `max_bytes`, with control characters, quotes and bytes >= 0x80 as \xNN: safe
/// to put in one log line.
std::string printable_excerpt(std::string_view text, std::size_t max_bytes);

}  // namespace fedsim::external
