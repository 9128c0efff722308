#include "engine/dp/accountant.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "engine/dp/analytic_gaussian.hpp"
#include "engine/dp/pld_accountant.hpp"
#include "engine/dp/rdp_accountant.hpp"

using namespace fedsim::dp;
using Catch::Matchers::Contains;

TEST_CASE("make_accountant knows moments and tight, and names the allowed values otherwise",
          "[dp][accountant]") {
  CHECK(make_accountant("moments")->name() == "moments");
  CHECK(make_accountant("tight")->name() == "tight");
  CHECK(dynamic_cast<RdpAccountant*>(make_accountant("moments").get()) != nullptr);
  CHECK(dynamic_cast<PldAccountant*>(make_accountant("tight").get()) != nullptr);
  CHECK_THROWS_WITH(make_accountant("pld"), Contains("moments") && Contains("tight"));
}

TEST_CASE("accountants reject bad parameters with a message naming them", "[dp][accountant]") {
  for (const char* name : {"moments", "tight"}) {
    auto a = make_accountant(name);
    CHECK_THROWS_WITH(a->add_subsampled_gaussian(0.0, 1.0), Contains("q") && Contains("(0, 1]"));
    CHECK_THROWS_WITH(a->add_subsampled_gaussian(1.5, 1.0), Contains("q") && Contains("(0, 1]"));
    CHECK_THROWS_WITH(a->add_subsampled_gaussian(0.5, 0.0), Contains("noise multiplier z"));
    CHECK_THROWS_WITH(a->add_subsampled_gaussian(0.5, -1.0), Contains("noise multiplier z"));
    CHECK_THROWS_WITH(a->add_gaussian(NAN), Contains("noise multiplier z"));
    CHECK_THROWS_WITH(a->add_subsampled_gaussian(0.5, 1.0, -1), Contains("steps"));
    CHECK_THROWS_WITH(a->epsilon(0.0), Contains("delta") && Contains("(0, 1)"));
    CHECK_THROWS_WITH(a->epsilon(1.0), Contains("delta") && Contains("(0, 1)"));
    CHECK(a->epsilon(1e-5) == 0.0);  // nothing recorded yet
  }
}

TEST_CASE("clone answers 'what if one more step' without touching the original",
          "[dp][accountant]") {
  for (const char* name : {"moments", "tight"}) {
    auto a = make_accountant(name);
    a->add_subsampled_gaussian(0.25, 1.0, 39);
    const double before = a->epsilon(1e-5);
    auto next = a->clone();
    next->add_subsampled_gaussian(0.25, 1.0);
    CHECK(a->epsilon(1e-5) == before);
    auto direct = make_accountant(name);
    direct->add_subsampled_gaussian(0.25, 1.0, 40);
    CHECK(next->epsilon(1e-5) == Approx(direct->epsilon(1e-5)).epsilon(1e-12));
    CHECK(next->epsilon(1e-5) > before);
  }
}

TEST_CASE("steps compose additively and add_gaussian is q = 1", "[dp][accountant]") {
  RdpAccountant pieces, whole, gaussian, subsampled;
  for (int i = 0; i < 4; ++i) pieces.add_subsampled_gaussian(0.1, 1.3, 10);
  whole.add_subsampled_gaussian(0.1, 1.3, 40);
  for (std::size_t i = 0; i < whole.rdp().size(); ++i)
    CHECK(pieces.rdp()[i] == Approx(whole.rdp()[i]).epsilon(1e-13));
  gaussian.add_gaussian(2.0, 7);
  subsampled.add_subsampled_gaussian(1.0, 2.0, 7);
  CHECK(gaussian.epsilon(1e-6) == subsampled.epsilon(1e-6));
}

TEST_CASE("mixed Gaussian mechanisms: both accountants bound the exact composition",
          "[dp][accountant]") {
  // Gaussians with z = 1 (10 steps) and z = 2 (20 steps) compose to one Gaussian with
  // 1/sigma^2 = 10/1 + 20/4 = 15.
  const double exact = gaussian_epsilon(1e-5, 1 / std::sqrt(15.0));
  PldAccountant tight;
  RdpAccountant moments;
  for (Accountant* a : std::initializer_list<Accountant*>{&tight, &moments}) {
    a->add_gaussian(1.0, 10);
    a->add_gaussian(2.0, 20);
  }
  const PldEpsilon t = tight.evaluate(1e-5);
  CHECK(t.epsilon >= exact - 1e-9);
  CHECK(t.epsilon <= exact + t.error_bound);
  CHECK(moments.epsilon(1e-5) > t.epsilon);
}

TEST_CASE("the moments accountant reports the order that attains epsilon", "[dp][accountant]") {
  RdpAccountant a(paper_rdp_convention());
  a.add_subsampled_gaussian(0.25, 1.0, 40);
  const RdpEpsilon e = a.epsilon_and_order(std::pow(200.0, -1.1));
  CHECK(e.order == 2.0);
  const auto& orders = a.orders();
  const std::size_t i = std::find(orders.begin(), orders.end(), e.order) - orders.begin();
  CHECK(e.epsilon ==
        Approx(rdp_to_epsilon(e.order, a.rdp()[i], std::pow(200.0, -1.1), RdpConversion::classic)));
}
