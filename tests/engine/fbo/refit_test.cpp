// GP hyperparameter refits during a run (engine/fbo/refit, FboAgent::observe): recovery of
// known generating hyperparameters, the bounds, which parts use the fitted values, and
// determinism (the same history refits the same, bit for bit).
#include "engine/fbo/refit.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/fbo/agent.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "engine/kernel.hpp"
#include "tests/engine/fbo/gp_samples.hpp"

using namespace fedsim;
using namespace fedsim::fbo;
using fedsim::test::gp_draw;
using fedsim::test::uniform_points;

namespace {

/// A context on the 1-D grid of `grid` points with the given refits; one sub-region.
std::shared_ptr<const AgentContext> context_with(RefitConfig refit, LocalSampler sampler,
                                                 int grid = 200, double lengthscale = 0.1) {
  return std::make_shared<const AgentContext>(
      Grid::uniform_1d(grid), RandomFourierFeatures(1, 30, SeKernel{lengthscale, 1.0}, 99),
      Partition(Box::unit(1), 1), 0.01, 1.0, sampler, refit, 7);
}

}  // namespace

TEST_CASE("refit: recovers the hyperparameters a function was drawn with", "[fbo][refit][sanitizer-heavy]") {
  // 2-D, 200 scattered points, l = 0.2: about 25 length-scale cells inform s2. Stated
  // tolerances: l within 20%, n2 within 50% (200 residuals), s2 within a factor of 2.
  const double l = 0.2, s2 = 2.0, n2 = 0.05;
  const Eigen::MatrixXd X = uniform_points(200, 2, 3);
  const Eigen::VectorXd y = gp_draw(X, l, s2, n2, 4);
  RefitConfig c;
  c.every = 5;
  c.noise_max = 10.0;
  const GpHyperparameters h = refit_hyperparameters(X, y, c, 1.0, true, 1, 0);
  INFO("l = " << h.lengthscales(0) << ", s2 = " << h.signal_variance
              << ", n2 = " << h.noise_variance);
  CHECK(h.lengthscales(0) == Approx(l).epsilon(0.2));
  CHECK(h.noise_variance == Approx(n2).epsilon(0.5));
  CHECK(h.signal_variance > s2 / 2);
  CHECK(h.signal_variance < s2 * 2);

  // Held length scale (the rff sampler): exactly the given one; s2 and n2 still recovered.
  const GpHyperparameters held = refit_hyperparameters(X, y, c, l, false, 1, 0);
  CHECK(held.lengthscales(0) == l);
  CHECK(held.noise_variance == Approx(n2).epsilon(0.5));
  CHECK(held.signal_variance > s2 / 2);
  CHECK(held.signal_variance < s2 * 2);
  // A wrong held length scale costs likelihood: the fit is not blind to it.
  CHECK(log_marginal_likelihood(X, y, held) >
        log_marginal_likelihood(X, y, refit_hyperparameters(X, y, c, 0.02, false, 1, 0)) + 10);
}

