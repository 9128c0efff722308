#pragma once
/// A bound on how deeply a TOML text nests tables, checked before toml++ parses it: the parser
/// and the code walking its tree recurse once per level, so a few thousand levels of dotted
/// keys ("a.a.a...") or table headers would overflow the stack.
#include <cstddef>
#include <optional>
#include <string_view>

namespace fedsim::scenario {

/// Deepest nesting a scenario may use; the schema needs 5.
constexpr int max_toml_depth = 64;

/// Where a text first nests deeper than max_depth: 1-based line and column.
struct DepthExcess {
  std::size_t line;
  std::size_t column;
};

/// Scans `text` as TOML syntax without building anything: the depth of a value is the number
/// of key segments above it (table header, dotted key, each enclosing inline table's key) plus
/// the arrays around it. Strings and comments are skipped; text that is not valid TOML is
/// scanned as well as it can be (the parser reports it afterwards). Linear time, no recursion.
std::optional<DepthExcess> find_depth_excess(std::string_view text, int max_depth = max_toml_depth);

}  // namespace fedsim::scenario
