// Benchmark of issue 14's tuning objectives: evaluations per second of each task on the shards
// of its shipped scenario (scenarios/papers/real/), one thread, Release build. An evaluation is
// one training run with random hyperparameters plus its validation score. The baseline in the
// same run is the cheapest step every evaluation shares: standardising one shard's training
// half (printed as evaluation / baseline).
//   build/tools/bench_trainers [evaluations per task, default 40]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "data/datasets.hpp"
#include "engine/data/standardize.hpp"
#include "engine/objectives/tuning_objective.hpp"

using namespace fedsim;
using Clock = std::chrono::steady_clock;

namespace {

struct Task {
  const char* scenario;
  TuningSettings::Task task;
  int agents, samples;
  double label_skew;
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int evaluations = argc > 1 ? std::atoi(argv[1]) : 40;
  if (evaluations < 1) {
    std::fprintf(stderr, "usage: bench_trainers [evaluations per task >= 1]\n");
    return 2;
  }
  const Task tasks[] = {{"real/svm-detection", TuningSettings::Task::svm, 29, 5800, 5.0},
                        {"real/logistic-activity", TuningSettings::Task::logistic, 30, 6000, 0.5},
                        {"real/mlp-images", TuningSettings::Task::mlp, 50, 10000, 0.5}};
  double sink = 0;
  std::printf("%-24s %-9s %8s %14s %16s %10s\n", "scenario", "task", "train", "evals/s",
              "baseline/s", "ratio");
  for (const Task& t : tasks) {
    auto data = std::make_shared<const data::Dataset>(data::load_dataset("fashion-mnist", {}, t.samples));
    TuningSettings s;
    s.task = t.task;
    s.split.agents = t.agents;
    s.split.alpha = t.label_skew;
    s.seed = 1;
    const TuningObjective o(data, s);
    RandomStream rng(1, "bench.x"), unused(1, "unused");
    auto start = Clock::now();
    for (int k = 0; k < evaluations; ++k) {
      Query q;
      q.agent = k % t.agents;
      q.iteration = k;
      q.x = Eigen::VectorXd(s.dimension());
      for (int j = 0; j < s.dimension(); ++j) q.x(j) = rng.uniform();
      sink += o.evaluate(q, unused).y;
    }
    const double per_eval = seconds_since(start) / evaluations;
    // Baseline: standardising a training half of the mean shard size.
    const int train = o.shard_sizes(0).first;
    const Eigen::MatrixXd x = data->x.topRows(train).cast<double>();
    start = Clock::now();
    int reps = 0;
    do {
      sink += data::Standardizer::fit(x).apply(x)(0, 0);
      ++reps;
    } while (seconds_since(start) < 0.2);
    const double per_base = seconds_since(start) / reps;
    std::printf("%-24s %-9s %8d %14.1f %16.1f %10.1f\n", t.scenario, to_string(t.task).c_str(),
                train, 1.0 / per_eval, 1.0 / per_base, per_eval / per_base);
  }
  if (sink == 1234.5) std::printf(" ");
  return 0;
}
