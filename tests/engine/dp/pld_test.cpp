#include "engine/dp/pld.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/dp/analytic_gaussian.hpp"
#include "engine/dp/pld_accountant.hpp"
#include "engine/dp/pld_composition.hpp"
#include "engine/dp/rdp_accountant.hpp"

using namespace fedsim::dp;

namespace {
double normal_pdf(double x, double mean, double s) {
  return std::exp(-0.5 * std::pow((x - mean) / s, 2)) / (s * std::sqrt(2 * M_PI));
}

// Slower exact method: delta(eps) = int (P(x) - e^eps Q(x))_+ dx for one step of the
// subsampled Gaussian, by the trapezoid rule on 400001 points over +-40 sd. The integrand's
// single kink costs O(h^2) ~ 1e-9.
double exact_step_delta(double q, double z, PldDirection d, double eps) {
  const double lo = -40 * z, hi = 1 + 40 * z;
  const int n = 400000;
  const double h = (hi - lo) / n;
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    const double x = lo + i * h;
    const double with = normal_pdf(x, 1, z), without = normal_pdf(x, 0, z);
    const double mix = (1 - q) * without + q * with;
    const double p = d == PldDirection::remove ? mix : without;
    const double qq = d == PldDirection::remove ? without : mix;
    const double w = (i == 0 || i == n) ? 0.5 : 1.0;
    sum += w * h * std::max(0.0, p - std::exp(eps) * qq);
  }
  return sum;
}

double paper_delta() { return std::pow(200.0, -1.1); }

