#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "engine/rng.hpp"
#include "engine/verdict.hpp"

using namespace fedsim;

TEST_CASE("t quantiles: closed forms for 1 and 2 degrees of freedom, tables beyond", "[verdict]") {
  const double pi = std::acos(-1.0);
  // dof 1 (Cauchy): tan(pi (p - 1/2)); dof 2: (2p - 1) sqrt(2 / (4 p (1 - p))), p = (1 + level) / 2.
  for (const double level : {0.5, 0.9, 0.95, 0.99}) {
    const double p = (1.0 + level) / 2.0;
    CHECK(t_quantile(level, 1) == Approx(std::tan(pi * (p - 0.5))).epsilon(1e-10));
    CHECK(t_quantile(level, 2) == Approx((2 * p - 1) * std::sqrt(2.0 / (4 * p * (1 - p)))).epsilon(1e-10));
  }
  // Student's table (two-sided 95 % and 99 %).
  CHECK(t_quantile(0.95, 4) == Approx(2.776445).epsilon(1e-6));
  CHECK(t_quantile(0.95, 9) == Approx(2.262157).epsilon(1e-6));
  CHECK(t_quantile(0.99, 4) == Approx(4.604095).epsilon(1e-6));
  CHECK(t_quantile(0.95, 1e6) == Approx(1.959966).epsilon(1e-5));
  CHECK_THROWS_AS(t_quantile(1.0, 4), std::invalid_argument);
  // Within rounding of 1: (1 + level) / 2 is 1, no finite quantile (boost overflowed).
  CHECK_THROWS_AS(t_quantile(0.9999999999999999, 4), std::invalid_argument);
  CHECK_THROWS_AS(paired_interval({1, 2, 3}, 0.9999999999999999), std::invalid_argument);
  CHECK_THROWS_AS(t_quantile(0.95, 0.5), std::invalid_argument);
}

