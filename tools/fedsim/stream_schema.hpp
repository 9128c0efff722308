#pragma once
/// The live stream's JSON schema (docs/stream.schema.json), generated: the lines of records
/// (observation, pull, agent, fault, round, phase) from their declarations in
/// actors/records.hpp, the others (start, privacy, end) from the list in stream_schema.cpp,
/// which live_run.cpp writes. tests/tools/stream_schema_test.cpp checks the checked-in file.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/records.hpp"

namespace fedsim::cli {

/// docs/stream.schema.json's text.
std::string stream_schema_text();

namespace schema {

using json = nlohmann::ordered_json;

inline json ref(const char* def) { return json{{"$ref", std::string("#/$defs/") + def}}; }

/// A property's schema for a record's field.
template <class Field>
json property(const Field& field) {
  json p;
  switch (field.kind) {
    case actors::FieldKind::count: p = ref("count"); break;
    case actors::FieldKind::integer: p = json{{"type", "integer"}}; break;
    case actors::FieldKind::node: p = json{{"type", "integer"}, {"minimum", -2}}; break;
    case actors::FieldKind::number: p = ref("num"); break;
    case actors::FieldKind::flag: p = json{{"type", "boolean"}}; break;
    case actors::FieldKind::numbers: p = json{{"type", "array"}, {"items", ref("num")}}; break;
    case actors::FieldKind::text:
    case actors::FieldKind::label:
      if (field.labels == nullptr) {
        p = json{{"type", "string"}};
      } else {
        p = json{{"enum", json::array()}};
        for (int k = 0; k < field.label_count; ++k) p["enum"].push_back(field.labels[k]);
      }
      break;
  }
  p["description"] = field.doc;
  return p;
}

/// A key a line has besides a record's fields: its schema and whether every line has it.
struct Extra {
  const char* key;
  json schema;
  bool required = true;
};

/// A line's definition: the envelope's keys (type, v, t, wall; a sweep's run and point), then
/// `fields` (key, schema; all required), then the extras.
json line(const std::vector<std::pair<std::string, json>>& fields, const std::vector<Extra>& extras);

/// The line of record R: its in_stream fields under their stream keys, then the extras.
template <class R>
json record_line(const std::vector<Extra>& extras) {
  std::vector<std::pair<std::string, json>> fields;
  actors::for_each_field<R>([&](const auto& field) {
    if (field.in(actors::in_stream)) fields.emplace_back(field.stream_key(), property(field));
  });
  json def = line(fields, extras);
  def["description"] = std::string("a record of ") +
                       (actors::record<R>::file ? actors::record<R>::file : "the live view only") +
                       " (actors/records.hpp)";
  return def;
}

}  // namespace schema

}  // namespace fedsim::cli
