#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/rng.hpp"

using fedsim::RandomStream;

TEST_CASE("streams with the same key repeat, different keys differ", "[rng]") {
  RandomStream a(42, "agent", 7), b(42, "agent", 7), c(42, "agent", 8), d(43, "agent", 7),
      e(42, "server", 7);
  for (int i = 0; i < 100; ++i) {
    const auto va = a.next_u64();
    REQUIRE(va == b.next_u64());
    CHECK(va != c.next_u64());
    CHECK(va != d.next_u64());
    CHECK(va != e.next_u64());
  }
}

TEST_CASE("a derived stream does not depend on how far the parent has advanced", "[rng]") {
  RandomStream parent(1, "agent", 3);
  const auto child_before = parent.derive("ts", 5).next_u64();
  for (int i = 0; i < 10; ++i) parent.normal();
  CHECK(parent.derive("ts", 5).next_u64() == child_before);
  CHECK(parent.derive("ts", 6).next_u64() != child_before);
}

TEST_CASE("uniform and normal draws have the right moments", "[rng]") {
  // n = 200000: standard error of the mean of U(0,1) is 0.29/sqrt(n) = 6.5e-4; we allow 5 SE.
  RandomStream rng(2024, "moments");
  const int n = 200000;
  double su = 0, su2 = 0, sn = 0, sn2 = 0, sn4 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    su += u;
    su2 += u * u;
    const double z = rng.normal();
    sn += z;
    sn2 += z * z;
    sn4 += z * z * z * z;
  }
  CHECK(su / n == Approx(0.5).margin(5 * 0.2887 / std::sqrt(n)));
  CHECK(su2 / n - std::pow(su / n, 2) == Approx(1.0 / 12).margin(0.002));
  CHECK(sn / n == Approx(0.0).margin(5.0 / std::sqrt(n)));
  CHECK(sn2 / n == Approx(1.0).margin(5 * std::sqrt(2.0 / n)));
  CHECK(sn4 / n == Approx(3.0).margin(5 * std::sqrt(96.0 / n)));
}

TEST_CASE("uniform_index is unbiased over a small range", "[rng]") {
  RandomStream rng(5, "index");
  std::vector<int> counts(7, 0);
  const int n = 70000;
  for (int i = 0; i < n; ++i) ++counts[rng.uniform_index(7)];
  // Each count ~ Binomial(n, 1/7): sd = sqrt(n p (1-p)) ~ 92.6; allow 5 sd.
  for (int c : counts) CHECK(std::abs(c - n / 7) < 5 * 92.6);
}
