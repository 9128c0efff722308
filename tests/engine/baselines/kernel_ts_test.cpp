#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "engine/baselines/kernel_ts.hpp"
#include "engine/baselines/kernel_ts_run.hpp"
#include "engine/objectives/garland.hpp"
#include "engine/rng.hpp"
#include "engine/xarmed/problem.hpp"

using fedsim::Box;
using fedsim::RandomStream;
using fedsim::baselines::KernelTs;
using fedsim::baselines::KernelTsParams;
using fedsim::baselines::KernelTsPosterior;
using fedsim::baselines::KernelTsScaling;
using fedsim::baselines::KernelTsState;

namespace {

double se(double a, double b, double l, double s2) {
  return s2 * std::exp(-(a - b) * (a - b) / (2.0 * l * l));
}

/// GP-TS written out from its definition on a 1-D candidate grid, independently of KernelTs:
/// mean k_cX (K + lambda I)^{-1} y, covariance K_cc - k_cX (K + lambda I)^{-1} k_Xc, a draw
/// mean + v L z with L the Cholesky factor of the covariance plus the smallest jitter
/// 1e-10 s2 * 10^k that factorises (ExactGp::sample_dense's documented rule).
struct DenseGpTs {
  Eigen::VectorXd grid;
  double l, s2, lambda, v;
  std::vector<int> xs;
  std::vector<double> ys;

  Eigen::VectorXd draw(RandomStream& rng) const {
    const Eigen::Index n = grid.size(), t = static_cast<Eigen::Index>(xs.size());
    Eigen::MatrixXd kcc(n, n), kcx(n, t), kxx(t, t);
    for (Eigen::Index a = 0; a < n; ++a)
      for (Eigen::Index b = 0; b < n; ++b) kcc(a, b) = se(grid(a), grid(b), l, s2);
    for (Eigen::Index a = 0; a < n; ++a)
      for (Eigen::Index s = 0; s < t; ++s) kcx(a, s) = se(grid(a), grid(xs[s]), l, s2);
    for (Eigen::Index a = 0; a < t; ++a)
      for (Eigen::Index b = 0; b < t; ++b) kxx(a, b) = se(grid(xs[a]), grid(xs[b]), l, s2);
    kxx.diagonal().array() += lambda;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
    Eigen::MatrixXd cov = kcc;
    if (t > 0) {
      const Eigen::LDLT<Eigen::MatrixXd> ldlt(kxx);
      const Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(ys.data(), t);
      mean = kcx * ldlt.solve(y);
      cov -= kcx * ldlt.solve(kcx.transpose());
    }
    for (double jitter = 1e-10 * s2;; jitter *= 10.0) {
      Eigen::MatrixXd a = cov;
      a.diagonal().array() += jitter;
      Eigen::LLT<Eigen::MatrixXd> llt(a);
      if (llt.info() != Eigen::Success) continue;
      Eigen::VectorXd z(n);
      for (Eigen::Index i = 0; i < n; ++i) z(i) = rng.normal();
      const Eigen::VectorXd lz = llt.matrixL() * z;
      return mean + v * lz;
    }
  }
};

int argmax(const Eigen::VectorXd& v) {
  int best = 0;
  for (int i = 1; i < v.size(); ++i)
    if (v(i) > v(best)) best = i;
  return best;
}

KernelTsParams small_params(KernelTsPosterior posterior) {
  KernelTsParams p;
  p.lengthscale = 0.15;
  p.signal_variance = 1.3;
  p.lambda = 0.05;
  p.v = 1.5;
  p.candidates_per_dim = 25;
  p.posterior = posterior;
  return p;
}

double toy(double x) { return std::sin(6.0 * x) + 0.5 * x; }

/// Two-sample chi-square statistic of two histograms, and its degrees of freedom.
double chi_square(const std::vector<int>& a, const std::vector<int>& b, int& df) {
  double stat = 0.0;
  df = -1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] + b[i] == 0) continue;
    stat += double(a[i] - b[i]) * double(a[i] - b[i]) / double(a[i] + b[i]);
    ++df;
  }
  return stat;
}

