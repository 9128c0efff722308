// The example workers of examples/objectives/ speak the protocol and compute their documented
// function; the Python one's noise depends on the request only (any worker, same answer).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <vector>

#include "external/external_evaluator.hpp"
#include "tests/external/external_test_support.hpp"

using namespace fedsim::external;
using namespace fedsim::external::test;

namespace {

const std::filesystem::path examples =
    std::filesystem::path(FEDSIM_SCENARIO_DIR).parent_path() / "examples" / "objectives";

double quadratic(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += (v - 0.3) * (v - 0.3);
  return -s;
}

std::vector<Request> requests() {
  std::vector<Request> out;
  out.push_back({0, 0, 0, {0.3, 0.3}});
  out.push_back({1, 3, 5, {0.1, 0.7}});
  out.push_back({2, 1, 2, {1.0, 0.0, 1e-5}});
  out.push_back({3, 7, 9, {0.123456789012345678}});
  out.push_back({4, 3, 5, {0.1, 0.7}});  // request 1 again: same agent, iteration and point
  return out;
}

}  // namespace

TEST_CASE("examples/objectives/quadratic.py: f closed form, noise a function of the request",
          "[external]") {
  Settings settings;
  settings.command = {python3(), (examples / "quadratic.py").string()};
  settings.workers = 2;
  settings.timeout = 10;
  ExternalEvaluator evaluator(settings);
  const auto reqs = requests();
  const auto outcomes = evaluate_all(evaluator, reqs);
  for (std::size_t k = 0; k < reqs.size(); ++k) {
    REQUIRE(outcomes[k].ok());
    REQUIRE(outcomes[k].answer().f);
    CHECK(*outcomes[k].answer().f == Approx(quadratic(reqs[k].x)).margin(1e-15));
    CHECK(std::abs(outcomes[k].answer().y - *outcomes[k].answer().f) < 0.06);  // 6 sd
  }
  CHECK(outcomes[0].answer().y != outcomes[0].answer().f);  // noisy
  CHECK(outcomes[1].answer().y == outcomes[4].answer().y);  // reproducible
}

TEST_CASE("examples/objectives/quadratic.sh: the same function, noise-free", "[external]") {
  Settings settings;
  settings.command = {"/bin/sh", (examples / "quadratic.sh").string()};
  settings.timeout = 10;
  ExternalEvaluator evaluator(settings);
  const auto reqs = requests();
  const auto outcomes = evaluate_all(evaluator, reqs);
  for (std::size_t k = 0; k < reqs.size(); ++k) {
    REQUIRE(outcomes[k].ok());
    CHECK(outcomes[k].answer().y == Approx(quadratic(reqs[k].x)).margin(1e-15));
    CHECK(outcomes[k].answer().f == outcomes[k].answer().y);
  }
}