template <class F>
double seconds(F&& f) {
  const auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

TEST_CASE("one-step PLDs are distributions with E_P[e^-L] <= 1", "[dp][pld]") {
  for (auto d : {PldDirection::remove, PldDirection::add})
    for (auto disc : {Discretisation::round_up, Discretisation::connect_the_dots})
      for (double q : {1e-6, 0.25, 1.0}) {
        const DiscretePld p = subsampled_gaussian_pld(q, 1.0, d, 1e-3, disc, 1e-20);
        double total = p.infinity_mass, q_total = 0;
        for (std::size_t i = 0; i < p.mass.size(); ++i) {
          REQUIRE(p.mass[i] >= 0.0);
          total += p.mass[i];
          q_total += p.mass[i] * std::exp(-p.loss(i));
        }
        CHECK(total == Approx(1.0).margin(1e-12));
        CHECK(total >= 1.0 - 1e-15);  // mass lost to rounding is put at +inf
        CHECK(q_total <= 1.0 + 1e-12);
      }
}

TEST_CASE("one-step PLDs dominate the exact privacy profile; connect-the-dots is exact on the grid",
          "[dp][pld]") {
  const double interval = 0.05;
  for (auto d : {PldDirection::remove, PldDirection::add})
    for (double q : {0.25, 1.0}) {
      const double z = 0.8;
      const DiscretePld ctd =
          subsampled_gaussian_pld(q, z, d, interval, Discretisation::connect_the_dots, 1e-20);
      const DiscretePld up =
          subsampled_gaussian_pld(q, z, d, interval, Discretisation::round_up, 1e-20);
      for (double eps : {-0.3, 0.0, 0.1, 0.45, 1.0, 2.5}) {  // grid points
        INFO("direction " << int(d) << ", q = " << q << ", eps = " << eps);
        const double exact = exact_step_delta(q, z, d, eps);
        CHECK(pld_delta(ctd, eps) == Approx(exact).margin(1e-8));
        CHECK(pld_delta(up, eps) >= exact - 1e-8);
      }
      for (double eps : {-0.27, 0.03, 0.512, 1.337, 2.71}) {  // between grid points
        INFO("direction " << int(d) << ", q = " << q << ", eps = " << eps);
        const double exact = exact_step_delta(q, z, d, eps);
        CHECK(pld_delta(ctd, eps) >= exact - 1e-8);
        CHECK(pld_delta(up, eps) >= pld_delta(ctd, eps) - 1e-12);
      }
    }
}

TEST_CASE("FFT composition equals direct convolution", "[dp][pld]") {
  // Coarse grids keep the direct O(n^2) convolution small; two different factors, one twice.
  const DiscretePld a = subsampled_gaussian_pld(0.3, 1.0, PldDirection::remove, 0.05,
                                                Discretisation::connect_the_dots, 1e-20);
  const DiscretePld b = subsampled_gaussian_pld(1.0, 2.0, PldDirection::remove, 0.05,
                                                Discretisation::round_up, 1e-20);
  auto convolve = [](const DiscretePld& x, const DiscretePld& y) {
    DiscretePld out;
    out.interval = x.interval;
    out.offset = x.offset + y.offset;
    out.mass.assign(x.mass.size() + y.mass.size() - 1, 0.0);
    for (std::size_t i = 0; i < x.mass.size(); ++i)
      for (std::size_t j = 0; j < y.mass.size(); ++j) out.mass[i + j] += x.mass[i] * y.mass[j];
    return out;
  };
  const DiscretePld direct = convolve(convolve(a, a), b);
  const DiscretePld fft = compose({{&a, 2}, {&b, 1}}, 1e-15);
  double total = 0;
  for (std::size_t i = 0; i < direct.mass.size(); ++i) {
    const long k = direct.offset + static_cast<long>(i) - fft.offset;
    const double got = (k >= 0 && k < static_cast<long>(fft.mass.size())) ? fft.mass[k] : 0.0;
    CHECK(got == Approx(direct.mass[i]).margin(1e-15));
    total += direct.mass[i];
  }
  const double inf = 1 - (1 - a.infinity_mass) * (1 - a.infinity_mass) * (1 - b.infinity_mass);
  CHECK(fft.infinity_mass == Approx(inf + 2e-15).margin(1e-16));
  for (double eps : {0.0, 0.5, 2.0}) CHECK(pld_delta(fft, eps) >= pld_delta(direct, eps) - 1e-14);
}

TEST_CASE("pld_epsilon inverts pld_delta", "[dp][pld]") {
  const DiscretePld step = subsampled_gaussian_pld(0.25, 1.0, PldDirection::remove, 1e-3,
                                                   Discretisation::connect_the_dots, 1e-20);
  const DiscretePld composed = compose({{&step, 40}}, 1e-15);
  for (double delta : {1e-8, 1e-5, paper_delta(), 0.1}) {
    const double eps = pld_epsilon(composed, delta);
    INFO("delta = " << delta << ", eps = " << eps);
    REQUIRE(eps > 0);
    CHECK(pld_delta(composed, eps) == Approx(delta).epsilon(1e-9));
  }
  CHECK(pld_epsilon(composed, 0.999) == 0.0);
}

TEST_CASE("tight accountant at q = 1 brackets the exact Gaussian epsilon", "[dp][pld]") {
  // T steps with noise multiplier z are one Gaussian mechanism with sigma = z / sqrt(T):
  // exact <= tight <= exact + error_bound (steps * interval), for both discretisations.
  struct Case {
    double z;
    long steps;
    double delta;
  };
  for (Case c : {Case{1.0, 1, 1e-5}, Case{1.0, 40, 1e-5}, Case{0.5, 3, 1e-3}, Case{3.0, 20, 1e-6}})
    for (auto disc : {Discretisation::connect_the_dots, Discretisation::round_up}) {
      PldAccountant a(PldOptions{1e-4, disc});
      a.add_gaussian(c.z, c.steps);
      const PldEpsilon got = a.evaluate(c.delta);
      const double exact = gaussian_epsilon(c.delta, c.z / std::sqrt(double(c.steps)));
      INFO("z = " << c.z << ", steps = " << c.steps << ", exact " << exact << ", got "
                  << got.epsilon);
      CHECK(got.epsilon >= exact - 1e-9);
      CHECK(got.epsilon <= exact + got.error_bound);
      // Connect-the-dots is second order in the interval: far inside the a priori bound.
      if (disc == Discretisation::connect_the_dots) CHECK(got.epsilon - exact < 1e-5);
    }
}

TEST_CASE("tight accountant beats the moments accountant on the paper's settings",
          "[dp][pld][paper]") {
  struct Case {
    double q, z;
  };
  for (Case c :
       {Case{0.15, 1.0}, Case{0.25, 1.0}, Case{0.5, 1.0}, Case{0.25, 1.2}, Case{0.25, 1.5}}) {
    PldAccountant tight;
    RdpAccountant paper(paper_rdp_convention()), modern;
    for (Accountant* a : std::initializer_list<Accountant*>{&tight, &paper, &modern})
      a->add_subsampled_gaussian(c.q, c.z, 40);
    double eps = 0;
    const double t = seconds([&] { eps = tight.epsilon(paper_delta()); });
    INFO("q = " << c.q << ", z = " << c.z << ": tight " << eps << " in " << t << " s");
    CHECK(eps < modern.epsilon(paper_delta()));
    CHECK(modern.epsilon(paper_delta()) < paper.epsilon(paper_delta()));
  }
}

TEST_CASE("add-or-remove: the tight accountant takes the worse direction", "[dp][pld]") {
  const double q = 0.25, z = 1.0, delta = 1e-5;
  double eps[2];
  for (auto d : {PldDirection::remove, PldDirection::add}) {
    const DiscretePld step =
        subsampled_gaussian_pld(q, z, d, 1e-4, Discretisation::connect_the_dots, 1e-15 / 40);
    eps[int(d)] = pld_epsilon(compose({{&step, 40}}, 1e-15), delta);
  }
  CHECK(std::abs(eps[0] - eps[1]) > 1e-3);  // the two relations really differ
  PldAccountant a;
  a.add_subsampled_gaussian(q, z, 40);
  CHECK(a.epsilon(delta) == Approx(std::max(eps[0], eps[1])).epsilon(1e-12));
}

TEST_CASE("tight accountant is finite and below the moments accountant at the extremes",
          "[dp][pld]") {
  struct Case {
    double q, z;
    long steps;
  };
  for (Case c : {Case{1e-6, 1.0, 100000}, Case{0.01, 1.0, 100000}, Case{0.25, 0.3, 40},
                 Case{1.0, 50.0, 100000}, Case{0.5, 0.3, 100000}}) {
    PldAccountant tight;
    RdpAccountant moments;
    tight.add_subsampled_gaussian(c.q, c.z, c.steps);
    moments.add_subsampled_gaussian(c.q, c.z, c.steps);
    PldEpsilon got{};
    const double t = seconds([&] { got = tight.evaluate(1e-5); });
    INFO("q = " << c.q << ", z = " << c.z << ", steps = " << c.steps << ": " << got.epsilon
                << " (interval " << got.interval << ") in " << t << " s");
    REQUIRE(std::isfinite(got.epsilon));
    CHECK(got.epsilon >= 0.0);
    CHECK(got.epsilon < moments.epsilon(1e-5));  // the time is reported, never asserted
  }
  // z = 50 over 1e5 steps is the Gaussian mechanism with sigma = 50 / sqrt(1e5).
  PldAccountant a;
  a.add_gaussian(50.0, 100000);
  CHECK(a.epsilon(1e-5) == Approx(gaussian_epsilon(1e-5, 50.0 / std::sqrt(1e5))).margin(1e-4));
}

TEST_CASE("tight accountant at the extremes: no noise is +inf, huge noise 0, huge T finite or inf",
          "[dp][pld][edge]") {
  // q = 0.25 > delta with no noise: a chosen member is seen outright, epsilon is infinite.
  PldAccountant none;
  none.add_subsampled_gaussian(0.25, 1e-160, 5);
  CHECK(none.epsilon(0.1) == INFINITY);
  // z^2 overflowed to inf and every loss became NaN, reported as +inf; the loss is ~0.
  for (double z : {1e200, std::numeric_limits<double>::max()})
    for (double q : {1e-300, 0.25, 1.0}) {
      INFO("q = " << q << ", z = " << z);
      PldAccountant a;
      a.add_subsampled_gaussian(q, z, 5);
      const double e = a.epsilon(1e-5);
      CHECK(e >= 0.0);
      CHECK(e < 1e-3);
    }
  // Step counts whose products with the grid offsets overflow a long.
  PldAccountant a;
  a.add_subsampled_gaussian(0.5, 1.0, std::numeric_limits<long>::max());
  a.add_subsampled_gaussian(0.5, 1.0, std::numeric_limits<long>::max());
  const double e = a.epsilon(1e-5);
  CHECK_FALSE(std::isnan(e));
  CHECK(e >= 0.0);
}