/// The 0.999 quantile of chi-square(df), by Wilson-Hilferty.
double chi_square_999(int df) {
  const double k = df, z = 3.090232;
  const double c = 1.0 - 2.0 / (9.0 * k) + z * std::sqrt(2.0 / (9.0 * k));
  return k * c * c * c;
}

}  // namespace

TEST_CASE("KernelTS with the exact posterior equals GP-TS from its definition, draw for draw",
          "[baselines][kernel-ts]") {
  const KernelTsParams p = small_params(KernelTsPosterior::exact);
  KernelTs ts(p, Box::unit(1));
  DenseGpTs ref{ts.candidates().col(0), p.lengthscale, p.signal_variance, p.lambda, p.v, {}, {}};
  RandomStream rng(11, "kernel-ts-test"), noise(11, "noise");
  for (int t = 0; t < 30; ++t) {
    RandomStream a = rng, b = rng;
    const Eigen::VectorXd mine = ts.sample(a);
    const Eigen::VectorXd theirs = ref.draw(b);
    REQUIRE((mine - theirs).cwiseAbs().maxCoeff() < 1e-6);
    const Eigen::VectorXd x = ts.propose(rng);
    REQUIRE(ts.pending() == argmax(theirs));
    REQUIRE(x(0) == ts.candidates()(argmax(theirs), 0));
    const double y = toy(x(0)) + noise.uniform(-0.1, 0.1);
    ref.xs.push_back(ts.pending());
    ref.ys.push_back(y);
    ts.observe(y);
  }
  CHECK(ts.num_observations() == 30);
}

TEST_CASE("KernelTS's factor posterior equals the exact one within 1e-6", "[baselines][kernel-ts]") {
  KernelTsParams p = small_params(KernelTsPosterior::exact);
  p.candidates_per_dim = 200;
  p.lengthscale = 0.08;
  p.lambda = 0.01;
  p.scaling = KernelTsScaling::theory;
  KernelTs exact(p, Box::unit(1));
  p.posterior = KernelTsPosterior::factor;
  KernelTs factor(p, Box::unit(1));
  CHECK(factor.factor_rank() < factor.num_candidates());
  RandomStream rng(3, "observations");
  for (int t = 0; t < 60; ++t) {
    const int c = static_cast<int>(rng.uniform_index(200));
    const double y = toy(exact.candidates()(c, 0)) + 0.1 * rng.normal();
    exact.observe(c, y);
    factor.observe(c, y);
  }
  CHECK((exact.posterior_mean() - factor.posterior_mean()).cwiseAbs().maxCoeff() < 1e-6);
  CHECK((exact.posterior_variance() - factor.posterior_variance()).cwiseAbs().maxCoeff() < 1e-6);
  // The information gain (and so the theory scaling v_t) agrees too.
  CHECK(factor.information_gain() == Approx(exact.information_gain()).epsilon(1e-8));
  CHECK(factor.scale() == Approx(exact.scale()).epsilon(1e-8));
  // gamma_t = 1/2 ln det(I + K_t / lambda), written out.
  const KernelTsState s = exact.state();
  Eigen::MatrixXd k(60, 60);
  for (int a = 0; a < 60; ++a)
    for (int b = 0; b < 60; ++b)
      k(a, b) = se(exact.candidates()(s.candidates[a], 0), exact.candidates()(s.candidates[b], 0),
                   p.lengthscale, p.signal_variance) / p.lambda;
  k.diagonal().array() += 1.0;
  const double gamma = Eigen::LLT<Eigen::MatrixXd>(k).matrixLLT().diagonal().array().log().sum();
  CHECK(exact.information_gain() == Approx(gamma).epsilon(1e-9));
  CHECK(exact.scale() == Approx(p.B + p.R * std::sqrt(2.0 * (gamma + 1.0 + std::log(2.0 / p.delta)))));
}

