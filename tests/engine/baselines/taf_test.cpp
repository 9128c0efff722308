// TAF (Wistuba et al. 2018) as FTS section 3.2 adapts it: TST-R weights in closed form, the
// acquisition with no other agent is EI, the improvement terms, the gradient on a box.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "engine/baselines/expected_improvement.hpp"
#include "engine/baselines/taf.hpp"
#include "tests/engine/baselines/transfer_fixture.hpp"

using namespace fedsim;
using namespace fedsim::baselines;
using fedsim::baselines::testing::box_context;
using fedsim::baselines::testing::bumps;
using fedsim::baselines::testing::every;
using fedsim::baselines::testing::grid_context;
using fedsim::baselines::testing::observing;

namespace {

double negated_bumps(double x) { return -bumps(x); }

/// EI written out from its definition: (mu - y*) Phi(z) + sd phi(z).
double closed_form_ei(double mu, double var, double incumbent) {
  const double sd = std::sqrt(var), z = (mu - incumbent) / sd;
  return (mu - incumbent) * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
         sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
}

}  // namespace

TEST_CASE("taf params and names validate", "[baselines][taf]") {
  TafParams p;
  CHECK_NOTHROW(p.validate());
  p.bandwidth = 0;
  CHECK_THROWS_WITH(p.validate(), Catch::Contains("bandwidth rho must be in (0, 10]"));
  CHECK(parse_taf_improvement("mean") == TafImprovement::mean);
  CHECK(to_string(TafImprovement::expected) == "expected");
  CHECK_THROWS_WITH(parse_taf_improvement("ei"), Catch::Contains("allowed expected, mean"));
}

TEST_CASE("expected improvement: closed form and limits", "[baselines][taf]") {
  CHECK(expected_improvement_of_variance(1.3, 0.25, 1.0).value == Approx(closed_form_ei(1.3, 0.25, 1.0)));
  CHECK(expected_improvement_of_variance(0.2, 0.0, 1.0).value == 0.0);
  CHECK(expected_improvement_of_variance(1.5, 0.0, 1.0).value == 0.5);
  CHECK(expected_improvement_of_variance(1.5, -1e-18, 1.0).d_mean == 1.0);
  // Derivatives against finite differences.
  const double h = 1e-6;
  const VarianceExpectedImprovement e = expected_improvement_of_variance(0.7, 0.09, 0.8);
  CHECK(e.d_mean == Approx((expected_improvement_of_variance(0.7 + h, 0.09, 0.8).value -
                            expected_improvement_of_variance(0.7 - h, 0.09, 0.8).value) / (2 * h))
                        .epsilon(1e-6));
  CHECK(e.d_variance == Approx((expected_improvement_of_variance(0.7, 0.09 + h, 0.8).value -
                                expected_improvement_of_variance(0.7, 0.09 - h, 0.8).value) / (2 * h))
                            .epsilon(1e-6));
}

TEST_CASE("taf discordant fraction and TST-R weights", "[baselines][taf]") {
  Eigen::VectorXd y(5);
  y << 0.1, 0.5, 0.2, 0.9, 0.4;
  CHECK(discordant_fraction(y, y) == 0.0);
  CHECK(discordant_fraction(-y, y) == 1.0);
  Eigen::VectorXd f = y;
  std::swap(f(0), f(2));  // one of the 10 unordered pairs reversed
  CHECK(discordant_fraction(f, y) == Approx(0.1));
  CHECK(discordant_fraction(y.head(1), y.head(1)) == 0.0);

  const auto context = grid_context(100, 20);
  const fbo::FboAgent target = observing(0, context, every(5, 100, 15), bumps);
  const Eigen::MatrixXd Phi = observed_features(target, *context);
  const Eigen::VectorXd yt = observed_values(target);
  const FeatureSurrogate copy = make_surrogate(target, *context);
  const FeatureSurrogate reversed =
      make_surrogate(observing(2, context, every(5, 100, 15), negated_bumps), *context);
  REQUIRE(discordant_fraction(Phi * copy.nu(), yt) == 0.0);
  REQUIRE(discordant_fraction(Phi * reversed.nu(), yt) == 1.0);
  TafParams params;
  // w_copy = w_T = 3/4, w_reversed = 0: normalised 1/2, 0, 1/2.
  CHECK(taf_weights({copy, reversed}, Phi, yt, params) == std::vector<double>{0.5, 0.0, 0.5});
  // delta = 1 / 21 (7 observations) with rho = 0.1: 3/4 (1 - (delta / rho)^2).
  Eigen::VectorXd swapped_y = yt;
  int lo = 0, next = -1;
  for (int j = 1; j < yt.size(); ++j) if (yt(j) < yt(lo)) lo = j;
  for (int j = 0; j < yt.size(); ++j)
    if (j != lo && (next < 0 || yt(j) < yt(next))) next = j;
  std::swap(swapped_y(lo), swapped_y(next));  // the two smallest: exactly one pair reversed
  const double r = (1.0 / 21.0) / 0.1, wn = 0.75 * (1 - r * r);
  const std::vector<double> w = taf_weights({copy}, Phi, swapped_y, params);
  CHECK(w[0] == Approx(wn / (wn + 0.75)));
  CHECK(w[1] == Approx(0.75 / (wn + 0.75)));
  // Fewer than 2 observations: every weight 3/4 before normalising.
  CHECK(taf_weights({copy, reversed}, Phi.topRows(1), yt.head(1), params) ==
        std::vector<double>(3, 1.0 / 3.0));
}

