#include "actors/network_availability.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace fedsim::actors {
namespace {

/// One field of a line: its text without surrounding blanks and its column (from 1).
struct Field {
  std::string_view text;
  std::size_t column;
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<Field> split(std::string_view line) {
  std::vector<Field> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    std::size_t a = begin, b = end;
    while (a < b && blank(line[a])) ++a;
    while (b > a && blank(line[b - 1])) --b;
    fields.push_back({line.substr(a, b - a), a + 1});
    if (comma == std::string_view::npos) return fields;
    begin = comma + 1;
  }
}

/// Shows a field in an error, quoted and cut short.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out + (s.size() > 40 ? "...'" : "'");
}

class Parser {
 public:
  Parser(const std::string& source, int num_agents) : source_(source), num_agents_(num_agents) {}

  [[noreturn]] void fail(std::size_t column, const std::string& what) const {
    throw std::invalid_argument(source_ + ":" + std::to_string(line_) + ":" +
                                std::to_string(column) + ": " + what);
  }

  int agent(const Field& f) const {
    int v = 0;
    const char* first = f.text.data();
    const char* last = first + f.text.size();
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range)
      fail(f.column, "agent id " + quoted(f.text) + " out of range");
    if (ec != std::errc() || ptr != last || f.text.empty())
      fail(f.column, "agent id must be a whole decimal integer, got " + quoted(f.text));
    if (v < 0 || v >= num_agents_)
      fail(f.column, "agent id must be in 0.." + std::to_string(num_agents_ - 1) + ", got " +
                         std::to_string(v));
    return v;
  }

  double number(const Field& f, const char* name) const {
    double v = 0.0;
    const char* first = f.text.data();
    const char* last = first + f.text.size();
    const auto [ptr, ec] = std::from_chars(first, last, v, std::chars_format::general);
    if (ec == std::errc::result_out_of_range)
      fail(f.column, std::string(name) + " " + quoted(f.text) + " out of range");
    if (ec != std::errc() || ptr != last || f.text.empty())
      fail(f.column, std::string(name) + " must be a decimal number, got " + quoted(f.text));
    if (std::isnan(v)) fail(f.column, std::string(name) + " must be a number, got NaN");
    return v;
  }

  std::vector<AvailabilityRecord> parse(std::string_view text) {
    std::vector<AvailabilityRecord> out;
    std::size_t begin = 0;
    while (begin < text.size()) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = text.substr(begin, end - begin);
      begin = end + 1;
      ++line_;
      const std::vector<Field> fields = split(line);
      if (fields.size() == 1 && fields[0].text.empty()) continue;  // a blank line
      if (fields.size() != 3)
        fail(fields.size() > 3 ? fields[3].column : line.size() + 1,
             "expected 3 columns 'agent,start,end', got " + std::to_string(fields.size()));
      if (line_ == 1 && fields[0].text == "agent" && fields[1].text == "start" &&
          fields[2].text == "end")
        continue;  // the header
      AvailabilityRecord r;
      r.agent = agent(fields[0]);
      r.start = number(fields[1], "start");
      r.end = number(fields[2], "end");
      if (!(std::isfinite(r.start) && r.start >= 0))
        fail(fields[1].column, "start must be a finite number >= 0, got " + quoted(fields[1].text));
      if (!(r.end > r.start))
        fail(fields[2].column, "end must be > start, got " + quoted(fields[2].text));
      out.push_back(r);
    }
    return out;
  }

 private:
  const std::string& source_;
  int num_agents_;
  int line_ = 0;
};

}  // namespace

std::vector<AvailabilityRecord> parse_availability(std::string_view text, const std::string& source,
                                                   int num_agents) {
  return Parser(source, num_agents).parse(text);
}

std::vector<AvailabilityRecord> read_availability_file(const std::string& file, int num_agents) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  if (!in || !(text << in.rdbuf()))
    throw std::invalid_argument(file + ": cannot read the availability trace");
  return parse_availability(text.str(), file, num_agents);
}

}  // namespace fedsim::actors
