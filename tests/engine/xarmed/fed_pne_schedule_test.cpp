#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "engine/xarmed/elimination.hpp"
#include "engine/xarmed/fed_pne_schedule.hpp"

using fedsim::xarmed::eliminate;
using fedsim::xarmed::FedPneParams;
using fedsim::xarmed::FedPneSchedule;

TEST_CASE("fed-pne: tau_h, t = ceil(tau_h / M) and b computed by hand", "[xarmed]") {
  // c = 1, c1 = 1, M = 20, delta = 1/M, T = 100: log(c1 T / delta) = log 2000 = 7.6009.
  FedPneParams p;
  p.c = 1.0;
  const FedPneSchedule s(p, 20, 100);
  CHECK(s.log_term() == Approx(7.600902459542082).epsilon(1e-14));
  CHECK(s.tau(0) == 8.0);    // ceil 7.60
  CHECK(s.tau(1) == 31.0);   // ceil 30.40 (rho^-2 = 4)
  CHECK(s.tau(2) == 122.0);  // ceil 121.61
  CHECK(s.pulls_per_node(0) == 1);
  CHECK(s.pulls_per_node(1) == 2);
  CHECK(s.pulls_per_node(2) == 7);
  CHECK(s.confidence_width(40) == Approx(0.4359157733881077).epsilon(1e-13));  // sqrt(L / 40)
  CHECK(s.smoothness(2) == 0.25);
  // The defaults (c = 0.1) with M = 10, T = 1e4: L = log 1e5, tau = ceil(0.1151 * 4^h).
  const FedPneSchedule d(FedPneParams{}, 10, 10000);
  const double expected[] = {1, 1, 2, 8, 30, 118};
  for (int h = 0; h < 6; ++h) CHECK(d.tau(h) == expected[h]);
  CHECK(d.pulls_per_node(5) == 12);
  CHECK(d.confidence_width(10) == Approx(0.10729830131446737).epsilon(1e-13));
}

TEST_CASE("fed-pne: parameters are validated", "[xarmed]") {
  FedPneParams p;
  CHECK_THROWS_AS(FedPneSchedule(p, 0, 100), std::invalid_argument);
  CHECK_THROWS_AS(FedPneSchedule(p, 10, 0), std::invalid_argument);
  p.rho = 1.0;
  CHECK_THROWS_AS(FedPneSchedule(p, 10, 100), std::invalid_argument);
  p = FedPneParams{};
  p.c = 0.0;
  CHECK_THROWS_AS(FedPneSchedule(p, 10, 100), std::invalid_argument);
  p = FedPneParams{};
  p.c1 = 0.001;  // log(0.001 * 100 * 10) = 0: tau would be 0 and the expansion endless
  CHECK_THROWS_AS(FedPneSchedule(p, 10, 100), std::invalid_argument);
}

TEST_CASE("fed-pne: elimination rule (1) on hand-made means", "[xarmed]") {
  // best 0.9; a node goes iff mean + 0.1 + 0.05 < 0.9 - 0.1, i.e. mean < 0.65.
  const auto e = eliminate({0.5, 0.9, 0.3, 0.85, 0.65}, 0.1, 0.05);
  CHECK(e.best == 1);
  CHECK(e.eliminated == std::vector<bool>{true, false, true, false, false});
  CHECK(e.survivors == 3);
  // Exactly on the bar (dyadic numbers, no rounding): kept, the inequality is strict.
  const auto tie = eliminate({1.0, 0.6875, 0.625}, 0.125, 0.0625);
  CHECK(tie.eliminated == std::vector<bool>{false, false, true});
  // Ties for the best: the first; the best always survives.
  const auto first = eliminate({0.5, 0.5}, 0.0, 0.0);
  CHECK(first.best == 0);
  CHECK(first.survivors == 2);
  // Per-node widths: the best's own width sets the bar.
  // 0.2 + 0.1 < 1.0 - 0.5 goes; 0.2 + 0.1 < 1.0 - 0.75 does not.
  CHECK(eliminate({0.2, 1.0}, {0.1, 0.5}, {0.0, 0.0}).eliminated == std::vector<bool>{true, false});
  CHECK(eliminate({0.2, 1.0}, {0.1, 0.75}, {0.0, 0.0}).eliminated ==
        std::vector<bool>{false, false});
  CHECK_THROWS_AS(eliminate({}, 0.1, 0.1), std::invalid_argument);
}
