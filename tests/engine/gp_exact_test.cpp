#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "engine/gp_exact.hpp"
#include "engine/rng.hpp"

using fedsim::CandidatePrior;
using fedsim::ExactGp;
using fedsim::RandomStream;
using fedsim::SeKernel;

namespace {

Eigen::MatrixXd grid_1d(int n) { return Eigen::VectorXd::LinSpaced(n, 0.0, 1.0); }

/// Posterior mean and covariance on the candidates, solved from scratch.
struct Direct {
  Eigen::VectorXd mean;
  Eigen::MatrixXd cov;
};

Direct direct_posterior(const SeKernel& k, const Eigen::MatrixXd& C, const Eigen::MatrixXd& X,
                        const Eigen::VectorXd& y, double lambda) {
  Eigen::MatrixXd kxx = k.matrix(X, X);
  kxx.diagonal().array() += lambda;
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(kxx);
  const Eigen::MatrixXd kcx = k.matrix(C, X);
  return {kcx * ldlt.solve(y), k.matrix(C, C) - kcx * ldlt.solve(kcx.transpose())};
}

/// Sample mean (n) and covariance (n x n) of draws stored as columns.
void moments(const Eigen::MatrixXd& draws, Eigen::VectorXd& mean, Eigen::MatrixXd& cov) {
  const double n = static_cast<double>(draws.cols());
  mean = draws.rowwise().mean();
  const Eigen::MatrixXd centred = draws.colwise() - mean;
  cov = centred * centred.transpose() / (n - 1.0);
}

/// Checks the sample moments of `draws` against N(mu, beta^2 sigma), entrywise within `z`
/// standard errors: se(mean_i) = sqrt(S_ii / N), se(cov_ij) = sqrt((S_ii S_jj + S_ij^2) / N)
/// for Gaussian draws (S = beta^2 sigma).
void check_moments(const Eigen::MatrixXd& draws, const Eigen::VectorXd& mu,
                   const Eigen::MatrixXd& sigma, double beta, double z) {
  Eigen::VectorXd m;
  Eigen::MatrixXd c;
  moments(draws, m, c);
  const double n = static_cast<double>(draws.cols());
  const Eigen::MatrixXd s = beta * beta * sigma;
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    CHECK(std::abs(m(i) - mu(i)) <= z * std::sqrt(s(i, i) / n) + 1e-12);
    for (Eigen::Index j = 0; j <= i; ++j) {
      const double se = std::sqrt((s(i, i) * s(j, j) + s(i, j) * s(i, j)) / n);
      CHECK(std::abs(c(i, j) - s(i, j)) <= z * se + 1e-12);
    }
  }
}

/// A small GP: 15 candidates on [0,1], 5 noisy observations (one repeated, one off-grid
/// when `off_grid`).
struct Small {
  SeKernel kernel{0.2, 1.3};
  double lambda = 0.1;
  std::shared_ptr<const CandidatePrior> prior =
      std::make_shared<const CandidatePrior>(grid_1d(15), kernel);
  ExactGp gp{prior, lambda};
  Eigen::MatrixXd X;
  Eigen::VectorXd y;

  explicit Small(bool off_grid = false) {
    const std::vector<int> idx{2, 7, 7, 11, 13};
    const std::vector<double> vals{0.4, -0.3, -0.1, 1.2, 0.8};
    X.resize(5, 1);
    y.resize(5);
    for (int s = 0; s < 5; ++s) {
      if (off_grid && s == 3) {
        X(s, 0) = 0.77;
        gp.add_observation(X.row(s).transpose(), vals[s]);
      } else {
        X(s, 0) = prior->candidates()(idx[s], 0);
        gp.add_observation(idx[s], vals[s]);
      }
      y(s) = vals[s];
    }
  }
};

}  // namespace

