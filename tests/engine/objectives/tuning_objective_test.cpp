// Hyperparameter tuning on real data (engine/objectives/tuning_objective): the mapping onto the
// paper's ranges, the split into shards, determinism of an evaluation to the last digit, the
// compute cost, each task's scores, and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

#include "data/datasets.hpp"
#include "engine/objectives/tuning_objective.hpp"

using namespace fedsim;

namespace {

std::shared_ptr<const data::Dataset> digits() {
  static const auto d = std::make_shared<const data::Dataset>(data::load_dataset("digits"));
  return d;
}

Query query(int agent, int iteration, std::initializer_list<double> x) {
  Query q;
  q.agent = agent;
  q.iteration = iteration;
  q.x = Eigen::Map<const Eigen::VectorXd>(x.begin(), static_cast<Eigen::Index>(x.size()));
  return q;
}

TuningSettings settings(TuningSettings::Task task, int agents) {
  TuningSettings s;
  s.task = task;
  s.split.agents = agents;
  s.seed = 3;
  s.epochs = 10;
  return s;
}

}  // namespace

TEST_CASE("tuning: the unit box maps onto the paper's ranges, log scales where they span "
          "decades",
          "[tuning]") {
  using Task = TuningSettings::Task;
  const Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Ones();
  const Eigen::Vector3d mid = Eigen::Vector3d::Constant(0.5);
  auto h = tuning_hyperparameters(Task::logistic, lo);
  CHECK(h.values == std::vector<double>{128, 1e-6, 1e-6});
  h = tuning_hyperparameters(Task::logistic, hi);
  CHECK(h.values[0] == 512);
  CHECK(h.values[1] == Approx(10.0));
  CHECK(h.values[2] == Approx(1.0));
  CHECK(tuning_hyperparameters(Task::logistic, mid).values[2] == Approx(1e-3));  // geometric mid
  h = tuning_hyperparameters(Task::mlp, hi);
  for (double v : h.values) CHECK(v == Approx(0.02));
  CHECK(tuning_hyperparameters(Task::mlp, lo).values[0] == Approx(1e-7));
  h = tuning_hyperparameters(Task::svm, Eigen::Vector2d(0.0, 1.0));
  CHECK(h.names == std::vector<std::string>{"gamma", "penalty"});
  CHECK(h.values[0] == Approx(0.01));
  CHECK(h.values[1] == Approx(10.0));
}

TEST_CASE("tuning: shards cover the data, evaluations are deterministic to the last digit",
          "[tuning][data]") {
  TuningSettings s = settings(TuningSettings::Task::logistic, 6);
  s.cost_per_sample = 1e-4;
  const TuningObjective o(digits(), s);
  CHECK(o.agents() == 6);
  CHECK(o.dimension() == 3);
  CHECK_FALSE(o.domain().candidates);
  int total = 0;
  for (int n = 0; n < 6; ++n) {
    const auto [train, validation] = o.shard_sizes(n);
    CHECK(train - validation <= 1);
    CHECK(train >= validation);
    total += train + validation;
  }
  CHECK(total == 1797);
  RandomStream unused(1, "x");
  const Answer a = o.evaluate(query(2, 4, {0.2, 0.3, 0.9}), unused);
  const Answer b = o.evaluate(query(2, 4, {0.2, 0.3, 0.9}), unused);
  CHECK(a.y == b.y);  // the same query, the same score, bit for bit
  CHECK(a.f == a.y);
  CHECK(a.y > 0.5);   // batch 205 (the whole half), L2 1.3e-4, learning rate 0.25: it learns
  CHECK(a.y <= 1.0);
  // Another objective built from the same data and settings answers the same.
  CHECK(TuningObjective(digits(), s).evaluate(query(2, 4, {0.2, 0.3, 0.9}), unused).y == a.y);
  // The cost: per training sample and epoch.
  CHECK(*a.cost == Approx(1e-4 * o.shard_sizes(2).first * 10));
  // A learning rate of 1e-6 leaves a random classifier.
  CHECK(o.evaluate(query(2, 4, {0.2, 0.3, 0.0}), unused).y < 0.3);
  CHECK_FALSE(o.optimum(0));
}

TEST_CASE("tuning: the svm task scores the positive class's AUC, mlp learns", "[tuning][data]") {
  TuningSettings s = settings(TuningSettings::Task::svm, 4);
  s.positive_class = 3;
  s.split.alpha = std::numeric_limits<double>::infinity();  // every agent holds some 3s
  const TuningObjective svm(digits(), s);
  CHECK(svm.dimension() == 2);
  RandomStream unused(1, "x");
  const double good = svm.evaluate(query(0, 1, {0.2, 0.6}), unused).y;  // gamma 0.04, C 0.25
  CHECK(good > 0.9);
  CHECK(svm.evaluate(query(0, 1, {0.2, 0.6}), unused).y == good);
  s.positive_class = 10;
  CHECK_THROWS_WITH(TuningObjective(digits(), s), Catch::Contains("positive_class 10 is not a class"));
  const TuningObjective mlp(digits(), settings(TuningSettings::Task::mlp, 4));
  CHECK(mlp.evaluate(query(1, 2, {1.0, 0.0, 0.0}), unused).y > 0.6);  // learning rate 0.02
  CHECK(mlp.evaluate(query(1, 2, {0.0, 0.0, 0.0}), unused).y < 0.4);  // learning rate 1e-7
}
