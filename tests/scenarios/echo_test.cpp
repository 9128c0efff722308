#include "scenarios/echo.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace fedsim::scenario;

TEST_CASE("valid_utf8 accepts well-formed UTF-8 only", "[scenario][echo]") {
  CHECK(valid_utf8(""));
  CHECK(valid_utf8("plain ascii"));
  CHECK(valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // 2, 3 and 4 bytes
  CHECK_FALSE(valid_utf8("\xff"));
  CHECK_FALSE(valid_utf8("caf\xe9"));              // Latin-1
  CHECK_FALSE(valid_utf8("\xc3"));                 // cut short
  CHECK_FALSE(valid_utf8("\xc0\xaf"));             // overlong '/'
  CHECK_FALSE(valid_utf8("\xed\xa0\x80"));         // a UTF-16 surrogate
  CHECK_FALSE(valid_utf8("\xf4\x90\x80\x80"));     // past U+10FFFF
}

TEST_CASE("quote escapes what would break a line or reach the terminal, and bounds it",
          "[scenario][echo]") {
  CHECK(quote("algorithm.q") == "'algorithm.q'");
  CHECK(quote("a\nb\tc\rd") == "'a\\nb\\tc\\rd'");
  CHECK(quote("\x1b[31m") == "'\\x1b[31m'");
  CHECK(quote("\x7f") == "'\\x7f'");
  CHECK(quote("\xc2\x9b" "2J") == "'\\u009b2J'");  // C1 CSI
  CHECK(quote("caf\xc3\xa9") == "'caf\xc3\xa9'");   // printable UTF-8 stays
  CHECK(quote("caf\xe9") == "'caf\\xe9'");
  CHECK(quote("it's a\\b") == "'it\\'s a\\\\b'");
  const std::string q = quote(std::string(5'000'000, 'k'), 100);
  CHECK(q.size() < 130);
  CHECK(q.find("(5000000 bytes)") != std::string::npos);
  // Cut at a character, never inside one.
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xe2\x82\xac";
  CHECK(valid_utf8(quote(euros, 50)));
}

TEST_CASE("one_line keeps quotes but escapes control bytes and caps the length",
          "[scenario][echo]") {
  CHECK(one_line("key 'x': bad") == "key 'x': bad");
  CHECK(one_line("two\nlines") == "two\\nlines");
  const std::string m = one_line(std::string(10000, 'm'), 2000);
  CHECK(m.size() < 2050);
  CHECK(m.find("(10000 bytes)") != std::string::npos);
}
