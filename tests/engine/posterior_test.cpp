#include <catch2/catch.hpp>

#include <cmath>

#include "engine/posterior.hpp"
#include "engine/rff.hpp"

using namespace fedsim;

namespace {
struct Data {
  Eigen::MatrixXd Phi;  // t x M
  Eigen::VectorXd y;    // t
};
Data make_data(const RandomFourierFeatures& f, int t, std::uint64_t seed) {
  RandomStream rng(seed, "data");
  Eigen::MatrixXd X(t, f.dim());
  Eigen::VectorXd y(t);
  for (int i = 0; i < t; ++i) {
    for (int j = 0; j < f.dim(); ++j) X(i, j) = rng.uniform();
    y(i) = std::sin(6 * X(i, 0)) + 0.1 * rng.normal();
  }
  return {f.feature_matrix(X), y};
}
}  // namespace

TEST_CASE("rank-1 updates keep Sigma = Phi'Phi + lambda I exactly", "[posterior]") {
  const RandomFourierFeatures f(2, 30, SeKernel{0.2, 1.0}, 3);
  const Data d = make_data(f, 40, 1);
  const double lambda = 0.01;
  FeaturePosterior post(30, lambda);
  for (int i = 0; i < 40; ++i) post.observe(d.Phi.row(i).transpose(), d.y(i));
  const Eigen::MatrixXd Sigma =
      d.Phi.transpose() * d.Phi + lambda * Eigen::MatrixXd::Identity(30, 30);
  const Eigen::MatrixXd L = post.factor().matrixL();
  CHECK((L * L.transpose() - Sigma).norm() < 1e-10 * Sigma.norm());
  const Eigen::VectorXd nu = Sigma.llt().solve(d.Phi.transpose() * d.y);
  CHECK((post.mean() - nu).norm() < 1e-9 * (1 + nu.norm()));
}

TEST_CASE("predictive mean and variance equal the GP formulas with the RFF kernel", "[posterior]") {
  // FTS appendix B, eq. 6-7: phi'nu = k^'(K^ + lambda I)^-1 y and
  // lambda phi'Sigma^-1 phi = k^(x,x) - k^'(K^ + lambda I)^-1 k^.
  const RandomFourierFeatures f(1, 50, SeKernel{0.03, 1.0}, 11);
  const Data d = make_data(f, 25, 2);
  const double lambda = 0.01;
  FeaturePosterior post(50, lambda);
  for (int i = 0; i < 25; ++i) post.observe(d.Phi.row(i).transpose(), d.y(i));
  const Eigen::MatrixXd Khat = d.Phi * d.Phi.transpose() + lambda * Eigen::MatrixXd::Identity(25, 25);
  const Eigen::LDLT<Eigen::MatrixXd> solver(Khat);
  for (double x : {0.0, 0.137, 0.5, 0.91}) {
    const Eigen::VectorXd phi = f.features(Eigen::VectorXd(Eigen::VectorXd::Constant(1, x)));
    const Eigen::VectorXd kx = d.Phi * phi;
    const double gp_mean = kx.dot(solver.solve(d.y));
    const double gp_var = phi.squaredNorm() - kx.dot(solver.solve(kx));
    CHECK(post.predictive_mean(phi) == Approx(gp_mean).margin(1e-9));
    CHECK(post.predictive_variance(phi) == Approx(gp_var).margin(1e-9));
  }
}

TEST_CASE("posterior draws have mean nu and covariance lambda Sigma^-1", "[posterior]") {
  const int M = 6;
  const RandomFourierFeatures f(1, M, SeKernel{0.3, 1.0}, 4);
  const Data d = make_data(f, 8, 3);
  FeaturePosterior post(M, 0.05);
  for (int i = 0; i < 8; ++i) post.observe(d.Phi.row(i).transpose(), d.y(i));
  const Eigen::VectorXd nu = post.mean();
  const Eigen::MatrixXd C = post.covariance();
  const int n = 40000;
  RandomStream rng(9, "draws");
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(M);
  Eigen::MatrixXd outer = Eigen::MatrixXd::Zero(M, M);
  for (int k = 0; k < n; ++k) {
    const Eigen::VectorXd w = post.sample(rng) - nu;
    sum += w;
    outer += w * w.transpose();
  }
  const Eigen::VectorXd mean_err = sum / n;
  const Eigen::MatrixXd cov = outer / n;
  // Tolerances: 5 standard errors; se(mean_i) = sqrt(C_ii/n),
  // se(cov_ij) = sqrt((C_ii C_jj + C_ij^2)/n) for Gaussian data.
  for (int i = 0; i < M; ++i) {
    CHECK(std::abs(mean_err(i)) < 5 * std::sqrt(C(i, i) / n));
    for (int j = 0; j < M; ++j)
      CHECK(std::abs(cov(i, j) - C(i, j)) < 5 * std::sqrt((C(i, i) * C(j, j) + C(i, j) * C(i, j)) / n));
  }
  // A scale (beta) multiplies the spread only.
  RandomStream rng2(10, "draws");
  double spread = 0;
  for (int k = 0; k < 4000; ++k) spread += (post.sample(rng2, 3.0) - nu).squaredNorm();
  CHECK(spread / 4000 == Approx(9.0 * C.trace()).epsilon(0.1));
}

TEST_CASE("bad posterior parameters are rejected", "[posterior]") {
  CHECK_THROWS_AS(FeaturePosterior(0, 0.01), std::invalid_argument);
  CHECK_THROWS_AS(FeaturePosterior(5, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(FeaturePosterior(5, std::nan("")), std::invalid_argument);
}
