#include "engine/dp/rdp_filter.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "engine/dp/rdp.hpp"
#include "engine/dp/rdp_accountant.hpp"
#include "engine/dp/rdp_conventions.hpp"

using namespace fedsim::dp;

namespace {

/// The conversion's offset by hand: eps = rho + log(1 - 1/a) - (log delta + log a) / (a - 1).
double offset(double a, double delta) {
  return std::log(1.0 - 1.0 / a) - (std::log(delta) + std::log(a)) / (a - 1.0);
}

}  // namespace

TEST_CASE("rdp filter: the Gaussian mechanism's closed form, and the order admitting most",
          "[dp][rdp-filter]") {
  // q = 1: one release is (a, a / (2 z^2))-RDP. Budget 2, delta 1e-5, z = 3.
  const double z = 3.0, budget = 2.0, delta = 1e-5;
  const std::vector<double> orders = rdp_orders(OrderGrid::fine);
  const RdpFilter f = RdpFilter::choose(1.0, z, budget, delta, 1000, orders);
  CHECK(f.step_rdp == Approx(f.order / (2 * z * z)).epsilon(1e-12));
  CHECK(f.rdp_budget == Approx(budget - offset(f.order, delta)).epsilon(1e-12));
  // Brute force over the grid, by the closed form: no order admits more releases.
  std::int64_t most = 0;
  for (const double a : orders) {
    const double b = budget - offset(a, delta);
    if (b < 0) continue;
    most = std::max<std::int64_t>(most, static_cast<std::int64_t>(std::floor(b / (a / (2 * z * z)))));
  }
  CHECK(f.admitted_releases() == most);
  CHECK(most > 0);
  // The rule at its edge: the admitted count stays within the budget, one more passes it.
  const std::int64_t k = f.admitted_releases();
  CHECK(f.admits(k - 1));
  CHECK_FALSE(f.admits(k));
  CHECK(f.epsilon(k, delta) <= budget);
  CHECK(f.epsilon(k + 1, delta) > budget);
  CHECK(f.epsilon(0, delta) == 0.0);
}

TEST_CASE("rdp filter: never below the moments accountant on the same releases", "[dp][rdp-filter]") {
  // One order fixed in advance can only price k releases at or above the best order chosen
  // after the fact (the moments accountant's, which may also use the small-divergence shortcut).
  for (const double q : {0.05, 0.25, 1.0})
    for (const double z : {0.8, 1.0, 2.0}) {
      const RdpFilter f = RdpFilter::choose(q, z, 5.0, 1e-3, 50, rdp_orders(OrderGrid::fine));
      for (const long k : {1L, 5L, 20L, 50L}) {
        RdpAccountant moments;
        moments.add_subsampled_gaussian(q, z, k);
        INFO("q " << q << " z " << z << " k " << k << " order " << f.order);
        CHECK(f.epsilon(k, 1e-3) >= moments.epsilon(1e-3) - 1e-12);
      }
    }
}

TEST_CASE("rdp filter: the order depends on the planned releases, ties on the epsilon", "[dp][rdp-filter]") {
  // A budget no order reaches in 50 releases (1e6): every order admits all 50, and the one
  // chosen gives the smallest epsilon after them -- the moments accountant's best order.
  const auto orders = rdp_orders(OrderGrid::fine);
  const RdpFilter f = RdpFilter::choose(0.25, 1.0, 1e6, 1e-3, 50, orders);
  RdpAccountant moments;
  moments.add_subsampled_gaussian(0.25, 1.0, 50);
  CHECK(f.admitted_releases() >= 50);
  CHECK(f.epsilon(50, 1e-3) == Approx(moments.epsilon(1e-3)).epsilon(1e-9));
  CHECK(f.order == moments.epsilon_and_order(1e-3).order);
}

TEST_CASE("rdp filter: a budget no order can meet admits nothing", "[dp][rdp-filter]") {
  // delta 1e-10 costs log(1/delta) / (a - 1) > 0.01 at every order of the grid.
  const RdpFilter f = RdpFilter::choose(1.0, 1.0, 0.01, 1e-10, 10, rdp_orders(OrderGrid::fine));
  CHECK(f.admitted_releases() == 0);
  CHECK_FALSE(f.admits(0));
}

TEST_CASE("rdp filter: bad arguments are refused", "[dp][rdp-filter]") {
  const auto orders = rdp_orders(OrderGrid::fine);
  CHECK_THROWS_AS(RdpFilter::choose(0.0, 1, 1, 1e-5, 10, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(1.5, 1, 1, 1e-5, 10, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 0, 1, 1e-5, 10, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 1, 0, 1e-5, 10, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 1, INFINITY, 1e-5, 10, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 1, 1, 0.0, 10, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 1, 1, 1e-5, 0, orders), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 1, 1, 1e-5, 10, {}), std::invalid_argument);
  CHECK_THROWS_AS(RdpFilter::choose(0.5, 1, 1, 1e-5, 10, {1.0}), std::invalid_argument);
}