TEST_CASE("refit: the bounds hold where the unbounded optimum lies outside them", "[fbo][refit]") {
  RefitConfig c;
  c.every = 5;
  SECTION("a smooth function and a length-scale ceiling below its length scale") {
    const Eigen::MatrixXd X = uniform_points(60, 1, 5);
    const Eigen::VectorXd y = gp_draw(X, 0.5, 1.0, 1e-3, 6);
    RefitConfig wide = c;
    wide.lengthscale_max = 100.0;
    const GpHyperparameters free = refit_hyperparameters(X, y, wide, 1.0, true, 1, 0);
    REQUIRE(free.lengthscales(0) > 0.2);  // the premise: the optimum lies above 0.1
    c.lengthscale_max = 0.1;
    const GpHyperparameters h = refit_hyperparameters(X, y, c, 1.0, true, 1, 0);
    CHECK(h.lengthscales(0) <= 0.1);
    CHECK(h.lengthscales(0) == Approx(0.1).epsilon(1e-6));
  }
  SECTION("noisy data and a noise ceiling below the noise") {
    const Eigen::MatrixXd X = uniform_points(80, 1, 7);
    const Eigen::VectorXd y = gp_draw(X, 0.2, 1.0, 0.2, 8);
    c.noise_max = 0.01;
    const GpHyperparameters h = refit_hyperparameters(X, y, c, 1.0, true, 1, 0);
    CHECK(h.noise_variance <= 0.01);
    CHECK(h.noise_variance == Approx(0.01).epsilon(1e-6));
  }
  SECTION("a noise floor above the noise") {
    const Eigen::MatrixXd X = uniform_points(80, 1, 9);
    const Eigen::VectorXd y = gp_draw(X, 0.2, 1.0, 1e-4, 10);
    c.noise_min = 0.01;
    const GpHyperparameters h = refit_hyperparameters(X, y, c, 1.0, true, 1, 0);
    CHECK(h.noise_variance >= 0.01);
    CHECK(h.noise_variance == Approx(0.01).epsilon(1e-6));
  }
  SECTION("a few scattered points of a wiggly function: unbounded, the length scale runs off") {
    // The failure the bounds exist for: 10 points of an l = 0.03 function (offset like the
    // synthetic objectives' [0, 1] values) look like noise around a constant, and an unbounded
    // fit explains them so, with a length scale at its (here 1e4) ceiling.
    const Eigen::MatrixXd X = uniform_points(10, 1, 1);
    const Eigen::VectorXd y = gp_draw(X, 0.03, 0.1, 0.01, 101).array() + 0.5;
    RefitConfig wide = c;
    wide.lengthscale_max = 1e4;
    const GpHyperparameters free = refit_hyperparameters(X, y, wide, 1.0, true, 1, 0);
    INFO("unbounded l = " << free.lengthscales(0));
    CHECK(free.lengthscales(0) > 100.0);
    const GpHyperparameters h = refit_hyperparameters(X, y, c, 1.0, true, 1, 0);
    CHECK(h.lengthscales(0) <= c.lengthscale_max);
    CHECK(h.lengthscales(0) >= c.lengthscale_min);
  }
}

