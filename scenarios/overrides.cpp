#include "scenarios/overrides.hpp"

#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/echo.hpp"
#include "scenarios/toml_depth.hpp"

namespace fedsim::scenario {

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

/// One segment of a dotted key: a name and, for arrays of tables, an index ("groups[0]").
struct Segment {
  std::string name;
  std::optional<size_t> index;
};

std::vector<Segment> split_key(const std::string& key, const std::string& where) {
  std::vector<Segment> out;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    std::string part =
        key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    Segment seg;
    const size_t bracket = part.find('[');
    if (bracket != std::string::npos) {
      const std::string digits = part.substr(bracket + 1, part.size() - bracket - 2);
      if (part.back() != ']' || digits.empty() ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(where + ": bad index in " + quote(part) +
                                    " (expected name[N])");
      // No array is this long; more digits would overflow.
      if (digits.size() > 9)
        throw std::invalid_argument(where + ": index " + quote(digits) + " out of range");
      seg.index = std::stoul(digits);
      part = part.substr(0, bracket);
    }
    if (part.empty() ||
        part.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                               "0123456789_-") != std::string::npos)
      throw std::invalid_argument(where + ": bad key " + quote(key) +
                                  " (expected dotted names like algorithm.q)");
    seg.name = part;
    out.push_back(std::move(seg));
    if (out.size() > static_cast<size_t>(max_toml_depth))
      throw std::invalid_argument(where + ": key nested deeper than " +
                                  std::to_string(max_toml_depth) + " levels");
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

/// The value of an override as a TOML node: a TOML value if it parses as one, else a bare string.
toml::table parse_value(const std::string& value, const std::string& where) {
  if (value.find_first_of("\r\n") != std::string::npos)
    throw std::invalid_argument(where + ": the value must be on one line");
  if (!valid_utf8(value)) throw std::invalid_argument(where + ": the value is not valid UTF-8");
  if (find_depth_excess("v = " + value))
    throw std::invalid_argument(where + ": the value nests deeper than " +
                                std::to_string(max_toml_depth) + " levels");
  try {
    toml::table t = toml::parse("v = " + value);
    if (t.size() == 1 && t.get("v")) return t;
  } catch (const toml::parse_error& e) {
    // Something meant as an array, table or quoted string must parse; a bare word need not.
    if (std::string("[{\"'").find(value.front()) != std::string::npos)
      throw std::invalid_argument(where +
                                  ": value is not valid TOML: " + std::string(e.description()));
  }
  toml::table t;
  t.insert("v", value);
  return t;
}

}  // namespace

Override apply_override(toml::table& root, const std::string& text) {
  const std::string where = "--set " + quote(text);
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw std::invalid_argument(where + ": expected key=value, e.g. algorithm.q=0.5");
  Override o{text, trim(std::string_view(text).substr(0, eq))};
  const std::string value = trim(std::string_view(text).substr(eq + 1));
  if (o.key.empty()) throw std::invalid_argument(where + ": missing key before '='");
  if (value.empty()) throw std::invalid_argument(where + ": missing value after '='");
  const std::vector<Segment> segments = split_key(o.key, where);
  toml::table parsed = parse_value(value, where);
  const toml::node& node = *parsed.get("v");

  toml::table* table = &root;
  std::string path;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& seg = segments[i];
    path += (path.empty() ? "" : ".") + seg.name;
    const bool last = i + 1 == segments.size();
    if (last && !seg.index) {
      table->insert_or_assign(seg.name, node);
      break;
    }
    toml::node* n = table->get(seg.name);
    if (!n) {
      if (seg.index)
        throw std::invalid_argument(where + ": key '" + path + "' has no entries to index");
      n = table->insert(seg.name, toml::table{}).first->second.as_table();
    }
    if (seg.index) {
      toml::array* array = n->as_array();
      if (!array) throw std::invalid_argument(where + ": key '" + path + "' is not an array");
      if (*seg.index >= array->size())
        throw std::invalid_argument(where + ": index " + std::to_string(*seg.index) +
                                    " out of range (key '" + path + "' has " +
                                    std::to_string(array->size()) + " entries)");
      path += "[" + std::to_string(*seg.index) + "]";
      if (last) {
        array->replace(array->cbegin() + static_cast<std::ptrdiff_t>(*seg.index), node);
        break;
      }
      n = array->get(*seg.index);
    }
    table = n->as_table();
    if (!table) throw std::invalid_argument(where + ": key '" + path + "' is not a table");
  }
  return o;
}

}  // namespace fedsim::scenario
