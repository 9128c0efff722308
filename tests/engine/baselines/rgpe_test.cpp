// RGPE (Feurer et al. 2018) as FTS section 3.2 adapts it: ranking losses, leave-one-out, the
// weights on clear cases, the ensemble against a slower direct computation, the acquisition.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "engine/baselines/expected_improvement.hpp"
#include "engine/baselines/rgpe.hpp"
#include "tests/engine/baselines/transfer_fixture.hpp"

using namespace fedsim;
using namespace fedsim::baselines;
using fedsim::baselines::testing::box_context;
using fedsim::baselines::testing::bumps;
using fedsim::baselines::testing::every;
using fedsim::baselines::testing::grid_context;
using fedsim::baselines::testing::observing;

namespace {

/// The RFF GP posterior in its kernel form (FTS appendix B): k(x,x') = phi(x)'phi(x'),
/// mean k_t(x)'(K + lambda I)^-1 y, variance k(x,x) - k_t(x)'(K + lambda I)^-1 k_t(x).
/// Independent of the feature-space code: t x t solves, no Sigma^-1.
void kernel_form(const Eigen::MatrixXd& Phi_t, const Eigen::VectorXd& y, double lambda,
                 const Eigen::MatrixXd& Phi, Eigen::VectorXd& mean, Eigen::VectorXd& var) {
  const Eigen::MatrixXd K =
      Phi_t * Phi_t.transpose() + lambda * Eigen::MatrixXd::Identity(y.size(), y.size());
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(K);
  mean.resize(Phi.rows());
  var.resize(Phi.rows());
  for (Eigen::Index j = 0; j < Phi.rows(); ++j) {
    const Eigen::VectorXd k = Phi_t * Phi.row(j).transpose();
    mean(j) = k.dot(lu.solve(y));
    var(j) = Phi.row(j).squaredNorm() - k.dot(lu.solve(k));
  }
}

Eigen::MatrixXd rows(const Eigen::MatrixXd& Phi, const std::vector<int>& idx) {
  Eigen::MatrixXd out(idx.size(), Phi.cols());
  for (std::size_t k = 0; k < idx.size(); ++k) out.row(k) = Phi.row(idx[k]);
  return out;
}

Eigen::VectorXd values(const fbo::AgentContext& c, const std::vector<int>& idx,
                       double (*g)(double)) {
  Eigen::VectorXd y(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) y(k) = g(c.grid.points(idx[k], 0));
  return y;
}

double negated_bumps(double x) { return -bumps(x); }
double shifted_bumps(double x) { return bumps(x) + 0.05 * std::cos(40 * x); }

}  // namespace

TEST_CASE("rgpe params validate", "[baselines][rgpe]") {
  RgpeParams p;
  CHECK_NOTHROW(p.validate());
  p.samples = 0;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("samples S must be in [1, 100000]"));
  p = {};
  p.dilution_percentile = 0;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("dilution_percentile must be in (0, 100]"));
}

TEST_CASE("rgpe ranking losses: closed forms", "[baselines][rgpe]") {
  Eigen::VectorXd y(4);
  y << 0.1, 0.7, 0.3, 0.9;
  CHECK(ranking_loss(y, y) == 0);
  CHECK(ranking_loss(-y, y) == 12);  // every ordered pair j != k reversed: t (t - 1)
  CHECK(ranking_loss(2 * y.array() + 5, y) == 0);  // only the order counts
  Eigen::VectorXd f = y;
  std::swap(f(0), f(2));  // swaps the order of 0.1 and 0.3 only: pairs (0,2), (2,0)
  CHECK(ranking_loss(f, y) == 2);
  // LOO: f_j against the other observations' y_k.
  CHECK(loo_ranking_loss(y, y) == 0);
  Eigen::VectorXd loo = y;
  loo(0) = 0.8;  // now above 0.7 and 0.3, below 0.9: wrong against k = 1, 2
  CHECK(loo_ranking_loss(loo, y) == 2);
  CHECK(ranking_loss(Eigen::VectorXd::Constant(1, 3.0), Eigen::VectorXd::Constant(1, 1.0)) == 0);
}

TEST_CASE("rgpe percentile interpolates linearly", "[baselines][rgpe]") {
  CHECK(percentile({4, 1, 3, 2}, 50) == Approx(2.5));
  CHECK(percentile({4, 1, 3, 2}, 95) == Approx(3.85));
  CHECK(percentile({4, 1, 3, 2}, 100) == 4);
  CHECK(percentile({7}, 95) == 7);
}