TEST_CASE("refit: bad settings are rejected naming the parameter", "[fbo][refit]") {
  auto error = [](RefitConfig c) -> std::string {
    try {
      c.validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  RefitConfig c;
  CHECK(error(c).empty());
  c.every = -1;
  CHECK_THAT(error(c), Catch::Contains("refit_every"));
  c = {};
  c.restarts = 0;
  CHECK_THAT(error(c), Catch::Contains("refit_restarts"));
  c = {};
  c.lengthscale_min = 0.0;
  CHECK_THAT(error(c), Catch::Contains("refit_lengthscale_min"));
  c = {};
  c.lengthscale_max = c.lengthscale_min;
  CHECK_THAT(error(c), Catch::Contains("refit_lengthscale_max"));
  c = {};
  c.noise_max = std::nan("");
  CHECK_THAT(error(c), Catch::Contains("refit_noise_max"));
  c = {};
  c.noise_min = -1.0;
  CHECK_THAT(error(c), Catch::Contains("refit_noise_min"));
  ReferenceConfig r;
  r.refit.noise_max = r.refit.noise_min / 2;
  CHECK_THROWS_WITH(r.validate(), Catch::Contains("refit_noise_max"));
  CHECK_FALSE(c.due(5));
  c.every = 5;
  CHECK_FALSE(c.due(0));
  CHECK_FALSE(c.due(4));
  CHECK(c.due(5));
  CHECK(c.due(10));
}

TEST_CASE("an agent refits every k observations, only local TS uses the fitted values",
          "[fbo][refit]") {
  RefitConfig on;
  on.every = 4;
  const auto plain = context_with({}, LocalSampler::rff);
  const auto fitted = context_with(on, LocalSampler::rff);
  FboAgent a(3, 0, plain), b(3, 0, fitted);
  const Eigen::VectorXd values = gp_draw(plain->grid.points, 0.1, 1.0, 0.01, 21);
  RandomStream pick(1, "test.pick");
  for (int s = 1; s <= 13; ++s) {
    const int index = static_cast<int>(pick.uniform_index(plain->grid.size()));
    a.observe(index, values(index));
    b.observe(index, values(index));
    CHECK(b.refits() == s / 4);
  }
  CHECK(a.refits() == 0);
  // Without refits the local model is the shared one.
  CHECK(a.local_hyperparameters().lengthscales(0) == 0.1);
  CHECK(a.local_hyperparameters().signal_variance == 1.0);
  CHECK(a.local_hyperparameters().noise_variance == 0.01);
  CHECK(a.local_posterior().lambda() == 0.01);

  // rff sampler: the length scale is held at the features' one; s2 and n2 are fitted.
  const GpHyperparameters& h = b.local_hyperparameters();
  CHECK(h.lengthscales(0) == 0.1);
  CHECK(h.signal_variance != 1.0);
  CHECK(h.noise_variance != 0.01);
  // The local posterior is the closed form with regulariser n2 / s2 on every observation.
  const FeaturePosterior& local = b.local_posterior();
  CHECK(local.lambda() == Approx(h.noise_variance / h.signal_variance).epsilon(1e-14));
  CHECK(local.num_observations() == 13);
  Eigen::MatrixXd phi(13, 30);
  Eigen::VectorXd y(13);
  for (int s = 0; s < 13; ++s) {
    phi.row(s) = plain->grid_features.row(b.history()[s].first.index);
    y(s) = b.history()[s].second;
  }
  const Eigen::MatrixXd sigma =
      phi.transpose() * phi + local.lambda() * Eigen::MatrixXd::Identity(30, 30);
  const Eigen::VectorXd nu = sigma.ldlt().solve(phi.transpose() * y);
  CHECK((local.mean() - nu).norm() < 1e-8 * (1.0 + nu.norm()));

  // The message is the shared model's whatever the refits: same draws as without them.
  for (int t = 0; t < 3; ++t) {
    RandomStream ra(5, "agent.message", 3, t), rb(5, "agent.message", 3, t);
    CHECK(a.sample_message(ra) == b.sample_message(rb));
  }
  // Local TS differs (another posterior, another scale) somewhere over 20 draws.
  int differ = 0;
  for (int t = 1; t <= 20; ++t) {
    RandomStream ra(5, "agent.choose", 3, t), rb(5, "agent.choose", 3, t);
    differ += a.argmax_local_ts(ra).index != b.argmax_local_ts(rb).index;
  }
  CHECK(differ > 0);
}

TEST_CASE("exact local sampler: every hyperparameter is refitted and sampled with",
          "[fbo][refit]") {
  RefitConfig on;
  on.every = 5;
  on.restarts = 3;
  const auto fitted = context_with(on, LocalSampler::exact, 150);
  FboAgent b(1, 0, fitted);
  // A function with l = 0.05 (the features' is 0.1), observed at 40 points.
  const Eigen::VectorXd values = gp_draw(fitted->grid.points, 0.05, 0.5, 1e-3, 31);
  RandomStream pick(2, "test.pick");
  for (int s = 0; s < 40; ++s) {
    const int index = static_cast<int>(pick.uniform_index(fitted->grid.size()));
    b.observe(index, values(index));
  }
  CHECK(b.refits() == 8);
  const GpHyperparameters& h = b.local_hyperparameters();
  INFO("l = " << h.lengthscales(0) << ", s2 = " << h.signal_variance
              << ", n2 = " << h.noise_variance);
  CHECK(h.lengthscales(0) != 0.1);
  CHECK(h.lengthscales(0) == Approx(0.05).epsilon(0.3));
  // Exact local TS samples the GP with the fitted kernel and noise.
  CHECK(b.exact_gp() != nullptr);
  CHECK(b.exact_gp()->prior().kernel().lengthscale == h.lengthscales(0));
  CHECK(b.exact_gp()->prior().kernel().variance == h.signal_variance);
  CHECK(b.exact_gp()->lambda() == h.noise_variance);
  CHECK(b.exact_gp()->num_observations() == 40);
  RandomStream rng(3, "test.sample");
  const int k = b.argmax_local_ts(rng).index;
  CHECK(k >= 0);
  CHECK(k < fitted->grid.size());
}

TEST_CASE("refits are deterministic: the same history refits the same, bit for bit",
          "[fbo][refit]") {
  RefitConfig on;
  on.every = 3;
  for (LocalSampler sampler : {LocalSampler::rff, LocalSampler::exact}) {
    const auto context = context_with(on, sampler, 120);
    FboAgent a(2, 0, context);
    const Eigen::VectorXd values = gp_draw(context->grid.points, 0.1, 1.0, 0.01, 41);
    RandomStream pick(4, "test.pick");
    for (int s = 0; s < 10; ++s) {
      const int index = static_cast<int>(pick.uniform_index(context->grid.size()));
      a.observe(index, values(index));
    }
    FboAgent replay(2, 0, context);  // a checkpoint's resume: the history observed again
    for (const auto& [point, y] : a.history()) replay.observe(point, y);
    CHECK(replay.refits() == a.refits());
    CHECK(replay.local_hyperparameters().to_log() == a.local_hyperparameters().to_log());
    for (int t = 1; t <= 5; ++t) {
      RandomStream ra(9, "agent.choose", 2, t), rb(9, "agent.choose", 2, t);
      CHECK(a.argmax_local_ts(ra).index == replay.argmax_local_ts(rb).index);
    }
    // Another agent id draws other restarts (its own stream), from the same data.
    FboAgent other(5, 0, context);
    for (const auto& [point, y] : a.history()) other.observe(point, y);
    CHECK(other.refits() == a.refits());
  }
}

TEST_CASE("the reference loop with refits: deterministic, and off means unchanged",
          "[fbo][refit][loop]") {
  ReferenceConfig c;
  c.agents = 6;
  c.iterations = 10;
  c.n_init = 4;
  c.features = 20;
  c.objective.grid_size = 200;
  c.algorithm = Algorithm::fts_de;
  const ReferenceResult off = run_reference(c);
  c.refit.every = 5;
  const ReferenceResult on1 = run_reference(c), on2 = run_reference(c);
  REQUIRE(on1.observations.size() == off.observations.size());
  bool same_as_off = true;
  for (size_t i = 0; i < on1.observations.size(); ++i) {
    CHECK(on1.observations[i].index == on2.observations[i].index);
    CHECK(on1.observations[i].y == on2.observations[i].y);
    same_as_off = same_as_off && on1.observations[i].index == off.observations[i].index;
  }
  CHECK_FALSE(same_as_off);  // the refits changed some local TS query
  c.refit.every = 0;
  c.refit.noise_min = 0.5;  // bounds are inert without refits
  const ReferenceResult off2 = run_reference(c);
  for (size_t i = 0; i < off.observations.size(); ++i)
    CHECK(off.observations[i].index == off2.observations[i].index);
}

TEST_CASE("refit: degenerate histories fit within the bounds without throwing", "[fbo][refit]") {
  RefitConfig c;
  c.every = 1;
  for (LocalSampler sampler : {LocalSampler::rff, LocalSampler::exact}) {
    const auto context = context_with(c, sampler, 50);
    INFO("sampler " << to_string(sampler));
    auto check_bounds = [&](const FboAgent& a) {
      const GpHyperparameters& h = a.local_hyperparameters();
      if (sampler == LocalSampler::exact) {
        CHECK(h.lengthscales(0) >= c.lengthscale_min);
        CHECK(h.lengthscales(0) <= c.lengthscale_max);
      }
      CHECK(h.noise_variance >= c.noise_min);
      CHECK(h.noise_variance <= c.noise_max);
      CHECK(std::isfinite(h.signal_variance));
      RandomStream rng(1, "test.sample");
      CHECK(a.argmax_local_ts(rng).index >= 0);
    };
    FboAgent same_point(0, 0, context);  // TS re-querying one argmax: repeated rows of X
    for (int s = 0; s < 12; ++s) same_point.observe(7, 0.3 + 0.01 * (s % 3));
    CHECK(same_point.refits() == 12);
    check_bounds(same_point);
    FboAgent zeros(1, 0, context);  // all-zero outputs: no signal at all
    for (int s = 0; s < 6; ++s) zeros.observe(s * 5, 0.0);
    check_bounds(zeros);
    FboAgent huge(2, 0, context);  // outputs far beyond the signal-variance bound
    for (int s = 0; s < 6; ++s) huge.observe(s * 7, s % 2 ? 1e6 : -1e6);
    check_bounds(huge);
    CHECK(huge.local_hyperparameters().noise_variance == c.noise_max);
  }
}
