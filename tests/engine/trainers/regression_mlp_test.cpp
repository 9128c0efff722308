// The regression network behind FN-UCB (engine/trainers/regression_mlp): its parameter
// gradient against central finite differences, and gradient descent lowering the loss and
// honouring the anchor.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "engine/trainers/regression_mlp.hpp"

using namespace fedsim;
using fedsim::trainers::RegressionMlp;

TEST_CASE("regression mlp: the parameter gradient equals finite differences",
          "[trainers][baselines]") {
  RandomStream rng(3, "test.mlp");
  for (const int d : {1, 3}) {
    const RegressionMlp net = RegressionMlp::gaussian(d, 7, rng);
    CHECK(net.theta().size() == 7 * (d + 2) + 1);
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::VectorXd x(d);
      for (int j = 0; j < d; ++j) x(j) = rng.uniform();
      const Eigen::VectorXd g = net.gradient(x);
      const double h = 1e-6;
      for (Eigen::Index i = 0; i < net.theta().size(); ++i) {
        RegressionMlp plus = net, minus = net;
        Eigen::VectorXd t = net.theta();
        t(i) += h;
        plus.set_theta(t);
        t(i) -= 2 * h;
        minus.set_theta(t);
        const double fd = (plus.value(x) - minus.value(x)) / (2 * h);
        CHECK(g(i) == Approx(fd).margin(1e-6));
      }
      CHECK(net.values(x.transpose())(0) == Approx(net.value(x)).epsilon(1e-14));
    }
  }
}

TEST_CASE("regression mlp: gradient descent lowers the loss, a heavy anchor holds theta",
          "[trainers][baselines]") {
  RandomStream rng(5, "test.mlp");
  RegressionMlp net = RegressionMlp::gaussian(1, 10, rng);
  const RegressionMlp start = net;
  Eigen::MatrixXd x(20, 1);
  Eigen::VectorXd y(20);
  for (int i = 0; i < 20; ++i) {
    x(i, 0) = i / 19.0;
    y(i) = std::sin(3 * x(i, 0));
  }
  auto loss = [&](const RegressionMlp& n) { return (n.values(x) - y).squaredNorm() / 20; };
  trainers::train_regression(net, x, y, start.theta(), {200, 0.01, 0.1});
  CHECK(loss(net) < 0.5 * loss(start));
  // The anchor's pull: the same steps with a heavy penalty move theta far less.
  RegressionMlp free = start, held = start;
  trainers::train_regression(free, x, y, start.theta(), {100, 1e-3, 0.0});
  trainers::train_regression(held, x, y, start.theta(), {100, 1e-3, 10000.0});
  CHECK((held.theta() - start.theta()).norm() < 0.2 * (free.theta() - start.theta()).norm());
  CHECK_THROWS_WITH(trainers::train_regression(net, x, y, start.theta(), {-1, 0.01, 0.1}),
                    Catch::Contains("steps"));
  CHECK_THROWS_WITH(trainers::train_regression(net, x, y, start.theta(), {1, 0.0, 0.1}),
                    Catch::Contains("learning_rate"));
  CHECK_THROWS_WITH(trainers::train_regression(net, x, y, start.theta(), {1, 0.1, -1.0}),
                    Catch::Contains("l2"));
  CHECK_THROWS_AS(RegressionMlp(1, 2, Eigen::VectorXd::Zero(3)), std::invalid_argument);
}
