#pragma once
/// Output records declared once. Each record a run emits (an observation, a round, a network
/// event, ...) is a plain struct plus one specialisation of `record<R>` listing its fields in
/// order: name, member, kind, where it goes, one line of doc. From that list alone come the
/// CAF `inspect` (messages and checkpoints: every field, in the listed order, doubles bit for
/// bit through `wire()`), the CSV header, row writer and row reader (record_csv.hpp), the
/// JSON-lines file and the live stream's line (record_json.hpp) and the stream's JSON schema
/// (tools/fedsim/stream_schema.cpp, checked against docs/stream.schema.json). A new column is
/// one member and one field line; records.hpp holds the declarations.
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "actors/wire_double.hpp"

namespace fedsim::actors {

/// What a field holds, which fixes how every writer and reader treats it.
enum class FieldKind {
  count,    ///< an integer >= 0
  integer,  ///< any integer of the member's type
  number,   ///< a double (CSV "%.10g", JSON null when not finite)
  flag,     ///< a bool (CSV 0 or 1, JSON true or false)
  text,     ///< a string (optionally one of `labels`, for the schema)
  numbers,  ///< a vector of doubles: CSV columns name0 .. name{w-1}, a JSON array
  node,     ///< a network node id: an agent's id, the server -1, the network -2 (json_node)
  label,    ///< an int32 written as labels[value] (CSV and JSON), read back by name
};

/// Where a field goes besides `inspect` (which carries every field).
enum FieldPlace : unsigned {
  in_inspect_only = 0u,
  in_file = 1u,    ///< the record's output file (CSV column, or JSON-lines key)
  in_stream = 2u,  ///< the live stream's line of the record
  in_file_and_stream = 3u,
};

/// One field of record R: `T R::*member`.
template <class R, class T>
struct Field {
  const char* name;
  T R::*member;
  FieldKind kind;
  unsigned places;
  const char* doc;
  const char* stream_name = nullptr;    ///< the stream's key when it is not `name`
  const char* const* labels = nullptr;  ///< label: names of 0 .. n-1; text: allowed values
  int label_count = 0;
  bool omit_empty = false;  ///< text in a JSON-lines file: left out when empty

  constexpr const char* stream_key() const { return stream_name ? stream_name : name; }
  constexpr bool in(FieldPlace p) const { return (places & p) != 0; }

  /// Modifiers, for the declarations' readability.
  constexpr Field streamed_as(const char* key) const {
    Field f = *this;
    f.stream_name = key;
    return f;
  }
  template <int N>
  constexpr Field one_of(const char* const (&names)[N]) const {
    Field f = *this;
    f.labels = names;
    f.label_count = N;
    return f;
  }
  constexpr Field omitted_when_empty() const {
    Field f = *this;
    f.omit_empty = true;
    return f;
  }
};

/// The declaration of record R (specialised in records.hpp): `type_name` (CAF's), `file` (what
/// the file is called in docs and errors), `stream_type` (the stream line's "type"; nullptr:
/// not streamed), and `fields`, a tuple of Field in inspect order.
template <class R>
struct record;

template <class R, class = void>
struct is_record : std::false_type {};
template <class R>
struct is_record<R, std::void_t<decltype(record<R>::fields)>> : std::true_type {};
template <class R>
constexpr bool is_record_v = is_record<R>::value;

/// Field builders: the kind follows from the member's type except where a type has several
/// meanings (an integer: count, integer, node or label).
template <class R, class T>
constexpr Field<R, T> count_field(const char* name, T R::*m, const char* doc, unsigned places = in_file_and_stream) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "a count is an integer");
  return {name, m, FieldKind::count, places, doc};
}
template <class R, class T>
constexpr Field<R, T> integer_field(const char* name, T R::*m, const char* doc, unsigned places = in_file_and_stream) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "an integer field");
  return {name, m, FieldKind::integer, places, doc};
}
template <class R>
constexpr Field<R, double> number_field(const char* name, double R::*m, const char* doc,
                                        unsigned places = in_file_and_stream) {
  return {name, m, FieldKind::number, places, doc};
}
template <class R>
constexpr Field<R, bool> flag_field(const char* name, bool R::*m, const char* doc, unsigned places = in_file_and_stream) {
  return {name, m, FieldKind::flag, places, doc};
}
template <class R>
constexpr Field<R, std::string> text_field(const char* name, std::string R::*m, const char* doc,
                                           unsigned places = in_file_and_stream) {
  return {name, m, FieldKind::text, places, doc};
}
template <class R>
constexpr Field<R, std::vector<double>> numbers_field(const char* name, std::vector<double> R::*m,
                                                      const char* doc, unsigned places = in_file_and_stream) {
  return {name, m, FieldKind::numbers, places, doc};
}
template <class R, class T>
constexpr Field<R, T> node_field(const char* name, T R::*m, const char* doc, unsigned places = in_file_and_stream) {
  static_assert(std::is_same_v<T, std::uint32_t>, "a node is a node_id");
  return {name, m, FieldKind::node, places, doc};
}
template <class R, int N>
constexpr Field<R, std::int32_t> label_field(const char* name, std::int32_t R::*m,
                                             const char* const (&names)[N], const char* doc,
                                             unsigned places = in_file_and_stream) {
  return Field<R, std::int32_t>{name, m, FieldKind::label, places, doc}.one_of(names);
}

/// Calls f(field) for each field of R, in order.
template <class R, class F>
constexpr void for_each_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, record<R>::fields);
}

namespace detail {
template <class T>
decltype(auto) inspected(T& v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::vector<double>>) return wire(v);
  else return (v);
}
}  // namespace detail

/// Every record's CAF inspect: its fields in declared order, doubles through wire().
template <class Inspector, class R>
auto inspect(Inspector& f, R& x) -> std::enable_if_t<is_record_v<R>, typename Inspector::result_type> {
  return std::apply(
      [&](const auto&... field) {
        std::tuple<decltype(detail::inspected(x.*(field.member)))...> refs{
            detail::inspected(x.*(field.member))...};
        return std::apply(
            [&](auto&... xs) { return f(caf::meta::type_name(record<R>::type_name), xs...); }, refs);
      },
      record<R>::fields);
}

}  // namespace fedsim::actors
