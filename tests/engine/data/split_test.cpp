// Federated splits (engine/data/federated_split) and the Dirichlet draws under them: nothing
// lost or duplicated, determinism, class proportions against the Dirichlet's known moments,
// quantity skew, halves, and the errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "engine/data/dirichlet.hpp"
#include "engine/data/federated_split.hpp"

using namespace fedsim;
using namespace fedsim::data;

namespace {

/// 10 classes of 300 samples each, interleaved.
std::vector<int> labels_3000() {
  std::vector<int> y(3000);
  for (int i = 0; i < 3000; ++i) y[i] = i % 10;
  return y;
}

/// Every index 0 .. n-1 exactly once over the agents.
bool partition_of(const std::vector<std::vector<int>>& split, int n) {
  std::vector<int> all;
  for (const auto& v : split) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  std::vector<int> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  return all == expected;
}

}  // namespace

TEST_CASE("gamma and Dirichlet variates: moments within stated tolerances", "[data][split]") {
  // Gamma(k): mean k, variance k. 20000 draws: the standard error of the mean is sqrt(k / 2e4);
  // tolerance 4 standard errors, and 10% on the variance.
  for (double k : {0.1, 0.5, 1.0, 3.5}) {
    RandomStream rng(1, "test.gamma", static_cast<std::uint64_t>(k * 10));
    const int n = 20000;
    double s = 0, s2 = 0;
    for (int i = 0; i < n; ++i) {
      const double g = gamma_variate(rng, k);
      REQUIRE(g >= 0);
      s += g;
      s2 += g * g;
    }
    const double mean = s / n, var = s2 / n - mean * mean;
    INFO("k = " << k << " mean " << mean << " var " << var);
    CHECK(std::abs(mean - k) < 4 * std::sqrt(k / n));
    CHECK(var == Approx(k).epsilon(0.1));
  }
  // Dirichlet(a, a, a): mean 1/3 each, variance (1/3)(2/3) / (3a + 1).
  RandomStream rng(2, "test.dirichlet");
  const double a = 0.5;
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(3), sum2 = Eigen::VectorXd::Zero(3);
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd p = dirichlet_variate(rng, Eigen::VectorXd::Constant(3, a));
    REQUIRE(p.sum() == Approx(1.0).margin(1e-12));
    REQUIRE(p.minCoeff() >= 0);
    sum += p;
    sum2 += p.cwiseAbs2();
  }
  const double expected_var = (1.0 / 3) * (2.0 / 3) / (3 * a + 1);
  for (int j = 0; j < 3; ++j) {
    CHECK(sum(j) / n == Approx(1.0 / 3).margin(0.01));
    CHECK(sum2(j) / n - std::pow(sum(j) / n, 2) == Approx(expected_var).epsilon(0.05));
  }
  // Tiny concentrations underflow every gamma draw; the mass still sums to one.
  const Eigen::VectorXd tiny = dirichlet_variate(rng, Eigen::VectorXd::Constant(5, 1e-3));
  CHECK(tiny.sum() == Approx(1.0));
  CHECK_THROWS_AS(gamma_variate(rng, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(gamma_variate(rng, std::numeric_limits<double>::infinity()),
                  std::invalid_argument);
}

TEST_CASE("federated split: every sample once, deterministic, skewed as alpha says",
          "[data][split]") {
  const std::vector<int> y = labels_3000();
  SplitConfig c;
  c.agents = 20;
  for (double alpha : {0.1, 1.0, 100.0, std::numeric_limits<double>::infinity()}) {
    c.alpha = alpha;
    const auto a = federated_split(y, 10, c, 5), b = federated_split(y, 10, c, 5);
    INFO("alpha " << alpha);
    CHECK(a == b);                      // same seed, same split
    CHECK(a != federated_split(y, 10, c, 6));  // another seed, another split
    CHECK(partition_of(a, 3000));
    for (const auto& v : a) CHECK(v.size() >= 4u);
    // The mean over agents of the largest class share of its samples: 1/10 when IID, near 1
    // when each agent holds one class.
    double top = 0;
    for (const auto& v : a) {
      std::vector<int> count(10, 0);
      for (int i : v) ++count[y[i]];
      top += static_cast<double>(*std::max_element(count.begin(), count.end())) / v.size();
    }
    top /= c.agents;
    if (alpha == 0.1) CHECK(top > 0.6);
    if (alpha == 100.0) CHECK(top < 0.2);
    if (std::isinf(alpha)) {
      CHECK(top == Approx(0.1).margin(0.02));
      for (const auto& v : a) CHECK(v.size() == 150u);  // 300 / 20 of each class, exactly
    }
  }
}

TEST_CASE("federated split: quantity skew, halves, and the errors", "[data][split]") {
  const std::vector<int> y = labels_3000();
  SplitConfig c;
  c.agents = 10;
  c.alpha = std::numeric_limits<double>::infinity();
  c.quantity_sigma = 1.0;
  const auto s = federated_split(y, 10, c, 1);
  CHECK(partition_of(s, 3000));
  std::size_t lo = 3000, hi = 0;
  for (const auto& v : s) {
    lo = std::min(lo, v.size());
    hi = std::max(hi, v.size());
  }
  CHECK(hi > 2 * lo);  // sigma = 1: sizes spread by a factor well above 2
  const Shard h = halve(s[0], 1, 0);
  CHECK(h.train.size() == (s[0].size() + 1) / 2);
  std::vector<int> back = h.train;
  back.insert(back.end(), h.validation.begin(), h.validation.end());
  std::sort(back.begin(), back.end());
  CHECK(back == s[0]);
  CHECK(halve(s[0], 1, 0).train == h.train);
  CHECK(halve(s[0], 1, 1).train != h.train);

  c.quantity_sigma = 0;
  CHECK_THROWS_WITH(federated_split({0, 1, 2}, 2, c, 1), Catch::Contains("label 2, outside 0..1"));
  c.agents = 1000;
  CHECK_THROWS_WITH(federated_split(y, 10, c, 1), Catch::Contains("cannot give 1000 agents 4"));
  c.agents = 500;
  c.alpha = 0.01;
  c.max_attempts = 5;
  CHECK_THROWS_WITH(federated_split(y, 10, c, 1), Catch::Contains("use fewer agents or a larger alpha"));
  c.alpha = -1;
  CHECK_THROWS_WITH(federated_split(y, 10, c, 1), Catch::Contains("alpha must be > 0"));
}