TEST_CASE("pivoted Cholesky prior factor reproduces K_cc within its tolerance", "[gp]") {
  const SeKernel k{0.03, 2.0};
  const Eigen::MatrixXd C = grid_1d(1000);
  const CandidatePrior prior(C, k, 1e-10);
  const Eigen::MatrixXd err = k.matrix(C, C) - prior.factor() * prior.factor().transpose();
  // The residual is PSD, so its largest entry is its largest diagonal entry (plus rounding).
  CHECK(prior.truncation_error() <= 1e-10 * k.variance);
  CHECK(err.cwiseAbs().maxCoeff() <= 1e-10 * k.variance + 1e-12);
  CHECK(prior.rank() < 300);  // far below n_c: the kernel's numerical rank is small
  // A small full-rank case is exact.
  const CandidatePrior tiny(grid_1d(4), SeKernel{0.1, 1.0}, 1e-14);
  CHECK(tiny.rank() == 4);
  CHECK((tiny.factor() * tiny.factor().transpose() -
         SeKernel{0.1, 1.0}.matrix(grid_1d(4), grid_1d(4)))
            .cwiseAbs()
            .maxCoeff() < 1e-14);
}

TEST_CASE("posterior mean and variance equal the direct formula", "[gp]") {
  for (const bool off_grid : {false, true}) {
    Small s(off_grid);
    const auto& C = s.prior->candidates();
    const Direct d = direct_posterior(s.kernel, C, s.X, s.y, s.lambda);
    CHECK((s.gp.mean() - d.mean).cwiseAbs().maxCoeff() < 1e-9);
    CHECK((s.gp.variance() - d.cov.diagonal()).cwiseAbs().maxCoeff() < 1e-9);
    CHECK((s.gp.covariance() - d.cov).cwiseAbs().maxCoeff() < 1e-9);
    // Arbitrary (off-grid) query points.
    Eigen::MatrixXd Q(4, 1);
    Q << 0.01, 0.333, 0.5, 0.999;
    const Direct dq = direct_posterior(s.kernel, Q, s.X, s.y, s.lambda);
    CHECK((s.gp.mean(Q) - dq.mean).cwiseAbs().maxCoeff() < 1e-9);
    CHECK((s.gp.variance(Q) - dq.cov.diagonal()).cwiseAbs().maxCoeff() < 1e-9);
  }
}

TEST_CASE("incremental Cholesky equals a fresh factorisation", "[gp]") {
  // 2-D candidates, 60 observations, growing past the initial storage several times.
  RandomStream rng(11, "gp.chol");
  const SeKernel k{0.15, 0.7};
  Eigen::MatrixXd C(200, 2);
  for (Eigen::Index i = 0; i < C.size(); ++i) C(i) = rng.uniform();
  auto prior = std::make_shared<const CandidatePrior>(C, k);
  ExactGp gp(prior, 1e-3);
  Eigen::MatrixXd X(60, 2);
  Eigen::VectorXd y(60);
  for (int s = 0; s < 60; ++s) {
    const int i = static_cast<int>(rng.uniform_index(200));
    X.row(s) = C.row(i);
    y(s) = rng.normal();
    gp.add_observation(i, y(s));
    if (s == 9 || s == 33 || s == 59) {
      Eigen::MatrixXd kxx = k.matrix(X.topRows(s + 1), X.topRows(s + 1));
      kxx.diagonal().array() += 1e-3;
      const Eigen::MatrixXd fresh = Eigen::LLT<Eigen::MatrixXd>(kxx).matrixL();
      CHECK((gp.cholesky() - fresh).cwiseAbs().maxCoeff() < 1e-9);
      const Direct d = direct_posterior(k, C, X.topRows(s + 1), y.head(s + 1), 1e-3);
      CHECK((gp.mean() - d.mean).cwiseAbs().maxCoeff() < 1e-9);
      CHECK((gp.variance() - d.cov.diagonal()).cwiseAbs().maxCoeff() < 1e-9);
    }
  }
  CHECK(gp.num_observations() == 60);
}

TEST_CASE("with no observations the posterior is the prior", "[gp]") {
  const SeKernel k{0.3, 1.7};
  auto prior = std::make_shared<const CandidatePrior>(grid_1d(10), k);
  const ExactGp gp(prior, 0.01);
  CHECK(gp.mean().cwiseAbs().maxCoeff() == 0.0);
  CHECK((gp.variance().array() - 1.7).abs().maxCoeff() < 1e-12);
  RandomStream rng(3, "gp.prior");
  CHECK(gp.sample_pathwise(rng).size() == 10);
}

