#pragma once
/// Echoing text from outside the process (keys, values, file names) in a one-line error
/// message: nothing it holds can break the line, reach the terminal as control bytes or make
/// the line megabytes long.
#include <cstddef>
#include <string>
#include <string_view>

namespace fedsim::scenario {

/// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
/// U+10FFFF).
bool valid_utf8(std::string_view text);

/// `text` in single quotes, made printable: line breaks and tabs as \n \r \t, other control
/// characters (C0, DEL, C1) as \xNN or \u00NN, bytes that are not UTF-8 as \xNN, a backslash
/// or quote as \\ and \'. Longer than max_bytes: cut at a character and ended with
/// "...' (N bytes)".
std::string quote(std::string_view text, std::size_t max_bytes = 120);

/// A whole message made one printable line, escaped like quote() (quotes and backslashes kept
/// as they are) and cut at max_bytes.
std::string one_line(std::string_view message, std::size_t max_bytes = 2000);

}  // namespace fedsim::scenario
