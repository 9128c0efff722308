// BoxTestObjective: the box test functions as a federated objective, one shifted variant per
// agent, on the continuous unit box.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "engine/objectives/box_test_objective.hpp"
#include "engine/objectives/test_functions.hpp"
#include "engine/rng.hpp"

using fedsim::Answer;
using fedsim::BoxTestObjective;
using fedsim::Query;
using fedsim::RandomStream;

namespace {

Query at(int agent, const Eigen::VectorXd& x) {
  Query q;
  q.agent = agent;
  q.x = x;
  return q;
}

Eigen::VectorXd uniform_point(int d, RandomStream& rng) {
  Eigen::VectorXd x(d);
  for (int j = 0; j < d; ++j) x(j) = rng.uniform();
  return x;
}

struct Case {
  std::string name;
  int dimension;  // what the constructor is given
  int dim;        // the function's
};

const Case cases[] = {{"branin", 0, 2}, {"hartmann3", 0, 3}, {"hartmann6", 0, 6}, {"ackley", 3, 3}};

}  // namespace

TEST_CASE("box test objective: a continuous unit box of the function's dimension",
          "[objective][box]") {
  for (const Case& c : cases) {
    INFO(c.name);
    const BoxTestObjective o(c.name, c.dimension, 4, 0.1, 7, 0.0);
    CHECK(o.dimension() == c.dim);
    CHECK(o.agents() == 4);
    CHECK(o.domain().candidates == nullptr);
    CHECK_FALSE(o.domain().bounds.has_value());
    CHECK(o.domain().box.lower == Eigen::VectorXd::Zero(c.dim));
    CHECK(o.domain().box.upper == Eigen::VectorXd::Ones(c.dim));
    CHECK(o.async() == nullptr);
  }
}

TEST_CASE("box test objective: every agent attains the base optimum at its shifted optimum",
          "[objective][box]") {
  for (const Case& c : cases) {
    INFO(c.name);
    const auto base = fedsim::make_test_function(c.name, c.dim);
    for (const bool first_is_base : {false, true}) {
      INFO("first_is_base " << first_is_base);
      const BoxTestObjective o(c.name, c.dimension, 6, 0.1, 11, 0.0, first_is_base);
      RandomStream rng(3, "test.points");
      RandomStream noise(3, "test.noise");
      for (int n = 0; n < o.agents(); ++n) {
        INFO("agent " << n);
        REQUIRE(o.optimum(n).has_value());
        CHECK(*o.optimum(n) == base->optimum_value());
        const Eigen::VectorXd x_star = o.function(n).optimum_location();
        const Answer a = o.evaluate(at(n, x_star), noise);
        REQUIRE(a.f.has_value());
        CHECK(*a.f == Approx(base->optimum_value()).margin(1e-12));
        CHECK(a.y == *a.f);  // noise sd 0
        // Shifted: away from the base's maximiser (except the target agent's function).
        const double moved = (x_star - base->optimum_location()).norm();
        if (n == 0 && first_is_base) CHECK(moved == 0.0);
        else CHECK(moved > 0.0);
        // No random point beats it.
        double best = -INFINITY;
        for (int i = 0; i < 3000; ++i)
          best = std::max(best, *o.evaluate(at(n, uniform_point(c.dim, rng)), noise).f);
        CHECK(best <= *a.f + 1e-12);
      }
      CHECK_FALSE(o.optimum(-1).has_value());
      CHECK_FALSE(o.optimum(o.agents()).has_value());
    }
  }
}

TEST_CASE("box test objective: f is make_agent_objective's ShiftedObjective value",
          "[objective][box]") {
  for (const Case& c : cases) {
    INFO(c.name);
    const auto base = fedsim::make_test_function(c.name, c.dim);
    const BoxTestObjective o(c.name, c.dimension, 5, 0.25, 42, 0.5);
    RandomStream rng(9, "test.points");
    RandomStream noise(9, "test.noise");
    for (int n = 0; n < o.agents(); ++n) {
      const auto shifted = fedsim::make_agent_objective(base, 42, n, 0.25);
      CHECK(o.function(n).shift() == shifted->shift());
      for (int i = 0; i < 50; ++i) {
        const Eigen::VectorXd x = uniform_point(c.dim, rng);
        CHECK(*o.evaluate(at(n, x), noise).f == shifted->value(x));
      }
    }
    // Another seed, other shifts.
    const BoxTestObjective other(c.name, c.dimension, 5, 0.25, 43, 0.5);
    CHECK(other.function(1).shift() != o.function(1).shift());
  }
}

TEST_CASE("box test objective: y - f is N(0, noise_sd^2) from the agent's stream",
          "[objective][box]") {
  const double sd = 0.3;
  const BoxTestObjective o("hartmann3", 0, 2, 0.1, 5, sd);
  RandomStream noise(21, "test.noise");
  RandomStream rng(21, "test.points");
  const int n = 20000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const Answer a = o.evaluate(at(i % 2, uniform_point(3, rng)), noise);
    const double e = a.y - *a.f;
    sum += e;
    sum2 += e * e;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  // Standard errors: mean sd/sqrt(n) = 0.0021, sd about sd/sqrt(2n) = 0.0015; 5 of each.
  CHECK(std::abs(mean) < 0.011);
  CHECK(std::abs(std::sqrt(var) - sd) < 0.0075);
  // The draw is the stream's: the same stream gives the same y.
  RandomStream a(4, "n"), b(4, "n");
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(3, 0.4);
  CHECK(o.evaluate(at(1, x), a).y == o.evaluate(at(1, x), b).y);
  // y - f is sd times the stream's first normal draw, exactly.
  RandomStream c(4, "n"), d(4, "n");
  const Answer one = o.evaluate(at(0, x), c);
  CHECK(one.y - *one.f == Approx(sd * d.normal()).margin(1e-15));
}

TEST_CASE("box test objective: bad arguments and queries throw", "[objective][box]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(BoxTestObjective("rosenbrock", 2, 3, 0.1, 1, 0.1), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("branin", 0, 0, 0.1, 1, 0.1), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("branin", 0, 3, -0.1, 1, 0.1), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("branin", 0, 3, nan, 1, 0.1), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("branin", 0, 3, 0.1, 1, -0.1), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("branin", 0, 3, 0.1, 1, nan), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("branin", 0, 3, 0.1, 1, INFINITY), std::invalid_argument);
  CHECK_THROWS_AS(BoxTestObjective("ackley", 0, 3, 0.1, 1, 0.1), std::invalid_argument);
  CHECK_NOTHROW(BoxTestObjective("branin", 0, 1, 0.0, 1, 0.0));

  const BoxTestObjective o("branin", 0, 3, 0.1, 1, 0.1);
  RandomStream noise(1, "n");
  const Eigen::VectorXd mid = Eigen::VectorXd::Constant(2, 0.5);
  CHECK_THROWS_AS(o.evaluate(at(-1, mid), noise), std::out_of_range);
  CHECK_THROWS_AS(o.evaluate(at(3, mid), noise), std::out_of_range);
  CHECK_THROWS_AS(o.evaluate(at(0, Eigen::VectorXd::Constant(3, 0.5)), noise), std::out_of_range);
  CHECK_THROWS_AS(o.evaluate(at(0, Eigen::Vector2d(1.5, 0.5)), noise), std::out_of_range);
  CHECK_THROWS_AS(o.evaluate(at(0, Eigen::Vector2d(nan, 0.5)), noise), std::out_of_range);
  CHECK_NOTHROW(o.evaluate(at(2, Eigen::Vector2d(1.0, 0.0)), noise));
}
