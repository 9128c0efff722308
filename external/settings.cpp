#include "external/settings.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace fedsim::external {

namespace {

void fail(const std::string& key, const std::string& what) {
  throw std::invalid_argument(key + ": " + what);
}

bool ip_literal(const std::string& host) {
  unsigned char buffer[16];
  return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

void check_seconds(const std::string& key, double value, double low) {
  // Bounded above so that a steady_clock deadline cannot overflow.
  if (!(value > low) || !(value <= 1e7))
    fail(key, "must be a number of seconds in (" + std::to_string(low) + ", 1e7], got " +
                  std::to_string(value));
}

}  // namespace

std::optional<Address> parse_address(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string host(text.substr(0, colon));
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (host.find(':') == std::string::npos) return std::nullopt;
  } else if (host.find(':') != std::string::npos) {
    return std::nullopt;  // an IPv6 literal must be bracketed
  }
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
      port > 65535 || !ip_literal(host))
    return std::nullopt;
  return Address{host, static_cast<unsigned short>(port)};
}

void validate(const Settings& s) {
  switch (s.kind) {
    case WorkerKind::command:
      if (s.command.empty() || s.command.front().empty())
        fail("command", "must be a non-empty list of strings (the program and its arguments)");
      break;
    case WorkerKind::tcp:
      if (!parse_address(s.address))
        fail("address",
             "must be \"HOST:PORT\" with HOST an IP literal (127.0.0.1, [::1]) and "
             "PORT in 1..65535, got \"" +
                 s.address + "\"");
      break;
  }
  if (s.workers < 1 || s.workers > 256)
    fail("workers", "must be an integer in [1, 256], got " + std::to_string(s.workers));
  check_seconds("timeout", s.timeout, 0);
  if (s.max_retries < 0 || s.max_retries > 100)
    fail("max_retries", "must be an integer in [0, 100], got " + std::to_string(s.max_retries));
  if (s.max_line_bytes < 64 || s.max_line_bytes > (std::size_t{1} << 30))
    fail("max_line_bytes", "must be in [64, 2^30], got " + std::to_string(s.max_line_bytes));
  check_seconds("backoff_initial", s.backoff_initial, 0);
  check_seconds("backoff_max", s.backoff_max, 0);
  if (s.backoff_max < s.backoff_initial)
    fail("backoff_max", "must be >= backoff_initial (" + std::to_string(s.backoff_initial) +
                            "), got " + std::to_string(s.backoff_max));
}

std::string_view worker_kind_name(WorkerKind kind) {
  switch (kind) {
    case WorkerKind::command:
      return "command";
    case WorkerKind::tcp:
      return "tcp";
  }
  return "unknown";
}

std::optional<WorkerKind> worker_kind_from_name(std::string_view name) {
  for (const auto kind : {WorkerKind::command, WorkerKind::tcp})
    if (worker_kind_name(kind) == name) return kind;
  return std::nullopt;
}

std::string_view on_failure_name(OnFailure policy) {
  switch (policy) {
    case OnFailure::skip:
      return "skip";
    case OnFailure::retry:
      return "retry";
    case OnFailure::abort:
      return "abort";
  }
  return "unknown";
}

std::optional<OnFailure> on_failure_from_name(std::string_view name) {
  for (const auto policy : {OnFailure::skip, OnFailure::retry, OnFailure::abort})
    if (on_failure_name(policy) == name) return policy;
  return std::nullopt;
}

}  // namespace fedsim::external