TEST_CASE("KernelTS's factor and exact samplers choose the same argmax distribution",
          "[baselines][kernel-ts]") {
  KernelTsParams p = small_params(KernelTsPosterior::exact);
  p.candidates_per_dim = 30;
  p.lambda = 0.1;
  p.v = 1.0;
  KernelTs exact(p, Box::unit(1));
  p.posterior = KernelTsPosterior::factor;
  KernelTs factor(p, Box::unit(1));
  p.v = 2.0;  // a wrong law: the test must tell it apart
  KernelTs wide(p, Box::unit(1));
  for (int c : {3, 10, 17, 24}) {
    const double y = toy(exact.candidates()(c, 0));
    exact.observe(c, y);
    factor.observe(c, y);
    wide.observe(c, y);
  }
  std::vector<int> ha(30, 0), hb(30, 0), hc(30, 0);
  RandomStream ra(1, "a"), rb(1, "b"), rc(1, "c");
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    ++ha[argmax(exact.sample(ra))];
    ++hb[argmax(factor.sample(rb))];
    ++hc[argmax(wide.sample(rc))];
  }
  int df = 0;
  const double same = chi_square(ha, hb, df);
  INFO("chi2 = " << same << " on " << df << " df");
  CHECK(df >= 3);
  CHECK(same < chi_square_999(df));
  const double different = chi_square(ha, hc, df);
  INFO("wrong law: chi2 = " << different << " on " << df << " df");
  CHECK(different > chi_square_999(df));
}

TEST_CASE("KernelTS restored from its state continues bit-identically", "[baselines][kernel-ts]") {
  for (KernelTsPosterior posterior : {KernelTsPosterior::exact, KernelTsPosterior::factor}) {
    KernelTsParams p = small_params(posterior);
    p.scaling = KernelTsScaling::theory;
    KernelTs ts(p, Box::unit(1));
    RandomStream rng(5, "kts");
    for (int t = 0; t < 15; ++t) ts.observe(toy(ts.propose(rng)(0)));
    ts.propose(rng);  // saved with a proposal pending
    const KernelTsState saved = ts.state();
    const RandomStream::State saved_rng = rng.state();
    std::vector<double> first;
    ts.observe(0.25);
    for (int t = 0; t < 10; ++t) {
      const Eigen::VectorXd s = ts.sample(rng);
      first.insert(first.end(), s.data(), s.data() + s.size());
      ts.observe(toy(ts.propose(rng)(0)));
    }
    KernelTs back(p, Box::unit(1));
    back.restore(saved);
    REQUIRE(back.pending() == saved.pending);
    RandomStream rng2 = RandomStream::from_state(saved_rng);
    std::vector<double> second;
    back.observe(0.25);
    for (int t = 0; t < 10; ++t) {
      const Eigen::VectorXd s = back.sample(rng2);
      second.insert(second.end(), s.data(), s.data() + s.size());
      back.observe(toy(back.propose(rng2)(0)));
    }
    CHECK(first == second);
    CHECK(back.state().values == ts.state().values);
    CHECK(back.information_gain() == ts.information_gain());
  }
}

TEST_CASE("KernelTS rejects a bad state and leaves itself unchanged", "[baselines][kernel-ts]") {
  KernelTs ts(small_params(KernelTsPosterior::factor), Box::unit(1));
  ts.observe(3, 1.0);
  KernelTsState bad;
  bad.candidates = {1, 25};
  bad.values = {0.0, 0.0};
  CHECK_THROWS_WITH(ts.restore(bad), Catch::Contains("out of range"));
  bad.candidates = {1};
  CHECK_THROWS_WITH(ts.restore(bad), Catch::Contains("differ in length"));
  bad.values = {std::nan("")};
  CHECK_THROWS_WITH(ts.restore(bad), Catch::Contains("not finite"));
  CHECK(ts.num_observations() == 1);
  CHECK_THROWS_AS(ts.observe(1.0), std::logic_error);  // nothing pending
  CHECK_THROWS_AS(ts.observe(0, INFINITY), std::invalid_argument);
}

