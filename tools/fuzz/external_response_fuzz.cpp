// libFuzzer target: the external objective protocol's answer parser, the pure function
// external::parse_response, fed the lines the LineSplitter cuts from the input (as a worker's
// stdout would be) and the whole input as one line. Promise under test: a Reply has a finite
// y, a finite f and a finite cost >= 0 when present; a ProtocolError is one of the parser's
// four kinds; every message is short and printable (quoted bytes escaped); never a crash,
// never an exception.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "external/line_splitter.hpp"
#include "external/protocol.hpp"

namespace ext = fedsim::external;

namespace {

void check_message(const std::string& message, std::size_t max) {
  if (message.size() > max) std::abort();
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      std::abort();  // an unescaped byte reached a message
}

void check(std::string_view line) {
  const auto parsed = ext::parse_response(line, 17);
  if (const auto* reply = std::get_if<ext::Reply>(&parsed)) {
    if (!std::isfinite(reply->y)) std::abort();
    if (reply->f && !std::isfinite(*reply->f)) std::abort();
    if (reply->cost && !(std::isfinite(*reply->cost) && *reply->cost >= 0)) std::abort();
  } else if (const auto* error = std::get_if<ext::WorkerError>(&parsed)) {
    check_message(error->message, 4 * 200 + 3);
  } else {
    const auto& protocol = std::get<ext::ProtocolError>(parsed);
    switch (protocol.kind) {
      case ext::FailureKind::not_json:
      case ext::FailureKind::wrong_id:
      case ext::FailureKind::bad_y:
      case ext::FailureKind::bad_field:
        break;
      case ext::FailureKind::spawn_failed:
      case ext::FailureKind::connect_failed:
      case ext::FailureKind::exited:
      case ext::FailureKind::crashed:
      case ext::FailureKind::closed_output:
      case ext::FailureKind::timeout:
      case ext::FailureKind::line_too_long:
      case ext::FailureKind::unexpected_line:
      case ext::FailureKind::worker_error:
      case ext::FailureKind::invalid_request:
      case ext::FailureKind::aborted:
      case ext::FailureKind::cancelled:
        std::abort();  // not the parser's to give
    }
    check_message(protocol.message, 600);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text);
  ext::LineSplitter splitter(1024);
  splitter.feed(text, [](std::string&& line) {
    if (line.size() > 1024) std::abort();  // the cap holds
    check(line);
    return true;
  });
  return 0;
}
