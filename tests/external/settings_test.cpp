// Settings of an external evaluator: each bad value names its key.
#include "external/settings.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "external/outcome.hpp"

using namespace fedsim::external;

namespace {

std::string error_of(const Settings& s) {
  try {
    validate(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

Settings command_settings() {
  Settings s;
  s.command = {"python3", "objective.py"};
  return s;
}

}  // namespace

TEST_CASE("validate names the key of each bad setting", "[external]") {
  CHECK(error_of(command_settings()).empty());
  Settings s = command_settings();
  s.command.clear();
  CHECK_THAT(error_of(s), Catch::StartsWith("command: "));
  s.command = {""};
  CHECK_THAT(error_of(s), Catch::StartsWith("command: "));
  s = command_settings();
  s.workers = 0;
  CHECK(error_of(s) == "workers: must be an integer in [1, 256], got 0");
  s.workers = 257;
  CHECK_THAT(error_of(s), Catch::StartsWith("workers: "));
  s = command_settings();
  for (double bad : {0.0, -1.0, std::nan(""), 1e300}) {
    s.timeout = bad;
    CHECK_THAT(error_of(s), Catch::StartsWith("timeout: "));
  }
  s = command_settings();
  s.max_retries = -1;
  CHECK_THAT(error_of(s), Catch::StartsWith("max_retries: "));
  s = command_settings();
  s.max_line_bytes = 10;
  CHECK_THAT(error_of(s), Catch::StartsWith("max_line_bytes: "));
  s = command_settings();
  s.backoff_max = 0.01;
  CHECK_THAT(error_of(s), Catch::StartsWith("backoff_max: "));

  Settings tcp;
  tcp.kind = WorkerKind::tcp;
  tcp.address = "127.0.0.1:5000";
  CHECK(error_of(tcp).empty());  // no command needed
  tcp.address = "localhost:5000";
  CHECK_THAT(error_of(tcp), Catch::StartsWith("address: "));
}

TEST_CASE("parse_address takes IP literals and ports 1..65535", "[external]") {
  const auto a = parse_address("127.0.0.1:8080");
  REQUIRE(a);
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 8080);
  const auto v6 = parse_address("[::1]:65535");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->port == 65535);
  for (const char* bad :
       {"", ":80", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:80x",
        "127.0.0.1:-1", "::1:80", "[127.0.0.1]:80", "host:80", "256.0.0.1:80", "127.0.0.1: 80"})
    CHECK_FALSE(parse_address(bad));
}

TEST_CASE("kind and on_failure names round-trip, unknown names are refused", "[external]") {
  for (auto k : {WorkerKind::command, WorkerKind::tcp})
    CHECK(worker_kind_from_name(worker_kind_name(k)) == k);
  for (auto p : {OnFailure::skip, OnFailure::retry, OnFailure::abort})
    CHECK(on_failure_from_name(on_failure_name(p)) == p);
  CHECK_FALSE(worker_kind_from_name("process"));
  CHECK_FALSE(on_failure_from_name("Retry"));
  CHECK(failure_kind_name(FailureKind::line_too_long) == "line_too_long");
}