TEST_CASE("KernelTS parameters are validated naming the parameter", "[baselines][kernel-ts]") {
  const auto rejects = [](auto edit, const char* name) {
    KernelTsParams p;
    edit(p);
    CHECK_THROWS_WITH(p.validate(), Catch::Contains(name));
  };
  rejects([](KernelTsParams& p) { p.lengthscale = 0; }, "lengthscale");
  rejects([](KernelTsParams& p) { p.signal_variance = -1; }, "signal_variance");
  rejects([](KernelTsParams& p) { p.lambda = NAN; }, "lambda");
  rejects([](KernelTsParams& p) { p.v = -0.5; }, "v must");
  rejects([](KernelTsParams& p) { p.B = INFINITY; }, "B must");
  rejects([](KernelTsParams& p) { p.R = -1; }, "R must");
  rejects([](KernelTsParams& p) { p.delta = 1.0; }, "delta");
  rejects([](KernelTsParams& p) { p.candidates_per_dim = 1; }, "candidates_per_dim");
  rejects([](KernelTsParams& p) { p.factor_tolerance = 0; }, "factor_tolerance");
  KernelTsParams ok;
  CHECK_NOTHROW(ok.validate());
  ok.candidates_per_dim = 400;
  CHECK_THROWS_WITH(KernelTs(ok, Box::unit(2)), Catch::Contains("candidates_per_dim^d"));
  CHECK(KernelTsParams{}.points_per_dim(1) == 1000);
  CHECK(KernelTsParams{}.points_per_dim(2) == 31);
  CHECK(KernelTsParams{}.points_per_dim(3) == 10);
}

TEST_CASE("KernelTS's reference loop on Garland: records, regret and learning",
          "[baselines][kernel-ts]") {
  fedsim::xarmed::ProblemConfig pc;
  pc.objective = fedsim::xarmed::ObjectiveKind::garland;
  const auto problem = fedsim::xarmed::make_problem(pc);
  fedsim::baselines::KernelTsRunConfig config;
  config.budget = 2000;
  config.seed = 4;
  // A kernel that can resolve Garland's peaks (NeuralTS's default l = 0.71 cannot).
  config.params.lengthscale = 0.05;
  config.params.lambda = 0.01;
  const auto result = fedsim::baselines::run_kernel_ts(config, problem);
  REQUIRE(result.records.size() == 2000);
  const fedsim::Garland g;
  double total = 0.0, late = 0.0;
  for (std::size_t t = 0; t < result.records.size(); ++t) {
    const auto& r = result.records[t];
    CHECK(r.round == static_cast<std::int64_t>(t));
    const double regret = g.optimum_value() - g.value(r.query);
    CHECK(r.regret == regret);
    CHECK(std::abs(r.outcome - g.value(r.query)) <= problem.noise);
    total += regret;
    CHECK(r.cumulative_regret == total);
    if (t >= 1500) late += regret / 500.0;
  }
  CHECK(result.cumulative_regret == total);
  // It learns: the mean regret of the last 500 rounds is below a quarter of uniform random
  // play's (f* minus the mean of f over [0, 1], by a midpoint sum).
  double mean_f = 0.0;
  for (int i = 0; i < 100000; ++i) mean_f += g.value(Eigen::VectorXd::Constant(1, (i + 0.5) / 1e5)) / 1e5;
  const double uniform_regret = g.optimum_value() - mean_f;
  INFO("late mean regret " << late << ", uniform play's " << uniform_regret);
  CHECK(late < 0.25 * uniform_regret);
  // Same config, same records.
  const auto again = fedsim::baselines::run_kernel_ts(config, problem);
  CHECK(again.cumulative_regret == result.cumulative_regret);
}
