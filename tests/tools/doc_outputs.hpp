#pragma once
/// Quoted outputs in markdown, and the figures in them (docs_outputs_test.cpp).
///
/// A quoted output is marked by an HTML comment on the line before it:
///
///     <!-- checked: fedsim run scenarios/x.toml --quiet
///          varies: 0.31 (wall seconds)
///          exit: 130 -->
///
/// `checked:` is a shell command line (it may wrap over lines, up to the first field or the
/// end of the comment), run in a fresh folder where `scenarios/`, `examples/` and `tools/`
/// are the source tree's and `fedsim` is the binary under test. The optional fields:
/// `varies:` numbers of the block that change from run to run (wall times), not compared;
/// `exit:` the exit code the command ends with (default 0); `shrunk:` what the command changed
/// from the one the text names, to stay within seconds, and why the figures still hold.
/// `<!-- not checked: why -->` marks a quoted output that no test runs (say why).
///
/// The block is what follows the comment: a fenced code block, a table (lines starting with
/// `|`) or a paragraph (up to a blank line). Every number in it must be among the numbers the
/// command prints (stdout and stderr), to the digits quoted: 0.0061 matches 0.00612, 7 matches
/// 7.0, 2.94e-03 matches 0.002941.
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fedsim::test::docs {

/// One marked output: where it is, the command and what to compare.
struct QuotedOutput {
  std::string file;
  int line = 0;  ///< 1-based line of the marker
  std::string command;
  std::set<std::string> varies;
  int exit_code = 0;
  std::string block;
};

/// A parse problem: a marker without a block, an unmarked output block, a bad field.
struct Problem {
  std::string file;
  int line = 0;
  std::string what;
};

/// Whether `c` may sit just before a number (not inside an identifier or another number).
inline bool boundary(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return !(std::isalnum(u) || c == '.' || c == '_');
}

/// The numbers written in `text`, as written: `-0.05`, `2.94e-03`, `200` of `N=200`, `0.31`
/// of `0.31s`; not the digits inside identifiers (`x0`, `fig2a`, a commit `9a594ee`).
inline std::vector<std::string> numbers_in(const std::string& text) {
  std::vector<std::string> out;
  const std::size_t n = text.size();
  auto digit = [&](std::size_t i) {
    return i < n && std::isdigit(static_cast<unsigned char>(text[i]));
  };
  std::size_t i = 0;
  while (i < n) {
    const bool starts = digit(i) || (text[i] == '-' && digit(i + 1));
    if (!starts) {
      ++i;
      continue;
    }
    if (i > 0 && !boundary(text[i - 1])) {  // inside a word: skip the rest of it
      ++i;
      while (i < n && !boundary(text[i])) ++i;
      continue;
    }
    const std::size_t begin = i;
    if (text[i] == '-') ++i;
    while (digit(i)) ++i;
    bool fraction = false;
    if (i < n && text[i] == '.' && digit(i + 1)) {
      fraction = true;
      ++i;
      while (digit(i)) ++i;
    }
    bool exponent = false;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
      std::size_t j = i + 1;
      if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
      if (digit(j)) {
        exponent = true;
        i = j;
        while (digit(i)) ++i;
      }
    }
    // An integer run into letters is an identifier (9a594ee, 3rd), not a figure.
    if (!fraction && !exponent && i < n && std::isalpha(static_cast<unsigned char>(text[i]))) {
      while (i < n && !boundary(text[i])) ++i;
      continue;
    }
    out.push_back(text.substr(begin, i - begin));
  }
  return out;
}

/// Whether the quoted figure `quoted` is `printed` to the digits quoted.
inline bool same_figure(const std::string& quoted, const std::string& printed) {
  if (quoted == printed) return true;
  const double q = std::strtod(quoted.c_str(), nullptr);
  const double p = std::strtod(printed.c_str(), nullptr);
  const auto e = quoted.find_first_of("eE");
  const std::string mantissa = quoted.substr(0, e);
  const auto dot = mantissa.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  const int exponent = e == std::string::npos ? 0 : std::atoi(quoted.c_str() + e + 1);
  if (dot == std::string::npos && e == std::string::npos) return p == q;  // an integer: exactly
  const double half_unit = 0.5 * std::pow(10.0, exponent - decimals);
  return std::fabs(p - q) <= half_unit * (1 + 1e-9);
}

