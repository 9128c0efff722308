#include "scenarios/toml_depth.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/test_files.hpp"

using namespace fedsim::scenario;

namespace {
std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}
}  // namespace

TEST_CASE("nesting depth: dotted keys, headers, inline tables and arrays each count",
          "[scenario][depth]") {
  // 64 levels pass, 65 do not, however they are made.
  const auto dotted = [](int n) { return "a" + repeat(".a", n - 1) + " = 1\n"; };
  CHECK_FALSE(find_depth_excess(dotted(64)));
  CHECK(find_depth_excess(dotted(65)));
  const auto header = [](int n) { return "[a" + repeat(".a", n - 2) + "]\nx = 1\n"; };
  CHECK_FALSE(find_depth_excess(header(64)));
  CHECK(find_depth_excess(header(65)));
  CHECK(find_depth_excess("[[a" + repeat(".a", 63) + "]]\nx = 1\n"));
  const auto arrays = [](int n) { return "x = " + repeat("[", n - 1) + repeat("]", n - 1) + "\n"; };
  CHECK_FALSE(find_depth_excess(arrays(64)));
  CHECK(find_depth_excess(arrays(65)));
  const auto inline_tables = [](int n) { return "x = " + repeat("{ a = ", n - 1) + "1" + repeat(" }", n - 1) + "\n"; };
  CHECK_FALSE(find_depth_excess(inline_tables(64)));
  CHECK(find_depth_excess(inline_tables(65)));
  // Mixed: a header of 30, a dotted key of 30 and 10 arrays.
  CHECK(find_depth_excess("[a" + repeat(".a", 29) + "]\nb" + repeat(".b", 29) + " = " +
                          repeat("[", 10) + repeat("]", 10) + "\n"));
  // The line and column of the first excess.
  const auto at = find_depth_excess("x = 1\n" + dotted(100));
  REQUIRE(at);
  CHECK(at->line == 2);
  CHECK(at->column == 128);
}

TEST_CASE("nesting depth ignores dots in strings, comments, numbers and values",
          "[scenario][depth]") {
  const std::string dots = repeat(".", 500);
  CHECK_FALSE(find_depth_excess("x = \"" + dots + "\"\n"));
  CHECK_FALSE(find_depth_excess("x = '" + dots + "'\n"));
  CHECK_FALSE(find_depth_excess("x = \"\"\"\n" + dots + "\n\"\"\"\ny = 1\n"));
  CHECK_FALSE(find_depth_excess("x = '''" + dots + "'''\n"));
  CHECK_FALSE(find_depth_excess("# " + dots + "\nx = 1\n"));
  CHECK_FALSE(find_depth_excess("\"" + dots + "\" = 1\n"));  // a quoted key is one segment
  CHECK_FALSE(find_depth_excess("x = [" + repeat("1.5, ", 500) + "]\n"));
  CHECK_FALSE(find_depth_excess("x = [\n" + repeat("  { a.b = 1.5 },\n", 500) + "]\n"));
  CHECK_FALSE(find_depth_excess("x = \"\\\"" + dots + "\"\n"));  // an escaped quote
}

TEST_CASE("every shipped scenario is far from the nesting limit", "[scenario][depth]") {
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(FEDSIM_SCENARIO_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path());
    CHECK_FALSE(find_depth_excess(fedsim::test::slurp(entry.path()), 8));
  }
}
