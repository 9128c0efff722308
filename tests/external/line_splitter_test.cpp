// The line splitter: lines across chunks, CRLF, and the cap on what it holds.
#include "external/line_splitter.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using fedsim::external::LineSplitter;

namespace {

struct Collect {
  std::vector<std::string> lines;
  std::function<bool(std::string&&)> sink() {
    return [this](std::string&& line) {
      lines.push_back(std::move(line));
      return true;
    };
  }
};

}  // namespace

TEST_CASE("LineSplitter joins chunks and strips one CR", "[external]") {
  LineSplitter splitter(16);
  Collect c;
  CHECK(splitter.feed("ab", c.sink()));
  CHECK(c.lines.empty());
  CHECK(splitter.feed("c\nde\r\n\n\r\r\nf", c.sink()));
  CHECK(c.lines == std::vector<std::string>{"abc", "de", "", "\r"});
  CHECK(splitter.buffered() == 1);
  CHECK(splitter.feed("\n", c.sink()));
  CHECK(c.lines.back() == "f");
}

TEST_CASE("LineSplitter accepts max_line bytes and refuses one more", "[external]") {
  for (const std::string ending : {"\n", "\r\n"}) {
    LineSplitter ok(8);
    Collect c;
    CHECK(ok.feed(std::string(8, 'a') + ending, c.sink()));
    CHECK(c.lines == std::vector<std::string>{std::string(8, 'a')});
    LineSplitter over(8);
    CHECK(!over.feed(std::string(9, 'a') + ending, c.sink()));
    CHECK(over.too_long());
    CHECK(c.lines.size() == 1);
  }
  // Without a newline yet: 8 bytes are fine, 9 wait for a possible "\n" only after "\r".
  LineSplitter wait(8);
  Collect c;
  CHECK(wait.feed(std::string(8, 'a') + "\r", c.sink()));
  CHECK(wait.feed("\n", c.sink()));
  CHECK(c.lines == std::vector<std::string>{std::string(8, 'a')});
  LineSplitter refuse(8);
  CHECK(!refuse.feed(std::string(9, 'a'), c.sink()));
}

TEST_CASE("LineSplitter never holds more than the cap of a megabyte line", "[external]") {
  LineSplitter splitter(1 << 20);
  Collect c;
  const std::string chunk(65536, 'x');
  int fed = 0;
  while (splitter.feed(chunk, c.sink())) {
    ++fed;
    REQUIRE(splitter.buffered() <= (1u << 20) + 1);
    REQUIRE(fed < 100);
  }
  CHECK(fed == 16);  // 16 chunks = exactly 1 MiB held, the 17th is over
  CHECK(splitter.buffered() == 0);
  // Sticky: nothing more is read.
  CHECK(!splitter.feed("\n{\"id\": 1}\n", c.sink()));
  CHECK(c.lines.empty());
}

TEST_CASE("LineSplitter stops when the sink says so", "[external]") {
  LineSplitter splitter(16);
  std::vector<std::string> lines;
  CHECK(splitter.feed("a\nb\nc\n", [&](std::string&& line) {
    lines.push_back(line);
    return lines.size() < 2;
  }));
  CHECK(lines == std::vector<std::string>{"a", "b"});
}
