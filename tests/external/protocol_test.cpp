// The line protocol's pure half: the request line and the answer parser, at its edges.
#include "external/protocol.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

using namespace fedsim::external;

namespace {

FailureKind error_kind(const ParsedLine& parsed) {
  REQUIRE(std::holds_alternative<ProtocolError>(parsed));
  return std::get<ProtocolError>(parsed).kind;
}

}  // namespace

TEST_CASE("encode_request writes the documented line, doubles round-trip", "[external]") {
  CHECK(encode_request({17, 3, 5, {0.1, 0.7}}) ==
        "{\"id\":17,\"agent\":3,\"iteration\":5,\"x\":[0.1,0.7]}\n");
  CHECK(encode_request({0, 0, 0, {}}) == "{\"id\":0,\"agent\":0,\"iteration\":0,\"x\":[]}\n");
  // The shortest text that reads back as the same double.
  const double third = 1.0 / 3.0, tiny = 5e-324, big = 1.7976931348623157e308;
  const auto line = encode_request({1, 0, 0, {third, tiny, big, -0.0}});
  CHECK(line ==
        "{\"id\":1,\"agent\":0,\"iteration\":0,\"x\":[0.3333333333333333,5e-324,"
        "1.7976931348623157e+308,-0.0]}\n");
}

TEST_CASE("parse_response reads y, f and cost", "[external]") {
  auto parsed = parse_response(R"({"id": 17, "y": 0.42})", 17);
  REQUIRE(std::holds_alternative<Reply>(parsed));
  CHECK(std::get<Reply>(parsed).y == 0.42);
  CHECK(!std::get<Reply>(parsed).f);
  CHECK(!std::get<Reply>(parsed).cost);

  parsed = parse_response(R"({"cost": 2.5, "f": -1e-3, "y": -3, "id": 9, "extra": [1, {}]})", 9);
  REQUIRE(std::holds_alternative<Reply>(parsed));
  CHECK(std::get<Reply>(parsed).y == -3);
  CHECK(std::get<Reply>(parsed).f == -1e-3);
  CHECK(std::get<Reply>(parsed).cost == 2.5);
  // cost 0 is allowed; the largest id too.
  CHECK(std::holds_alternative<Reply>(parse_response(R"({"id": 1, "y": 1, "cost": 0})", 1)));
  CHECK(std::holds_alternative<Reply>(
      parse_response(R"({"id": 18446744073709551615, "y": 1})", 18446744073709551615ull)));
}

TEST_CASE("parse_response: the worker's error wins over y", "[external]") {
  auto parsed = parse_response(R"({"id": 4, "error": "diverged", "y": 1})", 4);
  REQUIRE(std::holds_alternative<WorkerError>(parsed));
  CHECK(std::get<WorkerError>(parsed).message == "diverged");
  parsed = parse_response(R"({"id": 4, "error": {"code": 3}})", 4);
  REQUIRE(std::holds_alternative<WorkerError>(parsed));
  CHECK(std::get<WorkerError>(parsed).message == "{\\x22code\\x22:3}");
  // Long messages are cut, control characters escaped.
  const std::string long_error = R"({"id": 4, "error": ")" + std::string(5000, 'e') + "\\n\"}";
  parsed = parse_response(long_error, 4);
  REQUIRE(std::holds_alternative<WorkerError>(parsed));
  CHECK(std::get<WorkerError>(parsed).message == std::string(200, 'e') + "...");
  // An error with another request's id is a wrong_id.
  CHECK(error_kind(parse_response(R"({"id": 5, "error": "x"})", 4)) == FailureKind::wrong_id);
}

TEST_CASE("parse_response names each protocol error", "[external]") {
  CHECK(error_kind(parse_response("", 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response("hello", 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1)", 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1}{})", 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response("[1, 2]", 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response("0.5", 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response("null", 1)) == FailureKind::not_json);

  CHECK(error_kind(parse_response(R"({"y": 1})", 1)) == FailureKind::wrong_id);
  CHECK(error_kind(parse_response(R"({"id": 2, "y": 1})", 1)) == FailureKind::wrong_id);
  CHECK(error_kind(parse_response(R"({"id": 1.0, "y": 1})", 1)) == FailureKind::wrong_id);
  CHECK(error_kind(parse_response(R"({"id": "1", "y": 1})", 1)) == FailureKind::wrong_id);
  CHECK(error_kind(parse_response(R"({"id": -1, "y": 1})", 18446744073709551615ull)) ==
        FailureKind::wrong_id);
  CHECK(error_kind(parse_response(R"({"id": true, "y": 1})", 1)) == FailureKind::wrong_id);

  CHECK(error_kind(parse_response(R"({"id": 1})", 1)) == FailureKind::bad_y);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": "0.5"})", 1)) == FailureKind::bad_y);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": null})", 1)) == FailureKind::bad_y);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": true})", 1)) == FailureKind::bad_y);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": [1]})", 1)) == FailureKind::bad_y);
  // A number beyond the double range does not parse at all.
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1e999})", 1)) == FailureKind::not_json);
  // What Python's json.dumps writes for non-finite floats.
  for (const char* token : {"NaN", "Infinity", "-Infinity"}) {
    const auto parsed = parse_response(std::string(R"({"id": 1, "y": )") + token + "}", 1);
    CHECK(error_kind(parsed) == FailureKind::bad_y);
    CHECK_THAT(std::get<ProtocolError>(parsed).message, Catch::Contains("NaN/Infinity"));
  }
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1, "f": NaN})", 1)) == FailureKind::bad_field);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1, "f": "x"})", 1)) == FailureKind::bad_field);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1, "cost": -0.5})", 1)) ==
        FailureKind::bad_field);
  CHECK(error_kind(parse_response(R"({"id": 1, "y": 1, "cost": Infinity})", 1)) ==
        FailureKind::bad_field);
}

TEST_CASE("parse_response messages quote the line safely", "[external]") {
  const auto parsed = parse_response(std::string("\x1b[31m\"oops\xff") + std::string(300, 'z'), 1);
  REQUIRE(error_kind(parsed) == FailureKind::not_json);
  const auto& message = std::get<ProtocolError>(parsed).message;
  CHECK_THAT(message, Catch::StartsWith("not JSON: \"\\x1b[31m\\x22oops\\xff"));
  CHECK_THAT(message, Catch::EndsWith("...\""));
  CHECK(message.size() < 150);
  // Deep nesting does not overflow anything.
  CHECK(error_kind(parse_response(std::string(100000, '['), 1)) == FailureKind::not_json);
  CHECK(error_kind(parse_response(std::string(50000, '[') + std::string(50000, ']'), 1)) ==
        FailureKind::not_json);
}
