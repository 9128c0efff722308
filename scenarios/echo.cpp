#include "scenarios/echo.hpp"

#include <cstdio>

namespace fedsim::scenario {
namespace {

/// Length of the well-formed UTF-8 sequence starting at text[i] (1 to 4), 0 if there is none.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c == 0xED) n = 3, hi = 0x9F;  // no UTF-16 surrogates
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;  // nothing past U+10FFFF
  else return 0;
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

std::string hex(const char* format, unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

/// Escapes `text` into one printable line of at most about max_bytes; true if it was cut.
bool escape(std::string_view text, std::size_t max_bytes, bool quoting, std::string& out) {
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= max_bytes) return true;
    const std::size_t n = utf8_length(text, i);
    const auto c = static_cast<unsigned char>(text[i]);
    if (n == 0) {
      out += hex("\\x%02x", c);
      ++i;
      continue;
    }
    if (n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      out += hex("\\u%04x", static_cast<unsigned char>(text[i + 1]));  // C1 control
    } else if (n > 1) {
      out.append(text.substr(i, n));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += hex("\\x%02x", c);
    } else if (quoting && (c == '\\' || c == '\'')) {
      out += '\\';
      out += static_cast<char>(c);
    } else {
      out += static_cast<char>(c);
    }
    i += n;
  }
  return false;
}

}  // namespace

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string quote(std::string_view text, std::size_t max_bytes) {
  std::string out = "'";
  if (escape(text, max_bytes + 1, true, out))
    return out + "...' (" + std::to_string(text.size()) + " bytes)";
  return out + "'";
}

std::string one_line(std::string_view message, std::size_t max_bytes) {
  std::string out;
  if (escape(message, max_bytes, false, out))
    out += "... (" + std::to_string(message.size()) + " bytes)";
  return out;
}

}  // namespace fedsim::scenario
