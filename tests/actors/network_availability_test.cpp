#include "actors/network_availability.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tests/test_files.hpp"

using namespace fedsim::actors;

namespace {

/// The error of parsing `text` as trace "t.csv" for 4 agents ("" if it parses).
std::string error_of(const std::string& text) {
  try {
    parse_availability(text, "t.csv", 4);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("availability traces: well-formed input", "[actors][availability]") {
  const auto r =
      parse_availability("agent,start,end\n3,0,6.5\n\n 1 , 2.5e1 ,inf\r\n0,0,1", "t.csv", 4);
  REQUIRE(r.size() == 3);
  CHECK(r[0].agent == 3);
  CHECK(r[0].start == 0.0);
  CHECK(r[0].end == 6.5);
  CHECK(r[1].agent == 1);
  CHECK(r[1].start == 25.0);
  CHECK(std::isinf(r[1].end));
  CHECK(r[2].end == 1.0);  // no final newline
  CHECK(parse_availability("", "t.csv", 4).empty());
  CHECK(parse_availability("agent,start,end\n", "t.csv", 4).size() == 0);
  CHECK(parse_availability("2,1,3\n", "t.csv", 4).size() == 1);  // no header
}

TEST_CASE("availability traces: every malformed field is refused naming line and column",
          "[actors][availability]") {
  // Accepted silently by std::stoi / std::stod before.
  CHECK(error_of("agent,start,end\n1x,0,1\n") ==
        "t.csv:2:1: agent id must be a whole decimal integer, got '1x'");
  CHECK(error_of("1,2y,3\n") == "t.csv:1:3: start must be a decimal number, got '2y'");
  CHECK(error_of("1e3,0,1\n") == "t.csv:1:1: agent id must be a whole decimal integer, got '1e3'");
  CHECK(error_of("1,0x10,20\n") == "t.csv:1:3: start must be a decimal number, got '0x10'");
  CHECK(error_of("1,0,1,7\n") == "t.csv:1:7: expected 3 columns 'agent,start,end', got 4");
  CHECK(error_of("1,0,1,\n") == "t.csv:1:7: expected 3 columns 'agent,start,end', got 4");
  // Out of range: named, not a bare "stoi".
  CHECK(error_of("99999999999999999999,0,1\n") ==
        "t.csv:1:1: agent id '99999999999999999999' out of range");
  CHECK(error_of("1,1e999,2\n") == "t.csv:1:3: start '1e999' out of range");
  CHECK(error_of("4,0,1\n") == "t.csv:1:1: agent id must be in 0..3, got 4");
  CHECK(error_of("-1,0,1\n") == "t.csv:1:1: agent id must be in 0..3, got -1");
  // Missing or empty fields, wrong order, non-finite start, NaN.
  CHECK(error_of("1,2\n") == "t.csv:1:4: expected 3 columns 'agent,start,end', got 2");
  CHECK(error_of("1,,2\n") == "t.csv:1:3: start must be a decimal number, got ''");
  CHECK(error_of("+1,0,1\n") == "t.csv:1:1: agent id must be a whole decimal integer, got '+1'");
  CHECK(error_of("1,5,5\n") == "t.csv:1:5: end must be > start, got '5'");
  CHECK(error_of("1,-1,5\n") == "t.csv:1:3: start must be a finite number >= 0, got '-1'");
  CHECK(error_of("1,inf,inf\n") == "t.csv:1:3: start must be a finite number >= 0, got 'inf'");
  CHECK(error_of("1,0,nan\n") == "t.csv:1:5: end must be a number, got NaN");
  // A header is only the first line, and only exactly "agent,start,end".
  CHECK(error_of("0,0,1\nagent,start,end\n") ==
        "t.csv:2:1: agent id must be a whole decimal integer, got 'agent'");
  CHECK(error_of("agent,begin,end\n") ==
        "t.csv:1:1: agent id must be a whole decimal integer, got 'agent'");
  // Garbage bytes are not echoed raw.
  CHECK(error_of(std::string("\x01\xff,0,1\n")) ==
        "t.csv:1:1: agent id must be a whole decimal integer, got '??'");
}

TEST_CASE("availability traces: the file reader names a missing file", "[actors][availability]") {
  const auto dir = fedsim::test::fresh_dir("availability");
  CHECK_THROWS_WITH(read_availability_file((dir / "none.csv").string(), 4),
                    Catch::Contains("none.csv: cannot read the availability trace"));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.csv") << "agent,start,end\n0,0,1\n2,1,3x\n";
  CHECK_THROWS_WITH(read_availability_file((dir / "bad.csv").string(), 4),
                    Catch::Contains("bad.csv:3:5: end must be a decimal number, got '3x'"));
}
