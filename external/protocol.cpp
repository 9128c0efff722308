#include "external/protocol.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace fedsim::external {

std::string printable_excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  const std::size_t n = std::min(text.size(), max_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char buffer[5];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::string encode_request(const Request& request) {
  nlohmann::ordered_json line;
  line["id"] = request.id;
  line["agent"] = request.agent;
  line["iteration"] = request.iteration;
  line["x"] = request.x;
  return line.dump() + "\n";
}

namespace {

ProtocolError protocol_error(FailureKind kind, std::string message) {
  return ProtocolError{kind, std::move(message)};
}

/// A finite JSON number (booleans are not numbers here).
std::optional<double> finite_number(const nlohmann::json& value) {
  if (!value.is_number()) return std::nullopt;
  const double v = value.get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string excerpt_of(const nlohmann::json& value) {
  return printable_excerpt(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                           80);
}

/// Python's json.dumps writes NaN, Infinity and -Infinity, which JSON does not have: a line
/// that parses once they are read as null is judged on its fields (a NaN y is a bad_y, not a
/// not_json). Only lines that do not parse as they are get this second reading.
nlohmann::json parse_lenient(std::string_view line, bool& replaced) {
  replaced = false;
  auto value = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
  if (!value.is_discarded()) return value;
  std::string patched(line);
  for (const std::string_view token : {"-Infinity", "Infinity", "NaN"})
    for (auto at = patched.find(token); at != std::string::npos; at = patched.find(token, at)) {
      patched.replace(at, token.size(), "null");
      replaced = true;
    }
  if (!replaced) return value;
  return nlohmann::json::parse(patched, nullptr, false);
}

}  // namespace

ParsedLine parse_response(std::string_view line, std::uint64_t expected_id) {
  bool replaced = false;
  const auto value = parse_lenient(line, replaced);
  if (value.is_discarded())
    return protocol_error(FailureKind::not_json,
                          "not JSON: \"" + printable_excerpt(line, 80) + "\"");
  if (!value.is_object())
    return protocol_error(FailureKind::not_json,
                          "not a JSON object: \"" + printable_excerpt(line, 80) + "\"");
  const std::string note = replaced ? " (NaN/Infinity read as null)" : "";
  const auto id = value.find("id");
  if (id == value.end())
    return protocol_error(FailureKind::wrong_id,
                          "no \"id\" (expected " + std::to_string(expected_id) + ")");
  if (!id->is_number_unsigned() || id->get<std::uint64_t>() != expected_id)
    return protocol_error(FailureKind::wrong_id, "\"id\" is " + excerpt_of(*id) + note +
                                                     ", expected " + std::to_string(expected_id));
  if (const auto error = value.find("error"); error != value.end())
    return WorkerError{error->is_string() ? printable_excerpt(error->get<std::string>(), 200)
                                          : excerpt_of(*error)};
  Reply reply;
  const auto y = value.find("y");
  if (y == value.end()) return protocol_error(FailureKind::bad_y, "no \"y\"");
  const auto y_value = finite_number(*y);
  if (!y_value)
    return protocol_error(FailureKind::bad_y,
                          "\"y\" is " + excerpt_of(*y) + note + ", not a finite number");
  reply.y = *y_value;
  for (const std::string_view key : {"f", "cost"}) {
    const auto field = value.find(key);
    if (field == value.end()) continue;
    const bool is_cost = key == "cost";
    const auto v = finite_number(*field);
    if (!v || (is_cost && *v < 0))
      return protocol_error(FailureKind::bad_field,
                            "\"" + std::string(key) + "\" is " + excerpt_of(*field) + note +
                                (is_cost ? ", not a finite number >= 0" : ", not a finite number"));
    (is_cost ? reply.cost : reply.f) = *v;
  }
  return reply;
}

}  // namespace fedsim::external
