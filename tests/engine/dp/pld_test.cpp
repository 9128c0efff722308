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
#include "tests/tools/run_command.hpp"

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

TEST_CASE("one-step PLDs dominate the exact privacy profile, connect-the-dots is exact on the grid",
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
  std::vector<Case> cases = {{1.0, 1, 1e-5}, {1.0, 40, 1e-5}, {0.5, 3, 1e-3}, {3.0, 20, 1e-6}};
  if (fedsim::test::under_sanitizer()) cases = {cases[1], cases[2]};  // CI's ASan job: 2 of 4
  for (Case c : cases)
    for (auto disc : {Discretisation::connect_the_dots, Discretisation::round_up}) {
      PldAccountant a(PldOptions{1e-4, disc, 1e-15, 1L << 21});  // fedsim privacy's grid
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
  // Each relation composed by hand on the grid the accountant used (each step's tail mass
  // 1e-15 / 1024 for up to 1024 steps): the accountant reports the larger. It takes the remove
  // relation's value when a coarse bound on the add relation stays below it, so the two may
  // differ only by the mass the windows cut (<= 1e-15 each).
  const double q = 0.25, z = 1.0, delta = 1e-5;
  for (long max_bins : {1L << 15, 1L << 21}) {
    PldAccountant a(PldOptions{1e-4, Discretisation::connect_the_dots, 1e-15, max_bins});
    a.add_subsampled_gaussian(q, z, 40);
    const PldEpsilon got = a.evaluate(delta);
    double eps[2];
    for (auto d : {PldDirection::remove, PldDirection::add}) {
      const DiscretePld step = subsampled_gaussian_pld(q, z, d, got.interval,
                                                       Discretisation::connect_the_dots, 1e-15 / 1024);
      eps[int(d)] = pld_epsilon(compose({{&step, 40}}, 1e-15), delta);
    }
    INFO("max_bins " << max_bins << ": remove " << eps[0] << ", add " << eps[1]);
    CHECK(std::abs(eps[0] - eps[1]) > 1e-3);  // the two relations really differ
    CHECK(got.epsilon == Approx(std::max(eps[0], eps[1])).epsilon(1e-9));
    CHECK(got.error_bound == 40 * got.interval);
  }
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
  // z = 50 over 1e5 steps is the Gaussian mechanism with sigma = 50 / sqrt(1e5): on
  // fedsim privacy's fine grid within 1e-4, on a run's grid within its error bound.
  const double exact = gaussian_epsilon(1e-5, 50.0 / std::sqrt(1e5));
  PldAccountant fine(PldOptions{1e-4, Discretisation::connect_the_dots, 1e-15, 1L << 21});
  fine.add_gaussian(50.0, 100000);
  CHECK(fine.epsilon(1e-5) == Approx(exact).margin(1e-4));
  PldAccountant run;
  run.add_gaussian(50.0, 100000);
  const PldEpsilon e = run.evaluate(1e-5);
  CHECK(e.epsilon >= exact - 1e-9);
  CHECK(e.epsilon <= exact + e.error_bound);
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

TEST_CASE("an accountant asked after every release reports what one composition of them all "
          "reports", "[dp][pld][incremental]") {
  // A run's accountant: cloned, charged and asked after each release (actors/accountant.cpp).
  // Its pieces are kept between evaluations; the numbers must depend on the releases alone:
  // bit for bit those of a fresh accountant given the same releases at once (a checkpoint
  // replays them that way), and within both error bounds of fedsim privacy's fine grid.
  const double delta = paper_delta();
  struct Release {
    double q, z;
  };
  // One mechanism for 60 releases, then a mixed sequence (the budget of a run may change
  // neither, but the accountant allows both).
  std::vector<Release> releases(60, Release{0.25, 1.0});
  for (int k = 0; k < 12; ++k) releases.push_back(k % 3 == 0 ? Release{0.5, 1.5} : Release{0.25, 1.0});
  std::unique_ptr<Accountant> running = std::make_unique<PldAccountant>();
  for (std::size_t t = 0; t < releases.size(); ++t) {
    auto next = running->clone();
    next->add_subsampled_gaussian(releases[t].q, releases[t].z, 1);
    const PldEpsilon got = static_cast<const PldAccountant&>(*next).evaluate(delta);
    running = std::move(next);
    // CI's ASan job compares at every 6th release (the running accountant is still asked at each)
    // and on the fine grid at the first and the last.
    const bool last = t + 1 == releases.size();
    if (fedsim::test::under_sanitizer() && t % 6 != 0 && !last) continue;
    PldAccountant fresh, fine(PldOptions{1e-4, Discretisation::connect_the_dots, 1e-15, 1L << 21});
    for (std::size_t k = 0; k <= t; ++k) {
      fresh.add_subsampled_gaussian(releases[k].q, releases[k].z, 1);
      fine.add_subsampled_gaussian(releases[k].q, releases[k].z, 1);
    }
    INFO("after " << t + 1 << " releases: " << got.epsilon << " (interval " << got.interval << ")");
    const PldEpsilon once = fresh.evaluate(delta);
    CHECK(got.epsilon == once.epsilon);
    CHECK(got.interval == once.interval);
    if (fedsim::test::under_sanitizer() ? t == 0 || last
                                        : t % 6 == 0 || last) {  // the fine grid takes a while
      const PldEpsilon f = fine.evaluate(delta);
      CHECK(got.epsilon >= f.epsilon - f.error_bound);
      CHECK(got.epsilon <= f.epsilon + got.error_bound);
      // connect-the-dots' actual error is far inside the a priori bound
      CHECK(std::abs(got.epsilon - f.epsilon) < 1e-3);
    }
  }
  // The original of a clone is untouched by what the clone is asked.
  PldAccountant a;
  a.add_subsampled_gaussian(0.25, 1.0, 10);
  const double before = a.epsilon(1e-5);
  auto b = a.clone();
  b->add_subsampled_gaussian(0.25, 1.0, 500);
  CHECK(b->epsilon(1e-5) > before);
  CHECK(a.epsilon(1e-5) == before);
}

TEST_CASE("the add relation settled coarsely gives what its full composition gives",
          "[dp][pld][incremental]") {
  // The accountant settles the add relation with a coarse bound when it stays below the
  // remove relation's epsilon; with settle_add_coarsely off it composes both fully. Both ways,
  // against both relations composed by hand on the accountant's grid.
  struct Case {
    double q, z;
    long steps;
    double delta;
  };
  for (Case c : {Case{0.25, 1.0, 40, 1e-5}, Case{0.5, 0.8, 5, 0.3}, Case{0.9, 0.5, 3, 0.5},
                 Case{0.05, 2.0, 100, 1e-3}, Case{0.5, 1.0, 1, 0.2}, Case{0.99, 3.0, 10, 0.8}}) {
    double got[2];
    for (bool coarse : {true, false}) {
      PldOptions options;
      options.settle_add_coarsely = coarse;
      PldAccountant a(options);
      a.add_subsampled_gaussian(c.q, c.z, c.steps);
      const PldEpsilon e = a.evaluate(c.delta);
      double eps[2];
      for (auto d : {PldDirection::remove, PldDirection::add}) {
        const DiscretePld step = subsampled_gaussian_pld(c.q, c.z, d, e.interval,
                                                         Discretisation::connect_the_dots, 1e-15 / 1024);
        eps[int(d)] = pld_epsilon(compose({{&step, c.steps}}, 1e-15), c.delta);
      }
      INFO("q " << c.q << " z " << c.z << " T " << c.steps << " delta " << c.delta << " coarse "
                << coarse << ": remove " << eps[0] << ", add " << eps[1] << ", got " << e.epsilon);
      CHECK(e.epsilon == Approx(std::max(eps[0], eps[1])).epsilon(1e-9));
      got[coarse] = e.epsilon;
    }
    CHECK(got[0] == got[1]);
  }
}
