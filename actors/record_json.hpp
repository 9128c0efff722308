#pragma once
/// A record as JSON, from its declaration (records.hpp): a line of a JSON-lines output file
/// (events.jsonl: the in_file fields, written without a JSON library so the bytes are fixed),
/// the fields of its live-stream line (in_stream, under their stream keys) and a record read
/// back from a parsed line. The JSON type (nlohmann::json or ordered_json) is the caller's, so
/// this library does not depend on one.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/decimal.hpp"
#include "actors/records.hpp"

namespace fedsim::actors {

/// s as the inside of a JSON string.
inline void append_json_escaped(std::string& out, const std::string& s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", u);
      out += esc;
    } else {
      out += c;
    }
  }
}

namespace detail {
inline void append_json_number(std::string& line, double v) {
  if (std::isfinite(v)) append_g10(line, v);
  else line += "null";  // NaN and infinities have no JSON
}
}  // namespace detail

/// Appends x as one line of R's JSON-lines file: {"name":value,...}\n, numbers as the CSV
/// files write them, text escaped, a text field marked omitted_when_empty left out when empty.
template <class R>
void append_jsonl(std::string& line, const R& x) {
  bool first = true;
  line += '{';
  for_each_field<R>([&](const auto& field) {
    if (!field.in(in_file)) return;
    const auto& v = x.*(field.member);
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::string>)
      if (field.omit_empty && v.empty()) return;
    if (!first) line += ',';
    first = false;
    ((line += '"') += field.name) += "\":";
    if constexpr (std::is_same_v<T, std::string>) {
      line += '"';
      append_json_escaped(line, v);
      line += '"';
    } else if constexpr (std::is_same_v<T, double>) {
      detail::append_json_number(line, v);
    } else if constexpr (std::is_same_v<T, bool>) {
      line += v ? "true" : "false";
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      line += '[';
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (k) line += ',';
        detail::append_json_number(line, v[k]);
      }
      line += ']';
    } else if constexpr (std::is_same_v<T, node_id>) {
      append_int(line, field.kind == FieldKind::node ? json_node(v) : static_cast<long long>(v));
    } else if (field.kind == FieldKind::label) {
      ((line += '"') += field.labels[v]) += '"';
    } else {
      append_int(line, v);
    }
  });
  line += "}\n";
}

/// Sets the in_stream fields of x in j under their stream keys (numbers that are not finite
/// as null, nodes as json_node, labels by name).
template <class Json, class R>
void add_stream_fields(Json& j, const R& x) {
  for_each_field<R>([&](const auto& field) {
    if (!field.in(in_stream)) return;
    const auto& v = x.*(field.member);
    using T = std::decay_t<decltype(v)>;
    Json& slot = j[field.stream_key()];
    if constexpr (std::is_same_v<T, double>) {
      slot = std::isfinite(v) ? Json(v) : Json(nullptr);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      slot = Json::array();
      for (double e : v) slot.push_back(std::isfinite(e) ? Json(e) : Json(nullptr));
    } else if constexpr (std::is_same_v<T, node_id>) {
      slot = field.kind == FieldKind::node ? json_node(v) : static_cast<long long>(v);
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
      if (field.kind == FieldKind::label) slot = field.labels[v];
      else slot = v;
    } else {
      slot = v;
    }
  });
}

/// The record a line of R's JSON-lines file holds (fields absent from it keep their defaults;
/// null numbers are NaN). Throws the JSON library's exception on a value of the wrong type,
/// and std::invalid_argument on an unknown label.
template <class R, class Json>
R from_jsonl(const Json& j) {
  R x;
  for_each_field<R>([&](const auto& field) {
    if (!field.in(in_file)) return;
    const auto it = j.find(field.name);
    if (it == j.end()) return;
    auto& v = x.*(field.member);
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, double>) {
      v = it->is_null() ? std::nan("") : it->template get<double>();
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      v.clear();
      for (const auto& e : *it) v.push_back(e.is_null() ? std::nan("") : e.template get<double>());
    } else if constexpr (std::is_same_v<T, node_id>) {
      v = field.kind == FieldKind::node ? node_from_json(it->template get<long long>())
                                        : it->template get<node_id>();
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
      if (field.kind != FieldKind::label) return void(v = it->template get<std::int32_t>());
      const auto name = it->template get<std::string>();
      for (int k = 0; k < field.label_count; ++k)
        if (name == field.labels[k]) return void(v = k);
      throw std::invalid_argument(std::string(field.name) + ": unknown value '" + name + "'");
    } else {
      v = it->template get<T>();
    }
  });
  return x;
}

}  // namespace fedsim::actors
