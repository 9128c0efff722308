#include "scenarios/toml_depth.hpp"

#include <vector>

namespace fedsim::scenario {

std::optional<DepthExcess> find_depth_excess(std::string_view text, int max_depth) {
  struct Frame {
    char bracket;  // '[' an array, '{' an inline table
    int depth;     // depth of the value the bracket opens
  };
  std::vector<Frame> open;
  std::size_t line = 1, column = 0;
  int header = 0;          // segments of the current [table] header
  int key_base = 0;        // depth the key being read starts from
  int segments = 0;        // segments of that key so far
  bool in_key = true;      // reading a key (or a table header)
  bool in_header = false;  // inside [ ... ] or [[ ... ]] of a header
  bool line_start = true;  // nothing but blanks since the line began
  int value_depth = 0;     // depth of the value being read
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    const auto too_deep = [&](int depth) { return depth > max_depth; };
    if (c == '\n') {
      ++line, column = 0;
      if (open.empty()) in_key = true, key_base = header, segments = 0, line_start = true;
      continue;
    }
    if (c == '#') {  // a comment runs to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {  // a string, maybe a quoted key segment: skip it
      const bool triple = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      const std::string_view end = triple ? text.substr(i, 3) : text.substr(i, 1);
      std::size_t j = i + end.size();
      while (j < text.size() && text.substr(j, end.size()) != end) {
        if (c == '"' && text[j] == '\\') ++j;  // an escaped character
        if (j < text.size() && text[j] == '\n') ++line, column = 0;
        if (!triple && j < text.size() && text[j] == '\n') break;
        ++j;
      }
      i = std::min(text.size(), j + end.size()) - 1;
      if (in_key && segments == 0) segments = 1;
      line_start = false;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (in_key && !in_header && c == '}' && !open.empty()) {  // {} or a trailing comma
      in_key = false;
    }
    if (in_key) {
      if (line_start && open.empty() && c == '[') {  // a table header, [a.b] or [[a.b]]
        if (i + 1 < text.size() && text[i + 1] == '[') ++i, ++column;
        in_header = true, key_base = 0, segments = 0;
      } else if (in_header && c == ']') {
        if (i + 1 < text.size() && text[i + 1] == ']') ++i, ++column;
        in_header = false, header = segments, key_base = header, segments = 0;
      } else if (c == '.') {
        ++segments;
        if (too_deep(key_base + segments)) return DepthExcess{line, column};
      } else if (c == '=' && !in_header) {
        in_key = false, value_depth = key_base + std::max(segments, 1);
        if (too_deep(value_depth)) return DepthExcess{line, column};
      } else if (segments == 0) {
        segments = 1;
      }
      line_start = false;
      continue;
    }
    line_start = false;
    if (c == '[' || c == '{') {
      open.push_back({c, value_depth});
      if (too_deep(value_depth + 1)) return DepthExcess{line, column};
      if (c == '{') in_key = true, key_base = value_depth, segments = 0;
      else ++value_depth;
    } else if ((c == ']' || c == '}') && !open.empty()) {
      value_depth = open.back().depth;
      open.pop_back();
    } else if (c == ',' && !open.empty()) {
      value_depth = open.back().depth + (open.back().bracket == '[' ? 1 : 0);
      if (open.back().bracket == '{') in_key = true, key_base = open.back().depth, segments = 0;
    }
  }
  return std::nullopt;
}

}  // namespace fedsim::scenario
