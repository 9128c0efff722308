#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "engine/fbo/de_server.hpp"

using namespace fedsim;
using namespace fedsim::fbo;

namespace {
std::vector<const Eigen::VectorXd*> pointers(const std::vector<Eigen::VectorXd>& v) {
  std::vector<const Eigen::VectorXd*> p;
  for (const auto& x : v) p.push_back(&x);
  return p;
}
std::vector<Eigen::VectorXd> random_messages(int N, int M, std::uint64_t seed, double scale = 1) {
  RandomStream rng(seed, "messages");
  std::vector<Eigen::VectorXd> out(N, Eigen::VectorXd(M));
  for (auto& v : out)
    for (int k = 0; k < M; ++k) v(k) = scale * rng.normal();
  return out;
}
}  // namespace

TEST_CASE("without DP and with q = 1 the server returns the weighted sums exactly", "[fbo]") {
  const int N = 6, M = 4, P = 2;
  const std::vector<int> assignment = {0, 1, 0, 1, 0, 1};
  DeServerConfig cfg;
  cfg.num_regions = P;
  const DeServer server(cfg, assignment, M);
  const auto msgs = random_messages(N, M, 1);
  RandomStream rng(1, "server");
  RoundStats stats;
  const Eigen::MatrixXd joint = server.aggregate(3, pointers(msgs), rng, &stats);
  const Eigen::MatrixXd w = de_weights(assignment, P, temperature(cfg.temperature, 3, cfg.a), cfg.a);
  for (int i = 0; i < P; ++i) {
    Eigen::VectorXd expected = Eigen::VectorXd::Zero(M);
    for (int n = 0; n < N; ++n) expected += w(n, i) * msgs[n];
    CHECK((joint.col(i) - expected).norm() < 1e-12);
  }
  CHECK(stats.selected == N);
  CHECK(stats.clipped == 0);
  CHECK(stats.noise_std == 0.0);
}

TEST_CASE("subsampling divided by q is unbiased", "[fbo]") {
  const int N = 20, M = 3;
  DeServerConfig cfg;
  cfg.q = 0.25;
  const DeServer server(cfg, std::vector<int>(N, 0), M);
  const auto msgs = random_messages(N, M, 2);
  Eigen::VectorXd full = Eigen::VectorXd::Zero(M);
  for (const auto& m : msgs) full += m / N;
  const int rounds = 20000;
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(M);
  double selected = 0;
  for (int r = 0; r < rounds; ++r) {
    RandomStream rng(r, "server");
    RoundStats s;
    mean += server.aggregate(20, pointers(msgs), rng, &s).col(0) / rounds;
    selected += s.selected;
  }
  // Per round, each coordinate has variance sum_n (m_n/N)^2 (1-q)/q <= ~0.15 here; the mean
  // over 20000 rounds has sd < 0.003: allow 0.015.
  CHECK((mean - full).cwiseAbs().maxCoeff() < 0.015);
  CHECK(selected / rounds == Approx(N * 0.25).epsilon(0.02));
}

TEST_CASE("DP: vectors are clipped to S/sqrt(P) and noise has std z phi_max S / q", "[fbo]") {
  const int N = 10, M = 50, P = 2;
  std::vector<int> assignment;
  for (int n = 0; n < N; ++n) assignment.push_back(n % P);
  DeServerConfig cfg;
  cfg.num_regions = P;
  cfg.privatise = true;
  cfg.q = 1.0;
  cfg.z = 1.0;
  cfg.clip = 2.0;
  const DeServer server(cfg, assignment, M);
  auto msgs = random_messages(N, M, 3, 0.01);  // norms ~0.07: not clipped
  msgs[4] *= 1000.0;                           // norm ~70 > 2/sqrt(2): clipped
  RandomStream rng(4, "server");
  RoundStats stats;
  server.aggregate(1, pointers(msgs), rng, &stats);
  CHECK(stats.clipped == 1);
  const double phi_max = de_weights(assignment, P, 1.0, 15.0).maxCoeff();
  CHECK(stats.phi_max == Approx(phi_max));
  CHECK(stats.noise_std == Approx(1.0 * phi_max * 2.0 / 1.0));

  // With all-zero messages the output is pure noise: its sample sd matches noise_std.
  const std::vector<Eigen::VectorXd> zeros(N, Eigen::VectorXd::Zero(M));
  double ss = 0;
  int count = 0;
  for (int r = 0; r < 200; ++r) {
    RandomStream rng2(r, "noise");
    const Eigen::MatrixXd j = server.aggregate(1, pointers(zeros), rng2);
    ss += j.squaredNorm();
    count += j.size();
  }
  // 20000 draws: relative se of the sd is 1/sqrt(2*20000) = 0.5%; allow 3%.
  CHECK(std::sqrt(ss / count) == Approx(stats.noise_std).epsilon(0.03));

  // The clipped vector contributes exactly its clipped version to its region.
  DeServerConfig no_noise = cfg;
  no_noise.z = 1e-300;
  const DeServer quiet(no_noise, assignment, M);
  std::vector<Eigen::VectorXd> only(N, Eigen::VectorXd::Zero(M));
  only[4] = msgs[4];
  RandomStream rng3(5, "server");
  const Eigen::MatrixXd j = quiet.aggregate(1, pointers(only), rng3);
  const double w40 = de_weights(assignment, P, 1.0, 15.0)(4, 0);
  CHECK(j.col(0).norm() == Approx(w40 * 2.0 / std::sqrt(2.0)).epsilon(1e-9));
}

TEST_CASE("malformed and missing messages are never aggregated", "[fbo]") {
  const int N = 5, M = 3;
  DeServerConfig cfg;
  const DeServer server(cfg, std::vector<int>(N, 0), M);
  auto msgs = random_messages(N, M, 6);
  msgs[0](1) = std::numeric_limits<double>::quiet_NaN();
  msgs[1](0) = std::numeric_limits<double>::infinity();
  msgs[2] = Eigen::VectorXd::Ones(M + 1);  // wrong dimension
  auto ptrs = pointers(msgs);
  ptrs[3] = nullptr;  // a straggler
  RandomStream rng(7, "server");
  RoundStats stats;
  const Eigen::MatrixXd joint = server.aggregate(1, ptrs, rng, &stats);
  CHECK(stats.rejected == 3);
  CHECK(stats.received == 1);
  CHECK(stats.selected == 1);
  CHECK(joint.allFinite());
  CHECK((joint.col(0) - msgs[4] / N).norm() < 1e-12);
}

TEST_CASE("bad server parameters are rejected", "[fbo]") {
  DeServerConfig cfg;
  cfg.q = 0.0;
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("q must be in (0, 1]"));
  cfg.q = 1.5;
  CHECK_THROWS_AS(cfg.validate(), std::invalid_argument);
  cfg.q = 0.5;
  cfg.privatise = true;
  cfg.z = 0.0;
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("z must be"));
  cfg.z = 1.0;
  cfg.clip = -1;
  CHECK_THROWS_WITH(cfg.validate(), Catch::Contains("S must be"));
  CHECK_THROWS_AS(DeServer(DeServerConfig{}, {0, 1}, 3), std::invalid_argument);  // region 1 >= P
}
