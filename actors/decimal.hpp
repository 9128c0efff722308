#pragma once
/// Numbers as fedsim's output files write them, without printf: std::to_chars gives the
/// characters printf would ("%.10g" for a double) without parsing a format and without
/// printf's multi-precision arithmetic, which cost several percent of a run that logs every
/// event. tests/actors/decimal_test.cpp compares the two on millions of values.
#include <charconv>
#include <string>
#include <type_traits>

namespace fedsim::actors {

/// Appends `v` as printf's "%.10g" writes it (nan, -nan, inf and -inf included).
inline void append_g10(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 10);
  out.append(buf, r.ptr);
}

/// Appends the integer `v` in decimal.
template <class Int>
void append_int(std::string& out, Int v) {
  static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace fedsim::actors