TEST_CASE("the paired interval of 1..5 by hand, and each claim's verdict on it", "[verdict]") {
  // mean 3, sd sqrt(2.5), se sqrt(0.5), half-width t(0.975, 4) sqrt(0.5) = 1.963243.
  const auto r = paired_interval({1, 2, 3, 4, 5}, 0.95);
  CHECK(r.n == 5);
  CHECK(r.mean == Approx(3.0));
  CHECK(r.sd == Approx(std::sqrt(2.5)));
  CHECK(r.level == Approx(0.95));
  CHECK(r.lower == Approx(3.0 - 2.776445 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(r.upper == Approx(3.0 + 2.776445 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(judge(Claim::less, r) == Verdict::contradicted);
  CHECK(judge(Claim::greater, r) == Verdict::reproduced);
  CHECK(judge(Claim::different, r) == Verdict::reproduced);
  CHECK(judge(Claim::equivalent, r, 5.0) == Verdict::reproduced);    // [1.04, 4.96] inside (-5, 5)
  CHECK(judge(Claim::equivalent, r, 1.0) == Verdict::contradicted);  // wholly above 1
  CHECK(judge(Claim::equivalent, r, 2.0) == Verdict::undecided);     // straddles 2

  // The mirror image: a below b.
  const auto m = paired_interval({-1, -2, -3, -4, -5}, 0.95);
  CHECK(judge(Claim::less, m) == Verdict::reproduced);
  CHECK(judge(Claim::greater, m) == Verdict::contradicted);
  CHECK(judge(Claim::equivalent, m, 1.0) == Verdict::contradicted);

  // An interval across zero decides no order and no difference.
  const auto z = paired_interval({-1, 1, -2, 2, 0.5}, 0.95);
  CHECK(z.lower < 0.0);
  CHECK(z.upper > 0.0);
  CHECK(judge(Claim::less, z) == Verdict::undecided);
  CHECK(judge(Claim::greater, z) == Verdict::undecided);
  CHECK(judge(Claim::different, z) == Verdict::undecided);
}

TEST_CASE("looks split the level: 5 looks at 95 % give each a 99 % interval", "[verdict]") {
  const auto one = paired_interval({1, 2, 3, 4, 5}, 0.95, 1);
  const auto five = paired_interval({1, 2, 3, 4, 5}, 0.95, 5);
  CHECK(five.level == Approx(0.99));
  CHECK(five.upper - five.mean == Approx(4.604095 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(five.upper - five.lower > one.upper - one.lower);
}

TEST_CASE("fewer than two pairs decide nothing, identical results are a point interval", "[verdict]") {
  const auto none = paired_interval({}, 0.95);
  CHECK(none.n == 0);
  CHECK(std::isnan(none.mean));
  CHECK(judge(Claim::less, none) == Verdict::undecided);
  const auto one = paired_interval({-7.0}, 0.95);
  CHECK(one.mean == -7.0);
  CHECK(std::isnan(one.lower));
  CHECK(judge(Claim::less, one) == Verdict::undecided);
  CHECK(judge(Claim::equivalent, one, 100.0) == Verdict::undecided);
  // Same outputs on every seed: a zero-width interval at 0, equivalent under any margin.
  const auto same = paired_interval({0.0, 0.0, 0.0}, 0.95);
  CHECK(same.lower == 0.0);
  CHECK(same.upper == 0.0);
  CHECK(judge(Claim::equivalent, same, 1e-9) == Verdict::reproduced);
  CHECK(judge(Claim::less, same) == Verdict::undecided);
}

TEST_CASE("bad input to the verdict engine is refused", "[verdict]") {
  CHECK_THROWS_AS(paired_interval({1, 2}, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(paired_interval({1, 2}, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(paired_interval({1, 2}, std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(paired_interval({1, 2}, 0.95, 0), std::invalid_argument);
  CHECK_THROWS_AS(paired_interval({1, std::nan("")}, 0.95), std::invalid_argument);
  CHECK_THROWS_AS(paired_interval({1, INFINITY}, 0.95), std::invalid_argument);
  const auto r = paired_interval({1, 2, 3}, 0.95);
  CHECK_THROWS_AS(judge(Claim::equivalent, r, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(judge(Claim::equivalent, r, INFINITY), std::invalid_argument);
  CHECK_THROWS_AS(parse_claim("smaller"), std::invalid_argument);
  for (const auto c : {Claim::less, Claim::greater, Claim::equivalent, Claim::different})
    CHECK(parse_claim(claim_name(c)) == c);
}

TEST_CASE("the t interval covers the true mean 95 % of the time with 5 normal pairs", "[verdict]") {
  // 4000 replicates: the coverage's standard error is sqrt(0.95 * 0.05 / 4000) = 0.0034;
  // the tolerance is 3 of them.
  RandomStream rng(7, "verdict-coverage");
  int covered = 0;
  const int reps = 4000;
  for (int k = 0; k < reps; ++k) {
    std::vector<double> d(5);
    for (auto& x : d) x = rng.normal(0.3, 2.0);
    const auto r = paired_interval(d, 0.95);
    covered += r.lower <= 0.3 && 0.3 <= r.upper;
  }
  CHECK(static_cast<double>(covered) / reps == Approx(0.95).margin(0.0103));
}

TEST_CASE("three looks with the level split keep the chance of a wrong decision under 5 %", "[verdict]") {
  // No difference (mean 0); seeds added in batches of 5 up to 15, stopping at the first look
  // that decides "different". Split over 3 looks, the wrong decisions stay at most 5 %
  // (Bonferroni; 4.4 % here); looking 3 times at 95 % each makes about 10 % (11.4 % here).
  // 4000 replicates: the standard error of a rate near 5 % is 0.0034; the bounds are 2 of them
  // above 5 % and, for the naive looks, well below what they make.
  RandomStream rng(11, "verdict-looks");
  int wrong_split = 0, wrong_naive = 0;
  const int reps = 4000;
  for (int k = 0; k < reps; ++k) {
    std::vector<double> d;
    bool split = false, naive = false;
    for (int look = 0; look < 3; ++look) {
      for (int i = 0; i < 5; ++i) d.push_back(rng.normal());
      split = split || judge(Claim::different, paired_interval(d, 0.95, 3)) == Verdict::reproduced;
      naive = naive || judge(Claim::different, paired_interval(d, 0.95, 1)) == Verdict::reproduced;
    }
    wrong_split += split;
    wrong_naive += naive;
  }
  INFO("split " << wrong_split << ", naive " << wrong_naive << " of " << reps);
  CHECK(static_cast<double>(wrong_split) / reps < 0.05 + 0.007);
  CHECK(static_cast<double>(wrong_naive) / reps > 0.08);
}
