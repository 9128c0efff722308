#pragma once
/// How an external evaluator reaches its workers: a command started `workers` times, or a TCP
/// evaluation service with `workers` connections; timeouts, failure policy and limits.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fedsim::external {

enum class WorkerKind { command, tcp };
/// What happens to an evaluation whose attempt failed: fail it at once (skip), try again up
/// to `max_retries` more times (retry), or fail it and put the evaluator in its fatal state
/// (abort: every queued and later request fails with `aborted`).
enum class OnFailure { skip, retry, abort };

struct Settings {
  WorkerKind kind = WorkerKind::command;
  std::vector<std::string> command;  ///< argv; argv[0] is looked up in PATH
  std::string address;               ///< tcp: "HOST:PORT", HOST an IP literal ("[::1]:PORT")
  int workers = 1;                   ///< processes (connections) kept alive and reused
  double timeout = 60;               ///< wall seconds per attempt, from taking the request
  OnFailure on_failure = OnFailure::retry;
  int max_retries = 2;  ///< retry: attempts beyond the first
  /// Each worker's stderr is appended to <log_folder>/worker-<slot>.log (created if missing);
  /// empty: the workers inherit fedsim's stderr.
  std::filesystem::path log_folder;
  std::size_t max_line_bytes = std::size_t{1} << 20;  ///< longest answer line accepted
  double backoff_initial = 0.05;  ///< seconds before a failed worker is started again,
  double backoff_max = 2.0;       ///< doubling per failure in a row up to this bound
};

/// Throws std::invalid_argument with one line naming the key and what it allows
/// ("workers: must be an integer in [1, 256], got 0").
void validate(const Settings& settings);

std::string_view worker_kind_name(WorkerKind kind);
std::optional<WorkerKind> worker_kind_from_name(std::string_view name);
std::string_view on_failure_name(OnFailure policy);
std::optional<OnFailure> on_failure_from_name(std::string_view name);

/// "HOST:PORT" split into the IP literal and the port; std::nullopt when malformed (no port,
/// a port outside 1..65535, a host that is not an IPv4 or bracketed IPv6 literal).
struct Address {
  std::string host;
  unsigned short port = 0;
};
std::optional<Address> parse_address(std::string_view text);

}  // namespace fedsim::external
