#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/rff.hpp"
#include "engine/rng.hpp"

using namespace fedsim;

TEST_CASE("every agent with the same feature seed builds identical features", "[rff]") {
  const SeKernel k{0.03, 1.0};
  const RandomFourierFeatures a(1, 50, k, 99), b(1, 50, k, 99), c(1, 50, k, 100);
  CHECK(a.spectral() == b.spectral());
  CHECK(a.phases() == b.phases());
  CHECK(a.spectral() != c.spectral());
}

TEST_CASE("features are normalised to the signal variance", "[rff]") {
  const RandomFourierFeatures f(3, 64, SeKernel{0.5, 2.5}, 1);
  RandomStream rng(1, "x");
  Eigen::MatrixXd X(20, 3);
  for (int i = 0; i < X.size(); ++i) X.data()[i] = rng.uniform();
  const Eigen::MatrixXd Phi = f.feature_matrix(X);
  for (int i = 0; i < 20; ++i) {
    CHECK(Phi.row(i).squaredNorm() == Approx(2.5));
    CHECK((Phi.row(i).transpose() - f.features(Eigen::VectorXd(X.row(i).transpose()))).norm() <
          1e-12);
  }
}

TEST_CASE("spectral samples follow N(0, I / l^2) and phases U[0, 2pi]", "[rff]") {
  const double l = 0.2;
  const RandomFourierFeatures f(2, 20000, SeKernel{l, 1.0}, 5);
  const Eigen::ArrayXd s = Eigen::Map<const Eigen::ArrayXd>(f.spectral().data(), 40000);
  const double n = 40000;
  // Standard errors: mean l^-1/sqrt(n) = 0.025; variance of s^2 = 2/l^4 -> se of mean 0.35.
  CHECK(s.mean() == Approx(0.0).margin(5 * (1 / l) / std::sqrt(n)));
  CHECK(s.square().mean() == Approx(1 / (l * l)).margin(5 * std::sqrt(2.0 / n) / (l * l)));
  CHECK(f.phases().minCoeff() >= 0.0);
  CHECK(f.phases().maxCoeff() < 2 * M_PI);
  CHECK(f.phases().mean() == Approx(M_PI).margin(5 * (2 * M_PI / std::sqrt(12.0)) / 141.4));
}

// Mean absolute error |k(x,x') - phi(x)'phi(x')| over fixed random pairs, averaged over seeds.
static double kernel_error(int M) {
  const SeKernel k{0.3, 1.0};
  RandomStream rng(7, "pairs");
  Eigen::MatrixXd X(60, 2), Y(60, 2);
  for (int i = 0; i < X.size(); ++i) {
    X.data()[i] = rng.uniform();
    Y.data()[i] = rng.uniform();
  }
  const Eigen::MatrixXd K = k.matrix(X, Y);
  double total = 0;
  const int seeds = 8;
  for (int s = 0; s < seeds; ++s) {
    const RandomFourierFeatures f(2, M, k, 1000 + s);
    total += (f.feature_matrix(X) * f.feature_matrix(Y).transpose() - K).cwiseAbs().mean();
  }
  return total / seeds;
}

TEST_CASE("the RFF kernel error shrinks like 1/sqrt(M)", "[rff]") {
  std::vector<int> Ms = {64, 256, 1024, 4096};
  std::vector<double> errs;
  for (int M : Ms) errs.push_back(kernel_error(M));
  // Least-squares slope of log(error) on log(M): expect -0.5; allow +-0.1.
  double mx = 0, my = 0;
  for (size_t i = 0; i < Ms.size(); ++i) {
    mx += std::log(Ms[i]);
    my += std::log(errs[i]);
  }
  mx /= Ms.size();
  my /= Ms.size();
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < Ms.size(); ++i) {
    sxy += (std::log(Ms[i]) - mx) * (std::log(errs[i]) - my);
    sxx += std::pow(std::log(Ms[i]) - mx, 2);
  }
  const double slope = sxy / sxx;
  INFO("errors " << errs[0] << " " << errs[1] << " " << errs[2] << " " << errs[3]);
  CHECK(slope == Approx(-0.5).margin(0.1));
  CHECK(errs.back() < 0.05);
}

TEST_CASE("bad feature parameters are rejected", "[rff]") {
  CHECK_THROWS_AS(RandomFourierFeatures(1, 0, SeKernel{0.1, 1.0}, 1), std::invalid_argument);
  CHECK_THROWS_AS(RandomFourierFeatures(0, 10, SeKernel{0.1, 1.0}, 1), std::invalid_argument);
  CHECK_THROWS_AS(RandomFourierFeatures(1, 10, SeKernel{0.0, 1.0}, 1), std::invalid_argument);
}
