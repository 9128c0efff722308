#include "engine/dp/mechanisms.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "engine/dp/clipping.hpp"
#include "engine/rng.hpp"

using namespace fedsim::dp;
using fedsim::RandomStream;

TEST_CASE("clip_to_norm shrinks long vectors onto the ball and leaves short ones",
          "[dp][mechanism]") {
  Eigen::VectorXd v(3);
  v << 3, 4, 12;  // norm 13
  const Eigen::VectorXd direction = v / 13.0;
  CHECK(clip_to_norm(v, 2.6));
  CHECK(v.norm() == Approx(2.6).epsilon(1e-15));
  CHECK((v / 2.6 - direction).norm() < 1e-15);
  const Eigen::VectorXd before = v;
  CHECK_FALSE(clip_to_norm(v, 2.6));  // exactly on the sphere: untouched
  CHECK(v == before);
  CHECK_FALSE(clip_to_norm(v, 10.0));
  CHECK(v == before);
  CHECK_THROWS_AS(clip_to_norm(v, 0.0), std::invalid_argument);
}

TEST_CASE("Gaussian mechanism adds independent N(0, sd^2) noise", "[dp][mechanism]") {
  RandomStream rng(7, "gaussian-mechanism");
  const int n = 100000;
  const Eigen::VectorXd value = Eigen::VectorXd::Constant(n, 2.0);
  const Eigen::VectorXd out = gaussian_mechanism(value, 1.5, rng);
  const Eigen::ArrayXd noise = (out - value).array();
  // Mean ~ N(0, 1.5^2/n): 5 SE = 0.024; sample variance SE = 1.5^2 sqrt(2/n) = 0.01.
  CHECK(noise.mean() == Approx(0.0).margin(5 * 1.5 / std::sqrt(n)));
  CHECK((noise - noise.mean()).square().mean() ==
        Approx(2.25).margin(5 * 2.25 * std::sqrt(2.0 / n)));
  RandomStream a(1, "same"), b(1, "same");
  CHECK(gaussian_mechanism(value.head(5), 1.0, a) == gaussian_mechanism(value.head(5), 1.0, b));
  CHECK(gaussian_mechanism(value.head(5), 0.0, a) == value.head(5));
}

TEST_CASE("Poisson subsampling chooses each member with probability q", "[dp][mechanism]") {
  RandomStream rng(11, "poisson");
  const int n = 200000;
  const auto chosen = poisson_subsample(n, 0.15, rng);
  // Binomial(n, 0.15): sd = sqrt(n q (1-q)) = 160; allow 5 sd.
  CHECK(std::abs(static_cast<double>(chosen.size()) - 0.15 * n) < 5 * 160);
  CHECK(std::is_sorted(chosen.begin(), chosen.end()));
  CHECK(poisson_subsample(10, 1.0, rng).size() == 10);
  CHECK_THROWS_AS(poisson_subsample(10, 0.0, rng), std::invalid_argument);
  CHECK_THROWS_AS(poisson_subsample(10, 1.5, rng), std::invalid_argument);
}

TEST_CASE("subsampled Gaussian sums the clipped chosen vectors and adds z clip max|w| noise",
          "[dp][mechanism]") {
  Eigen::MatrixXd members(2, 3);
  members << 3, 0.1, 0,  //
      4, 0.0, -2;        // norms 5, 0.1, 2
  const Eigen::VectorXd weights = Eigen::Vector3d(1.0, 2.0, -0.5);
  // With q = 1 and negligible noise the value is the weighted sum of clipped vectors.
  RandomStream rng(3, "subsampled");
  const auto r = subsampled_gaussian(members, 1.0, 1.0, 1e-12, rng, weights);
  CHECK(r.chosen == std::vector<int>{0, 1, 2});
  CHECK(r.clipped == 2);
  const Eigen::Vector2d expected =
      Eigen::Vector2d(0.6, 0.8) + 2.0 * Eigen::Vector2d(0.1, 0) - 0.5 * Eigen::Vector2d(0, -1);
  CHECK((r.value - expected).norm() < 1e-9);

  // With all-zero members the value is pure noise of sd z * clip * max|w| = 0.5 * 2 * 2 = 2.
  const Eigen::MatrixXd zeros = Eigen::MatrixXd::Zero(20000, 3);
  const auto noise = subsampled_gaussian(zeros, 0.5, 2.0, 0.5, rng, weights);
  CHECK(noise.value.array().square().mean() ==
        Approx(4.0).margin(5 * 4.0 * std::sqrt(2.0 / 20000)));
  CHECK_THROWS_AS(subsampled_gaussian(members, 0.5, 1.0, 1.0, rng, Eigen::VectorXd::Ones(2)),
                  std::invalid_argument);
  CHECK_THROWS_AS(subsampled_gaussian(members, 0.5, 1.0, 0.0, rng), std::invalid_argument);
}
