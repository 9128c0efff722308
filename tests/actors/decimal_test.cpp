#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "actors/csv_writer.hpp"
#include "actors/decimal.hpp"
#include "engine/rng.hpp"
#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

using fedsim::actors::append_g10;
using fedsim::actors::append_int;

namespace {

std::string printf_g10(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string g10(double v) {
  std::string s;
  append_g10(s, v);
  return s;
}

}  // namespace

TEST_CASE("append_g10 writes what printf's %.10g writes", "[actors][output]") {
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 1e10, 9999999999.5, 123456789012.0, 1e-5,
                   1e-300, inf, -inf, std::numeric_limits<double>::quiet_NaN(),
                   -std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()}) {
    INFO(printf_g10(v));
    CHECK(g10(v) == printf_g10(v));
  }
  // Every bit pattern is a double: a million of them, and a million values of the sizes runs
  // write (times, regrets, coordinates), some of them whole numbers (50000 of each in CI's ASan
  // job, where printf and g10 are instrumented).
  fedsim::RandomStream rng(7, "decimal_test");
  std::size_t differ = 0;
  const int count = fedsim::test::under_sanitizer() ? 50000 : 1000000;
  for (int k = 0; k < count; ++k) {
    const std::uint64_t bits = rng.next_u64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    const double w = rng.uniform(-1e4, 1e4);
    for (double x : {v, w, std::round(w), w * 1e-7}) differ += g10(x) != printf_g10(x);
  }
  CHECK(differ == 0);
}

TEST_CASE("append_int writes integers as printf does, extremes included", "[actors][output]") {
  std::string s;
  append_int(s, std::numeric_limits<std::int64_t>::min());
  s += ' ';
  append_int(s, std::numeric_limits<std::uint64_t>::max());
  s += ' ';
  append_int(s, std::int32_t{-1});
  s += ' ';
  append_int(s, std::uint32_t{0});
  CHECK(s == "-9223372036854775808 18446744073709551615 -1 0");
}

TEST_CASE("CsvWriter separates every cell, an empty first one included", "[actors][output]") {
  const auto dir = fedsim::test::fresh_dir("csv-writer");
  std::filesystem::create_directories(dir);
  {
    fedsim::actors::CsvWriter csv(dir / "t.csv", {"a", "b", "c", "d"});
    csv.row(std::string(), 1.5, true, std::int64_t{-3});
    csv.begin_row();
    csv.cells(std::string("x"));
    csv.cells(std::numeric_limits<double>::quiet_NaN(), 2);
    csv.cells("y");
    csv.end_row();
  }
  CHECK(fedsim::test::slurp(dir / "t.csv") == "a,b,c,d\n,1.5,1,-3\nx,nan,2,y\n");
}