TEST_CASE("taf with no other agent is EI", "[baselines][taf]") {
  const auto context = grid_context(200, 30);
  const std::vector<int> seen{12, 40, 77, 130, 181};
  const fbo::FboAgent target = observing(0, context, seen, bumps);
  RandomStream rng(1, "test.taf");
  const TafChoice c = taf_choose(target, *context, {}, TafParams{}, rng);
  CHECK(c.weights == std::vector<double>{1.0});
  // EI by hand on the target's posterior, in the kernel form (no Sigma^-1): k = phi'phi.
  Eigen::MatrixXd Phi_t(seen.size(), 30);
  Eigen::VectorXd y(seen.size());
  for (std::size_t k = 0; k < seen.size(); ++k) {
    Phi_t.row(k) = context->grid_features.row(seen[k]);
    y(k) = bumps(context->grid.points(seen[k], 0));
  }
  const Eigen::MatrixXd K = Phi_t * Phi_t.transpose() +
                            context->lambda * Eigen::MatrixXd::Identity(y.size(), y.size());
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(K);
  const double incumbent = y.maxCoeff();
  const FeatureSurrogate own = make_surrogate(target, *context);
  const Eigen::VectorXd a =
      taf_values({}, own, incumbent, {1.0}, TafImprovement::expected, context->grid_features);
  int best = 0;
  double best_ei = -1;
  for (int j = 0; j < 200; ++j) {
    const Eigen::VectorXd phi = context->grid_features.row(j).transpose();
    const Eigen::VectorXd k = Phi_t * phi;
    const double mu = k.dot(ldlt.solve(y)), var = phi.squaredNorm() - k.dot(ldlt.solve(k));
    const double ei = closed_form_ei(mu, var, incumbent);
    CHECK(a(j) == Approx(ei).epsilon(1e-6).margin(1e-9));
    if (ei > best_ei) best_ei = ei, best = j;
  }
  CHECK(c.point.index == best);
  CHECK(c.acquisition == Approx(best_ei).epsilon(1e-6));
}

TEST_CASE("taf improvement terms: expected and mean", "[baselines][taf]") {
  const auto context = grid_context(80, 16);
  const fbo::FboAgent target = observing(0, context, {10, 50}, bumps);
  const FeatureSurrogate own = make_surrogate(target, *context);
  const FeatureSurrogate peer =
      make_surrogate(observing(1, context, every(0, 80, 8), bumps), *context);
  const std::vector<double> w{0.25, 0.75};
  const double yt = observed_values(target).maxCoeff();
  Eigen::VectorXd mt, vt, mp, vp;
  own.predict(context->grid_features, mt, vt);
  peer.predict(context->grid_features, mp, vp);
  const Eigen::VectorXd expected =
      taf_values({peer}, own, yt, w, TafImprovement::expected, context->grid_features);
  const Eigen::VectorXd mean =
      taf_values({peer}, own, yt, w, TafImprovement::mean, context->grid_features);
  for (int j = 0; j < 80; ++j) {
    const double ei_t = closed_form_ei(mt(j), vt(j), yt);
    CHECK(expected(j) ==
          Approx(0.75 * ei_t + 0.25 * closed_form_ei(mp(j), vp(j), peer.incumbent())));
    CHECK(mean(j) == Approx(0.75 * ei_t + 0.25 * std::max(mp(j) - peer.incumbent(), 0.0)));
  }
  // A surrogate without an incumbent (an RGPE payload) is refused.
  const FeatureSurrogate no_incumbent(peer.nu(), peer.sigma_inv(), peer.lambda());
  CHECK_THROWS_WITH(
      taf_values({no_incumbent}, own, yt, w, TafImprovement::mean, context->grid_features),
      Catch::Contains("no incumbent"));
}

TEST_CASE("taf acquisition gradient on a box matches finite differences", "[baselines][taf]") {
  const auto context = box_context(2, 30);
  fbo::FboAgent target(0, 0, context), peer(1, 0, context);
  RandomStream pts(8, "test.points");
  auto g = [](const Eigen::VectorXd& x) { return std::cos(4 * x(0)) + x(1) * x(1); };
  for (int k = 0; k < 5; ++k) {
    Eigen::VectorXd x(2);
    x << pts.uniform(), pts.uniform();
    target.observe(fbo::Point{-1, x}, g(x));
  }
  for (int k = 0; k < 12; ++k) {
    Eigen::VectorXd x(2);
    x << pts.uniform(), pts.uniform();
    peer.observe(fbo::Point{-1, x}, g(x) - 0.2);
  }
  const std::vector<FeatureSurrogate> base{make_surrogate(peer, *context)};
  const FeatureSurrogate own = make_surrogate(target, *context);
  const std::vector<double> w{0.5, 0.5};
  for (TafImprovement kind : {TafImprovement::expected, TafImprovement::mean}) {
    const TafAcquisition a(base, own, observed_values(target).maxCoeff() - 0.5, w, kind,
                           context->features);
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::VectorXd x(2), grad(2), ignored(2);
      x << pts.uniform(0.1, 0.9), pts.uniform(0.1, 0.9);
      const double v = a.value_and_gradient(x, grad);
      CHECK(v == Approx(a.values(context->features.feature_matrix(x.transpose()))(0))
                     .epsilon(1e-10));
      for (int i = 0; i < 2; ++i) {
        const double h = 1e-6;
        Eigen::VectorXd up = x, down = x;
        up(i) += h;
        down(i) -= h;
        const double fd =
            (a.value_and_gradient(up, ignored) - a.value_and_gradient(down, ignored)) / (2 * h);
        CHECK(grad(i) == Approx(fd).epsilon(1e-4).margin(1e-7));
      }
    }
  }
  RandomStream rng(3, "test.box");
  const TafChoice c = taf_choose(target, *context, base, TafParams{}, rng);
  CHECK(c.point.index == -1);
  CHECK(context->partition.box().contains(c.point.x));
}
