#include <catch2/catch.hpp>

#include <cmath>

#include "engine/objectives/grid_objective.hpp"

using namespace fedsim;

TEST_CASE("the synthetic base function is a GP sample rescaled to [0, 1]", "[objectives]") {
  SyntheticConfig c;
  c.perturbation = 0.0;
  const auto f = make_synthetic_objectives(c, 1, 3);
  double lo = 1e9, hi = -1e9;
  for (int i = 0; i < c.grid_size; ++i) {
    lo = std::min(lo, f[0]->value_at(i));
    hi = std::max(hi, f[0]->value_at(i));
  }
  CHECK(lo == Approx(0.0).margin(1e-12));
  CHECK(hi == Approx(1.0));
  CHECK(f[0]->optimum_value() == hi);
  CHECK(f[0]->value_at(f[0]->optimum_index()) == hi);
  // Lengthscale 0.03 on a 1000-point grid: neighbours are strongly correlated, but points
  // 0.3 apart (10 lengthscales) are not; check the empirical lag-1 and lag-300 correlations.
  const auto g = GridGpSampler(f[0]->grid(), SeKernel{0.03, 1.0});
  double c1 = 0, c300 = 0, v = 0;
  const int draws = 40;
  for (int d = 0; d < draws; ++d) {
    RandomStream rng(d, "gp-test");
    Eigen::VectorXd x = g.sample(rng);
    x.array() -= x.mean();
    v += x.squaredNorm() / draws;
    c1 += x.head(999).dot(x.tail(999)) / draws;
    c300 += x.head(700).dot(x.tail(700)) / draws;
  }
  CHECK(c1 / v > 0.95);                    // k(0.001) / k(0) = 0.9994 before rescaling
  CHECK(std::abs(c300 / v) < 0.15);        // k(0.3) ~ 2e-22
}

TEST_CASE("each agent adds +-d per grid point with probability 1/2", "[objectives]") {
  SyntheticConfig c;
  c.perturbation = 0.02;
  SyntheticConfig base = c;
  base.perturbation = 0.0;
  const auto f = make_synthetic_objectives(c, 3, 5);
  const auto b = make_synthetic_objectives(base, 1, 5);
  int plus = 0;
  for (int i = 0; i < c.grid_size; ++i) {
    const double d = f[0]->value_at(i) - b[0]->value_at(i);
    REQUIRE(std::abs(std::abs(d) - 0.02) < 1e-12);
    plus += d > 0;
    CHECK(f[1]->value_at(i) - b[0]->value_at(i) != Approx(0.0).margin(0.019));
  }
  // Binomial(1000, 1/2): sd 15.8; allow 5 sd.
  CHECK(std::abs(plus - 500) < 80);
  // Agents differ from one another, and each knows its own optimum.
  int same = 0;
  for (int i = 0; i < c.grid_size; ++i) same += f[0]->value_at(i) == f[1]->value_at(i);
  CHECK(std::abs(same - 500) < 80);
  for (const auto& fn : f)
    for (int i = 0; i < c.grid_size; ++i) CHECK(fn->value_at(i) <= fn->optimum_value());
}

TEST_CASE("the heterogeneity mixture is alpha g_n + (1 - alpha) f_base", "[objectives]") {
  SyntheticConfig c;
  c.kind = SyntheticConfig::Kind::mixture;
  c.alpha = 0.0;
  const auto same = make_synthetic_objectives(c, 2, 9);
  for (int i = 0; i < c.grid_size; ++i) REQUIRE(same[0]->value_at(i) == same[1]->value_at(i));
  c.alpha = 1.0;
  const auto independent = make_synthetic_objectives(c, 2, 9);
  double corr = 0, v0 = 0, v1 = 0;
  const double m0 = 0.5, m1 = 0.5;
  for (int i = 0; i < c.grid_size; ++i) {
    const double a = independent[0]->value_at(i) - m0, b = independent[1]->value_at(i) - m1;
    corr += a * b;
    v0 += a * a;
    v1 += b * b;
  }
  CHECK(std::abs(corr / std::sqrt(v0 * v1)) < 0.9);  // two independent GP draws
  c.alpha = 1.5;
  CHECK_THROWS_AS(make_synthetic_objectives(c, 2, 9), std::invalid_argument);
}