// 20000 draws: every mean within 4.5 and every covariance entry within 5 standard errors
// (SEs from the exact posterior, Gaussian fourth moments). 15 + 120 comparisons per check.
TEST_CASE("pathwise draws have the exact posterior mean and covariance", "[gp]") {
  const Small s;
  const Direct d = direct_posterior(s.kernel, s.prior->candidates(), s.X, s.y, s.lambda);
  const int n = 20000;
  for (const double beta : {1.0, 0.4, 2.5}) {
    RandomStream rng(7, "gp.pathwise", static_cast<std::uint64_t>(beta * 10));
    Eigen::MatrixXd draws(15, n);
    for (int i = 0; i < n; ++i) draws.col(i) = s.gp.sample_pathwise(rng, beta);
    check_moments(draws, d.mean, d.cov, beta, 5.0);
  }
}

TEST_CASE("dense draws have the exact posterior mean and covariance", "[gp]") {
  const Small s(true);  // dense sampling also takes off-grid observations
  const Direct d = direct_posterior(s.kernel, s.prior->candidates(), s.X, s.y, s.lambda);
  const int n = 20000;
  for (const double beta : {1.0, 3.0}) {
    RandomStream rng(8, "gp.dense", static_cast<std::uint64_t>(beta));
    Eigen::MatrixXd draws(15, n);
    for (int i = 0; i < n; ++i) draws.col(i) = s.gp.sample_dense(rng, beta);
    check_moments(draws, d.mean, d.cov, beta, 5.0);
  }
}

TEST_CASE("pathwise and dense draws agree with each other", "[gp]") {
  // Two independent samples of 20000: the difference of sample means has SE
  // sqrt(2 S_ii / N), the difference of sample variances SE sqrt(2 * 2 S_ii^2 / N); 5 SE.
  const Small s;
  const int n = 20000;
  RandomStream ra(9, "gp.agree", 0), rb(9, "gp.agree", 1);
  Eigen::MatrixXd a(15, n), b(15, n);
  for (int i = 0; i < n; ++i) {
    a.col(i) = s.gp.sample_pathwise(ra, 1.5);
    b.col(i) = s.gp.sample_dense(rb, 1.5);
  }
  Eigen::VectorXd ma, mb;
  Eigen::MatrixXd ca, cb;
  moments(a, ma, ca);
  moments(b, mb, cb);
  const Eigen::VectorXd v = 2.25 * s.gp.variance();
  for (int i = 0; i < 15; ++i) {
    CHECK(std::abs(ma(i) - mb(i)) <= 5.0 * std::sqrt(2.0 * v(i) / n));
    CHECK(std::abs(ca(i, i) - cb(i, i)) <= 5.0 * std::sqrt(4.0 * v(i) * v(i) / n));
  }
}

TEST_CASE("beta = 0 returns the posterior mean and draws are reproducible", "[gp]") {
  const Small s;
  RandomStream r1(1, "gp.beta"), r2(1, "gp.beta");
  CHECK((s.gp.sample_pathwise(r1, 0.0) - s.gp.mean()).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((s.gp.sample_dense(r1, 0.0) - s.gp.mean()).cwiseAbs().maxCoeff() < 1e-12);
  RandomStream a(5, "gp.repeat"), b(5, "gp.repeat");
  CHECK(s.gp.sample_pathwise(a, 1.0) == s.gp.sample_pathwise(b, 1.0));
}

TEST_CASE("exact GP rejects bad input", "[gp]") {
  auto prior = std::make_shared<const CandidatePrior>(grid_1d(5), SeKernel{0.2, 1.0});
  CHECK_THROWS_AS(ExactGp(prior, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(ExactGp(nullptr, 0.1), std::invalid_argument);
  CHECK_THROWS_AS(CandidatePrior(Eigen::MatrixXd(0, 1), SeKernel{}), std::invalid_argument);
  ExactGp gp(prior, 0.1);
  CHECK_THROWS_AS(gp.add_observation(5, 1.0), std::out_of_range);
  gp.add_observation(Eigen::VectorXd::Constant(1, 0.3), 1.0);
  RandomStream rng(1, "gp.throw");
  CHECK_THROWS_AS(gp.sample_pathwise(rng), std::logic_error);
}
