// The surrogate message of the RGPE / TAF baselines (FTS section 3.2): built from an agent's
// observations, its payload's round trip, and every reason the checker rejects one.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/baselines/feature_surrogate.hpp"
#include "engine/baselines/surrogate_inbox.hpp"
#include "tests/engine/baselines/transfer_fixture.hpp"

using namespace fedsim;
using namespace fedsim::baselines;
using fedsim::baselines::testing::bumps;
using fedsim::baselines::testing::grid_context;
using fedsim::baselines::testing::observing;

namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

FeatureSurrogate sample_surrogate(int features = 6) {
  const auto context = grid_context(50, features);
  return make_surrogate(observing(1, context, {3, 17, 30, 44}, bumps), *context);
}

}  // namespace

TEST_CASE("surrogate payload: length M + M*M (rgpe), + 1 (taf)", "[baselines][surrogate]") {
  CHECK(surrogate_payload_length(5, SurrogatePayload::rgpe) == 30u);
  CHECK(surrogate_payload_length(5, SurrogatePayload::taf) == 31u);
  CHECK(surrogate_payload_length(100, SurrogatePayload::rgpe) == 10100u);
}

TEST_CASE("surrogate from an agent is its shared feature posterior", "[baselines][surrogate]") {
  const auto context = grid_context(60, 8);
  const std::vector<int> seen{2, 9, 25, 40, 41, 58};
  const fbo::FboAgent agent = observing(1, context, seen, bumps);
  const FeatureSurrogate s = make_surrogate(agent, *context);
  FeaturePosterior direct(8, context->lambda);
  double best = -1e300;
  for (int k : seen) {
    direct.observe(context->grid_features.row(k).transpose(), bumps(context->grid.points(k, 0)));
    best = std::max(best, bumps(context->grid.points(k, 0)));
  }
  CHECK(s.incumbent() == best);
  CHECK(s.lambda() == context->lambda);
  CHECK((s.nu() - direct.mean()).cwiseAbs().maxCoeff() == 0.0);  // the same updates, in order
  CHECK((s.sigma_inv() - s.sigma_inv().transpose()).cwiseAbs().maxCoeff() == 0.0);
  for (int j = 0; j < context->grid.size(); j += 7) {
    const Eigen::VectorXd phi = context->grid_features.row(j).transpose();
    CHECK(s.mean(phi) == Approx(direct.predictive_mean(phi)).margin(1e-12));
    CHECK(s.variance(phi) == Approx(direct.predictive_variance(phi)).epsilon(1e-9));
  }
  // An agent with no observation has no incumbent; its payload for TAF is rejected.
  const FeatureSurrogate empty = make_surrogate(fbo::FboAgent(2, 0, context), *context);
  CHECK(std::isnan(empty.incumbent()));
  CHECK(contains(check_surrogate_payload(empty.encode(SurrogatePayload::taf), 8,
                                         SurrogatePayload::taf),
                 "incumbent"));
}

TEST_CASE("surrogate payload round trip", "[baselines][surrogate]") {
  const FeatureSurrogate s = sample_surrogate();
  for (SurrogatePayload kind : {SurrogatePayload::rgpe, SurrogatePayload::taf}) {
    const std::vector<double> payload = s.encode(kind);
    REQUIRE(payload.size() == surrogate_payload_length(6, kind));
    CHECK(check_surrogate_payload(payload, 6, kind).empty());
    const FeatureSurrogate back = FeatureSurrogate::decode(payload, 6, s.lambda(), kind);
    CHECK(back.nu() == s.nu());
    CHECK(back.sigma_inv() == s.sigma_inv());
    CHECK(back.encode(kind) == payload);
    if (kind == SurrogatePayload::taf)
      CHECK(back.incumbent() == s.incumbent());
    else
      CHECK(std::isnan(back.incumbent()));
  }
}

