#include <catch2/catch.hpp>

#include <cmath>

#include "engine/fbo/de_server.hpp"
#include "engine/fbo/schedules.hpp"

using namespace fedsim::fbo;

TEST_CASE("p_t sequences", "[fbo]") {
  CHECK(p_local(PSchedule::inv_sqrt, 1, false) == 0.0);
  CHECK(p_local(PSchedule::inv_sqrt, 4, false) == Approx(0.5));
  CHECK(p_local(PSchedule::inv_sqrt, 1, true) == Approx(1 - 1 / std::sqrt(2.0)));
  CHECK(p_local(PSchedule::inv, 1, true) == Approx(0.5));
  CHECK(p_local(PSchedule::inv, 10, true) == Approx(0.9));
  CHECK(p_local(PSchedule::inv_square, 1, true) == Approx(0.75));
  CHECK(p_local(PSchedule::inv_square, 3, false) == Approx(1 - 1.0 / 9));
  CHECK(p_local(PSchedule::always_local, 1, false) == 1.0);
  for (int t = 2; t < 50; ++t)  // monotonically increasing
    CHECK(p_local(PSchedule::inv_sqrt, t, false) > p_local(PSchedule::inv_sqrt, t - 1, false));
  CHECK_THROWS_AS(p_local(PSchedule::inv, 0, false), std::invalid_argument);
  CHECK_THROWS_AS(parse_p_schedule("1/log(t)"), std::invalid_argument);
}

TEST_CASE("the synthetic temperature schedule of DP-FTS-DE appendix B", "[fbo]") {
  // a_t = 16 for t <= 5; 16, 12.25, 8.5, 4.75, 1 for t = 6..10; 1 after. T_t = a/(a_t - 1).
  const double a = 15;
  for (int t = 1; t <= 6; ++t) CHECK(temperature(TemperatureSchedule::synthetic, t, a) == Approx(1.0));
  CHECK(temperature(TemperatureSchedule::synthetic, 7, a) == Approx(15 / 11.25));
  CHECK(temperature(TemperatureSchedule::synthetic, 8, a) == Approx(2.0));
  CHECK(temperature(TemperatureSchedule::synthetic, 9, a) == Approx(4.0));
  CHECK(std::isinf(temperature(TemperatureSchedule::synthetic, 10, a)));
  CHECK(std::isinf(temperature(TemperatureSchedule::synthetic, 100, a)));
  // Real-world: 16 for t <= 10, linear to 1 over t = 11..40, uniform from 40 on.
  CHECK(temperature(TemperatureSchedule::real_world, 11, a) == Approx(1.0));
  CHECK(temperature(TemperatureSchedule::real_world, 39, a) > 1.0);
  CHECK(std::isinf(temperature(TemperatureSchedule::real_world, 40, a)));
  CHECK(temperature(TemperatureSchedule::fixed, 500, a) == 1.0);
  CHECK(std::isinf(temperature(TemperatureSchedule::uniform, 1, a)));
}

TEST_CASE("DE softmax weights", "[fbo]") {
  const std::vector<int> assignment = {0, 1, 0, 1, 1};
  const Eigen::MatrixXd w = de_weights(assignment, 2, 1.0, 15.0);
  for (int i = 0; i < 2; ++i) CHECK(w.col(i).sum() == Approx(1.0));
  // Ratio between an explorer of region i and another agent is exp(a / T).
  CHECK(w(0, 0) / w(1, 0) == Approx(std::exp(15.0)));
  CHECK(w(1, 1) / w(0, 1) == Approx(std::exp(15.0)));
  const Eigen::MatrixXd u = de_weights(assignment, 2, infinite_temperature, 15.0);
  CHECK((u.array() - 0.2).abs().maxCoeff() < 1e-15);
  // The closed form against a direct softmax at T = 4.
  const Eigen::MatrixXd w4 = de_weights(assignment, 2, 4.0, 15.0);
  double z = 0;
  for (int n = 0; n < 5; ++n) z += std::exp(((assignment[n] == 1 ? 15.0 : 0.0) + 1) / 4.0);
  CHECK(w4(3, 1) == Approx(std::exp(16.0 / 4) / z));
  CHECK(w4(2, 1) == Approx(std::exp(1.0 / 4) / z));
}