/// The numbers of `block` (less `varies`) that `output` does not print.
inline std::vector<std::string> missing_figures(const std::string& block,
                                                const std::set<std::string>& varies,
                                                const std::string& output) {
  const std::vector<std::string> printed = numbers_in(output);
  std::vector<std::string> missing;
  for (const std::string& q : numbers_in(block)) {
    if (varies.count(q)) continue;
    bool found = false;
    for (const std::string& p : printed)
      if (same_figure(q, p)) {
        found = true;
        break;
      }
    if (!found) missing.push_back(q);
  }
  return missing;
}

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

/// An output block's opening fence: ``` alone or ```text (a language names code, not output).
inline bool output_fence(const std::string& line) {
  const std::string t = trim(line);
  return t == "```" || t == "```text";
}

/// The marked outputs of one markdown file, and its problems: a marker with no block after it,
/// a fenced output block without a marker, a field it does not know.
inline void parse_markdown(const std::string& file, const std::string& text,
                           std::vector<QuotedOutput>& outputs, std::vector<Problem>& problems) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  const std::string checked = "<!-- checked:";
  const std::string not_checked = "<!-- not checked:";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (starts_with(t, checked) || starts_with(t, not_checked)) {
      QuotedOutput q;
      q.file = file;
      q.line = static_cast<int>(i) + 1;
      const bool runs = starts_with(t, checked);
      // The comment's lines, up to the one that closes it.
      std::vector<std::string> body{t.substr(runs ? checked.size() : not_checked.size())};
      while (body.back().find("-->") == std::string::npos && i + 1 < lines.size())
        body.push_back(trim(lines[++i]));
      body.back() = body.back().substr(0, body.back().find("-->"));
      std::string* field = &q.command;
      for (const std::string& raw : body) {
        const std::string l = trim(raw);
        if (starts_with(l, "varies:")) {
          for (const std::string& v : numbers_in(l)) q.varies.insert(v);
          field = nullptr;
        } else if (starts_with(l, "exit:")) {
          q.exit_code = std::atoi(l.c_str() + 5);
          field = nullptr;
        } else if (starts_with(l, "shrunk:")) {
          field = nullptr;
        } else if (field != nullptr) {
          *field += (field->empty() ? "" : " ") + l;
        } else if (!l.empty()) {
          problems.push_back({file, q.line, "a marker line that is no field: '" + l + "'"});
        }
      }
      q.command = trim(q.command);
      // The block: fenced, a table or a paragraph, right after the comment.
      std::size_t j = i + 1;
      std::string block;
      if (j < lines.size() && starts_with(trim(lines[j]), "```")) {
        for (++j; j < lines.size() && !starts_with(trim(lines[j]), "```"); ++j)
          block += lines[j] + "\n";
      } else {
        const bool table = j < lines.size() && starts_with(trim(lines[j]), "|");
        for (; j < lines.size() && !trim(lines[j]).empty() &&
               starts_with(trim(lines[j]), "|") == table;
             ++j)
          block += lines[j] + "\n";
        --j;
      }
      if (block.empty()) problems.push_back({file, q.line, "a marker with no block after it"});
      if (runs && q.command.empty()) problems.push_back({file, q.line, "a marker without a command"});
      q.block = block;
      if (runs && !block.empty()) outputs.push_back(q);
      i = j;
      continue;
    }
    if (starts_with(t, "```")) {
      if (output_fence(t))
        problems.push_back({file, static_cast<int>(i) + 1,
                            "a quoted output without a '<!-- checked: ... -->' or "
                            "'<!-- not checked: ... -->' line before it"});
      for (++i; i < lines.size() && !starts_with(trim(lines[i]), "```");) ++i;
    }
  }
}

}  // namespace fedsim::test::docs