TEST_CASE("surrogate checker: every rejection reason", "[baselines][surrogate]") {
  const int M = 6;
  const FeatureSurrogate s = sample_surrogate(M);
  const std::vector<double> good = s.encode(SurrogatePayload::taf);
  const auto why = [&](const std::vector<double>& p) {
    return check_surrogate_payload(p, M, SurrogatePayload::taf);
  };
  const std::size_t at01 = M + 0 * M + 1, at10 = M + 1 * M + 0;  // Sigma^-1[0][1], [1][0]

  SECTION("length: one short, one long, an RGPE payload, another M") {
    std::vector<double> p(good.begin(), good.end() - 1);
    CHECK(contains(why(p), "length 42, expected 43"));
    p = good;
    p.push_back(0.0);
    CHECK(contains(why(p), "length 44"));
    CHECK(contains(why(s.encode(SurrogatePayload::rgpe)), "length 42"));
    CHECK(contains(check_surrogate_payload(good, M - 1, SurrogatePayload::taf), "M = 5"));
    CHECK(contains(check_surrogate_payload({}, 0, SurrogatePayload::rgpe), "M must be > 0"));
  }
  SECTION("non-finite entries name the entry") {
    std::vector<double> p = good;
    p[2] = std::numeric_limits<double>::quiet_NaN();
    CHECK(contains(why(p), "entry 2 (nu[2]) is not finite"));
    p = good;
    p[at10] = std::numeric_limits<double>::infinity();
    CHECK(contains(why(p), "Sigma^-1[1][0]"));
    p = good;
    p.back() = -std::numeric_limits<double>::infinity();
    CHECK(contains(why(p), "the incumbent"));
  }
  SECTION("symmetry, on both sides of its tolerance") {
    const double scale = Eigen::Map<const Eigen::VectorXd>(good.data() + M, M * M)
                             .cwiseAbs()
                             .maxCoeff();
    std::vector<double> p = good;
    p[at01] += 10 * symmetry_tolerance * scale;
    CHECK(contains(why(p), "not symmetric"));
    p = good;
    p[at01] += 0.1 * symmetry_tolerance * scale;
    CHECK(why(p).empty());
  }
  SECTION("positive definiteness: indefinite, and singular to working precision") {
    std::vector<double> p = good;
    for (int i = 0; i < M; ++i) p[M + i * M + i] = -p[M + i * M + i];  // negated diagonal
    CHECK(contains(why(p), "Cholesky factorisation fails"));
    // v v' + tiny I: positive definite in exact arithmetic, singular to working precision.
    Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(M, 1.0, 2.0);
    Eigen::MatrixXd A = v * v.transpose();
    A.diagonal().array() += 1e-3 * definiteness_tolerance;
    p = good;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) p[M + i * M + j] = A(i, j);
    const std::string reason = why(p);
    CHECK((contains(reason, "working precision") || contains(reason, "factorisation fails")));
    // The same with a clearly positive ridge is accepted.
    A.diagonal().array() += 1e-3;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) p[M + i * M + j] = A(i, j);
    CHECK(why(p).empty());
  }
  SECTION("decode and the constructor refuse what the checker rejects") {
    std::vector<double> p = good;
    p[0] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(FeatureSurrogate::decode(p, M, 0.01, SurrogatePayload::taf),
                      Catch::Contains("not finite"));
    CHECK_THROWS_AS(FeatureSurrogate(s.nu(), -s.sigma_inv(), 0.01), std::invalid_argument);
    CHECK_THROWS_AS(FeatureSurrogate(s.nu(), s.sigma_inv(), 0.0), std::invalid_argument);
    CHECK_THROWS_AS(FeatureSurrogate(s.nu().head(M - 1), s.sigma_inv(), 0.01),
                    std::invalid_argument);
  }
}

TEST_CASE("surrogate draws follow N(nu, lambda Sigma^-1)", "[baselines][surrogate]") {
  const FeatureSurrogate s = sample_surrogate(4);
  RandomStream rng(3, "test.draws");
  const int S = 40000;
  const Eigen::MatrixXd omega = s.sample_weights(S, rng);
  const Eigen::VectorXd mean = omega.rowwise().mean();
  const Eigen::MatrixXd centred = omega.colwise() - mean;
  const Eigen::MatrixXd cov = centred * centred.transpose() / (S - 1);
  const Eigen::MatrixXd want = s.lambda() * s.sigma_inv();
  // Standard errors: sd / sqrt(S) for the mean, about sqrt(2 / S) * var for the covariance.
  for (int i = 0; i < 4; ++i) {
    CHECK(std::abs(mean(i) - s.nu()(i)) < 5 * std::sqrt(want(i, i) / S));
    for (int j = 0; j < 4; ++j)
      CHECK(std::abs(cov(i, j) - want(i, j)) <
            5 * std::sqrt(2.0 / S) * std::sqrt(want(i, i) * want(j, j)));
  }
}

TEST_CASE("surrogate inbox: checked, sorted by sender, counted, restorable",
          "[baselines][surrogate]") {
  const int M = 6;
  const auto context = grid_context(50, M);
  const auto payload = [&](std::vector<int> seen) {
    return make_surrogate(observing(1, context, seen, bumps), *context)
        .encode(SurrogatePayload::rgpe);
  };
  SurrogateInbox inbox(M, context->lambda, SurrogatePayload::rgpe);
  CHECK(inbox.receive(7, payload({1, 2})).empty());
  CHECK(inbox.receive(3, payload({4, 5, 6})).empty());
  std::vector<double> bad = payload({8});
  bad.pop_back();
  CHECK(contains(inbox.receive(5, bad), "length"));
  CHECK(inbox.sources() == std::vector<int>{3, 7});
  CHECK(inbox.rejected() == 1);
  CHECK(inbox.surrogates()[0].encode(SurrogatePayload::rgpe) == payload({4, 5, 6}));
  // A later message from the same sender replaces its earlier one.
  CHECK(inbox.receive(7, payload({10, 20, 30})).empty());
  CHECK(inbox.size() == 2);
  CHECK(inbox.surrogates()[1].encode(SurrogatePayload::rgpe) == payload({10, 20, 30}));

  SurrogateInbox copy(M, context->lambda, SurrogatePayload::rgpe);
  copy.restore(inbox.state());
  CHECK(copy.sources() == inbox.sources());
  CHECK(copy.rejected() == 1);
  for (int k = 0; k < 2; ++k) {
    CHECK(copy.surrogates()[k].nu() == inbox.surrogates()[k].nu());
    CHECK(copy.surrogates()[k].sigma_inv() == inbox.surrogates()[k].sigma_inv());
  }
  SurrogateInbox::State unsorted = inbox.state();
  std::swap(unsorted.sources[0], unsorted.sources[1]);
  CHECK_THROWS_AS(copy.restore(unsorted), std::invalid_argument);
  SurrogateInbox::State malformed = inbox.state();
  malformed.payloads[0][0] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(copy.restore(malformed), std::invalid_argument);
  CHECK(copy.sources() == inbox.sources());  // a refused restore leaves it as it was
}
