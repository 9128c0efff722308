#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "engine/objectives/seir.hpp"

using fedsim::SeirRegion;

TEST_CASE("seir: efficacy falls quadratically to 0 at half a dose, V ~ 1/x up to capacity",
          "[xarmed][objectives]") {
  CHECK(fedsim::seir_relative_efficacy(1.0) == 1.0);
  CHECK(fedsim::seir_relative_efficacy(0.75) == Approx(0.75));
  CHECK(fedsim::seir_relative_efficacy(0.5) == 0.0);
  CHECK(fedsim::seir_relative_efficacy(0.2) == 0.0);
  SeirRegion r;  // N 1e6, doses 4000 / day, capacity 5000 / day, efficacy 0.9
  CHECK(fedsim::seir_immunisation_rate(r, 1.0) == Approx(0.9 * 4000 / 1e6));
  // x = 0.9: 4444 people < capacity, efficacy 0.9 (1 - 0.04).
  CHECK(fedsim::seir_immunisation_rate(r, 0.9) == Approx(0.9 * 0.96 * (4000 / 0.9) / 1e6));
  // x = 0.75: 5333 people > capacity 5000.
  CHECK(fedsim::seir_immunisation_rate(r, 0.75) == Approx(0.9 * 0.75 * 5000 / 1e6));
  CHECK(fedsim::seir_immunisation_rate(r, 0.0) == 0.0);
}

TEST_CASE("seir: without vaccine the attack rate meets the final-size relation z = 1 - e^(-R0 z)",
          "[xarmed][objectives]") {
  SeirRegion r;
  r.population = 1e8;
  r.initial_infectious = 100;  // i0 = 1e-6
  r.r0 = 2.0;
  r.doses_per_day = 0.0;
  r.horizon_days = 1500;  // growth rate ~0.07 / day: long over by then
  // z = 0.796812 solves z = 1 - exp(-2 z); i0 = 1e-6 moves it by ~1e-6.
  CHECK(fedsim::seir_attack_rate(r, 1.0) == Approx(0.7968121300200199).margin(1e-4));
}

TEST_CASE("seir: RK4 with a 1-day step agrees with a 0.05-day step", "[xarmed][objectives]") {
  SeirRegion r;
  SeirRegion fine = r;
  fine.step_days = 0.05;
  for (const double x : {0.3, 0.8, 1.0})
    CHECK(fedsim::seir_attack_rate(r, x) == Approx(fedsim::seir_attack_rate(fine, x)).margin(2e-5));
}

TEST_CASE("seir: each region's best dose is max(sqrt(3)/2, doses / capacity)",
          "[xarmed][objectives]") {
  SeirRegion plenty;  // doses / capacity = 0.8 < sqrt(3)/2: the fractional optimum
  const fedsim::SeirObjective a({plenty});
  CHECK(a.optimum_location()(0) == Approx(std::sqrt(3.0) / 2).margin(2e-3));
  SeirRegion tight = plenty;  // doses / capacity = 0.95: capacity binds below 0.95
  tight.capacity_per_day = 4000 / 0.95;
  const fedsim::SeirObjective b({tight});
  CHECK(b.optimum_location()(0) == Approx(0.95).margin(2e-3));
  // The optimum is attained and beats a grid.
  for (const auto* f : {&a, &b}) {
    CHECK(f->value(f->optimum_location()) == f->optimum_value());
    for (int i = 0; i <= 200; ++i)
      CHECK(f->value(Eigen::VectorXd::Constant(1, i / 200.0)) <= f->optimum_value());
  }
  // The federation's objective is the mean of the regions', its optimum in between.
  const fedsim::SeirObjective both({plenty, tight});
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(1, 0.9);
  CHECK(both.value(x) == Approx((a.value(x) + b.value(x)) / 2).epsilon(1e-14));
  CHECK(both.optimum_location()(0) > std::sqrt(3.0) / 2 - 2e-3);
  CHECK(both.optimum_location()(0) < 0.95 + 2e-3);
  CHECK_THROWS_AS(fedsim::SeirObjective({}), std::invalid_argument);
  SeirRegion bad;
  bad.r0 = -1;
  CHECK_THROWS_AS(fedsim::SeirObjective({bad}), std::invalid_argument);
}