TEST_CASE("rgpe leave-one-out equals refitting without the point", "[baselines][rgpe]") {
  const auto context = grid_context(80, 12);
  const std::vector<int> seen{3, 11, 20, 33, 47, 52, 70};
  const fbo::FboAgent agent = observing(0, context, seen, bumps);
  const FeatureSurrogate model = make_surrogate(agent, *context);
  const Eigen::MatrixXd Phi = observed_features(agent, *context);
  const Eigen::VectorXd y = observed_values(agent);
  Eigen::VectorXd mean, variance;
  loo_predictions(model, Phi, y, mean, variance);
  for (std::size_t j = 0; j < seen.size(); ++j) {
    std::vector<int> rest = seen;
    rest.erase(rest.begin() + j);
    const FeatureSurrogate without = make_surrogate(observing(0, context, rest, bumps), *context);
    const Eigen::VectorXd phi = Phi.row(j).transpose();
    CHECK(mean(j) == Approx(without.mean(phi)).epsilon(1e-8).margin(1e-10));
    CHECK(variance(j) == Approx(without.variance(phi)).epsilon(1e-8));
  }
}

TEST_CASE("rgpe with copies of the target: the ensemble predicts as the target",
          "[baselines][rgpe]") {
  const auto context = grid_context(120, 16);
  const fbo::FboAgent target = observing(0, context, {5, 18, 30, 47, 61, 77, 90, 111}, bumps);
  const FeatureSurrogate own = make_surrogate(target, *context);
  const std::vector<FeatureSurrogate> copies(3, own);
  RgpeParams params;
  params.samples = 4000;
  const RgpeWeights w = rgpe_weights(copies, own, observed_features(target, *context),
                                     observed_values(target), params,
                                     RandomStream(11, "test.rgpe"));
  REQUIRE(w.weights.size() == 4);
  CHECK(std::accumulate(w.weights.begin(), w.weights.end(), 0.0) == Approx(1.0).epsilon(1e-12));
  for (bool d : w.dropped) CHECK_FALSE(d);  // a copy ranks at least as well as the target's LOO
  // The copies are exchangeable: equal weights up to sampling error (S = 4000: sd of a share
  // about 0.008; tolerance 0.05).
  for (int n = 1; n < 3; ++n) CHECK(std::abs(w.weights[n] - w.weights[0]) < 0.05);
  // Predictions: the ensemble mean is the target's (weights sum to 1), its variance the
  // target's times sum w_i^2 (the models are the same, taken as independent).
  const EnsemblePrediction e = ensemble_predict(copies, own, w.weights, context->grid_features);
  Eigen::VectorXd mean, variance;
  own.predict(context->grid_features, mean, variance);
  double sum_sq = 0;
  for (double v : w.weights) sum_sq += v * v;
  CHECK((e.mean - mean).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((e.variance - sum_sq * variance).cwiseAbs().maxCoeff() < 1e-14);
  // And the target alone (no other agent) gets all the weight.
  const RgpeWeights alone = rgpe_weights({}, own, observed_features(target, *context),
                                         observed_values(target), params,
                                         RandomStream(11, "test.rgpe"));
  CHECK(alone.weights == std::vector<double>{1.0});
}

TEST_CASE("rgpe gives a surrogate of far-off data a weight near 0", "[baselines][rgpe]") {
  // The target observed bumps at 10 points; one peer observed a close function densely, the
  // other the negated function (every ranking reversed).
  const auto context = grid_context(200, 40, 0.08);
  const fbo::FboAgent target = observing(0, context, every(7, 200, 20), bumps);
  const std::vector<FeatureSurrogate> base{
      make_surrogate(observing(1, context, every(0, 200, 4), shifted_bumps), *context),
      make_surrogate(observing(2, context, every(2, 200, 4), negated_bumps), *context)};
  const FeatureSurrogate own = make_surrogate(target, *context);
  RgpeParams params;
  params.samples = 1000;
  for (bool guard : {true, false}) {
    params.dilution_guard = guard;
    const RgpeWeights w = rgpe_weights(base, own, observed_features(target, *context),
                                       observed_values(target), params,
                                       RandomStream(5, "test.rgpe.far"));
    INFO("guard " << guard << ": weights " << w.weights[0] << " " << w.weights[1] << " "
                  << w.weights[2]);
    CHECK(w.weights[1] <= 0.01);  // the far-off surrogate
    CHECK(w.weights[0] >= 0.5);   // the close one carries most of the weight
    CHECK(w.dropped[1] == guard);
    CHECK_FALSE(w.dropped[0]);
  }
}

TEST_CASE("rgpe ensemble against the kernel form, model by model", "[baselines][rgpe]") {
  const auto context = grid_context(90, 20, 0.1, 0.02);
  const std::vector<std::vector<int>> data{every(1, 90, 9), every(4, 90, 6), every(0, 90, 13)};
  double (*functions[])(double) = {bumps, shifted_bumps, negated_bumps};
  std::vector<FeatureSurrogate> base;
  for (int n = 0; n < 2; ++n)
    base.push_back(make_surrogate(observing(n + 1, context, data[n], functions[n]), *context));
  const FeatureSurrogate target =
      make_surrogate(observing(0, context, data[2], functions[2]), *context);
  const std::vector<double> w{0.2, 0.3, 0.5};
  const EnsemblePrediction e = ensemble_predict(base, target, w, context->grid_features);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(90), var = Eigen::VectorXd::Zero(90);
  for (int i = 0; i < 3; ++i) {
    Eigen::VectorXd m, v;
    kernel_form(rows(context->grid_features, data[i]), values(*context, data[i], functions[i]),
                context->lambda, context->grid_features, m, v);
    mean += w[i] * m;
    var += w[i] * w[i] * v;
  }
  CHECK((e.mean - mean).cwiseAbs().maxCoeff() < 1e-8);
  CHECK((e.variance - var).cwiseAbs().maxCoeff() < 1e-8);
  CHECK_THROWS_AS(ensemble_predict(base, target, {0.5, 0.5}, context->grid_features),
                  std::invalid_argument);
}

TEST_CASE("rgpe chooses the argmax of EI on the ensemble", "[baselines][rgpe]") {
  const auto context = grid_context(150, 24);
  const fbo::FboAgent target = observing(0, context, {10, 60, 100, 140}, bumps);
  const std::vector<FeatureSurrogate> base{
      make_surrogate(observing(1, context, every(0, 150, 5), shifted_bumps), *context),
      make_surrogate(observing(2, context, every(3, 150, 7), negated_bumps), *context)};
  RgpeParams params;
  params.samples = 300;
  RandomStream rng(21, "test.rgpe.choose");
  const RgpeChoice c = rgpe_choose(target, *context, base, params, rng);
  // The same weights again (the choice draws only from derived streams), then EI by hand.
  const RgpeWeights w = rgpe_weights(base, make_surrogate(target, *context),
                                     observed_features(target, *context),
                                     observed_values(target), params,
                                     RandomStream(21, "test.rgpe.choose"));
  CHECK(c.weights == w.weights);
  const EnsemblePrediction e = ensemble_predict(base, make_surrogate(target, *context), w.weights,
                                                context->grid_features);
  const double incumbent = observed_values(target).maxCoeff();
  int best = 0;
  double best_ei = -1;
  for (int j = 0; j < 150; ++j) {
    const double sd = std::sqrt(e.variance(j)), z = (e.mean(j) - incumbent) / sd;
    const double ei = (e.mean(j) - incumbent) * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
                      sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    if (ei > best_ei) best_ei = ei, best = j;
  }
  CHECK(c.point.index == best);
  CHECK(c.acquisition == Approx(best_ei).epsilon(1e-10));
  CHECK_THROWS_WITH(rgpe_choose(fbo::FboAgent(0, 0, context), *context, base, params, rng),
                    Catch::Contains("no observation"));
}

TEST_CASE("rgpe acquisition gradient on a box matches finite differences", "[baselines][rgpe]") {
  const auto context = box_context(2, 30);
  fbo::FboAgent target(0, 0, context), peer(1, 0, context);
  RandomStream pts(4, "test.points");
  for (int k = 0; k < 6; ++k) {
    Eigen::VectorXd x(2);
    x << pts.uniform(), pts.uniform();
    target.observe(fbo::Point{-1, x}, std::sin(5 * x(0)) * std::cos(3 * x(1)));
  }
  for (int k = 0; k < 15; ++k) {
    Eigen::VectorXd x(2);
    x << pts.uniform(), pts.uniform();
    peer.observe(fbo::Point{-1, x}, std::sin(5 * x(0)) * std::cos(3 * x(1)) + 0.1);
  }
  const std::vector<FeatureSurrogate> base{make_surrogate(peer, *context)};
  const FeatureSurrogate own = make_surrogate(target, *context);
  const std::vector<double> w{0.4, 0.6};
  const RgpeAcquisition a(base, own, w, observed_values(target).maxCoeff() - 0.3,
                          context->features);
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::VectorXd x(2), g(2), ignored(2);
    x << pts.uniform(0.1, 0.9), pts.uniform(0.1, 0.9);
    const double v = a.value_and_gradient(x, g);
    // The box value agrees with the batch one at the same point.
    const Eigen::MatrixXd phi = context->features.feature_matrix(x.transpose());
    CHECK(v == Approx(a.values(phi)(0)).epsilon(1e-10));
    for (int i = 0; i < 2; ++i) {
      const double h = 1e-6;
      Eigen::VectorXd up = x, down = x;
      up(i) += h;
      down(i) -= h;
      const double fd = (a.value_and_gradient(up, ignored) - a.value_and_gradient(down, ignored)) /
                        (2 * h);
      CHECK(g(i) == Approx(fd).epsilon(1e-4).margin(1e-7));
    }
  }
  RgpeParams params;
  params.samples = 64;
  RandomStream rng(2, "test.box");
  const RgpeChoice c = rgpe_choose(target, *context, base, params, rng);
  CHECK(c.point.index == -1);
  CHECK(context->partition.box().contains(c.point.x));
}
