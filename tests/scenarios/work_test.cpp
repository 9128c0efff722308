// The work estimate (scenarios/work.hpp) against its documented formulas, the option's parser,
// the refusal that names the key, and the shipped scenarios all under the default limit.
#include "scenarios/work.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "scenarios/loader.hpp"

using namespace fedsim;
using namespace fedsim::scenario;
using actors::algorithms::seconds_per_flop;
using actors::algorithms::seconds_per_message;

namespace {

const std::string dir = FEDSIM_SCENARIO_DIR;
const std::string tiny = dir + "/tiny.toml";

double part(const WorkEstimate& e, const std::string& key, const std::string& starts) {
  for (const WorkPart& p : e.parts)
    if (p.key == key && p.what.rfind(starts, 0) == 0) return p.seconds;
  FAIL("no part " << key << " starting with " << starts);
  return 0;
}

}  // namespace

TEST_CASE("the work estimate's parts are the documented formulas", "[scenario][work]") {
  // tiny.toml: N = 8, dp-fts-de, T = 5, n_init = 3, M = 10, P = 2, a grid of 200 points.
  const WorkEstimate e = estimate_work(load_scenario(tiny));
  const double n = 8, m = 10, t = 5, nc = 200, p = 2;
  CHECK(part(e, "world.agents", "the agents' steps") ==
        Approx(n * t * 2 * seconds_per_message + n * t * 2 * m * m * seconds_per_flop));
  CHECK(part(e, "algorithm.iterations", "the agents' acquisitions") ==
        Approx(2 * n * t * nc * m * seconds_per_flop));
  CHECK(part(e, "algorithm.features", "the server's") ==
        Approx(t * n * m * p * 4 * seconds_per_flop));
  CHECK(part(e, "world.objective.grid_size", "the grid's GP draw") ==
        Approx(nc * nc * nc / 3 * seconds_per_flop));
  double sum = 0;
  for (const WorkPart& q : e.parts) sum += q.seconds;
  CHECK(e.seconds() == sum);
  CHECK(e.seconds() < 1);  // a tiny run
  CHECK(e.sizes.find("n_c = 200") != std::string::npos);
  // On a box: hartmann6, N = 20, T = 50, M = 100, P = 4, d = 6, 1000 candidates and 5 refined
  // (200 evaluations each) per sub-region.
  const WorkEstimate box = estimate_work(load_scenario(dir + "/objectives/hartmann6.toml"));
  CHECK(part(box, "algorithm.iterations", "the agents' acquisitions") ==
        Approx(20.0 * 50 * (4 * (1000 + 200 * 5)) * 100 * (6 + 10) * seconds_per_flop));
}

TEST_CASE("a tuning objective's trainings: samples, tasks and epochs", "[scenario][work]") {
  // svm-detection: N = 29, T = 60, n_init = 5, the first 5800 samples of Fashion-MNIST (784
  // features): s = 100 training samples per evaluation, 29 x 65 evaluations.
  const std::string svm = dir + "/papers/real/svm-detection.toml";
  const double s = 100, f = 784, evaluations = 29 * 65;
  CHECK(part(estimate_work(load_scenario(svm)), "world.objective.samples",
             "the tuning objective's") ==
        Approx(evaluations * (1.5 * s * s * f + s * s * s / 3) * seconds_per_flop));
  CHECK(tuning_evaluation_ops(TuningSettings::Task::logistic, 100, 784, 10, 20) ==
        3 * 20 * 100 * 784 * 10);
  CHECK(tuning_evaluation_ops(TuningSettings::Task::mlp, 100, 784, 10, 2) == 48 * 2 * 100 * 784);
  // The mutator's timeouts: all 60,000 samples over 2 agents, 30,000 per agent to factor 65
  // times each: above the default limit, blaming the samples.
  const WorkEstimate all =
      estimate_work(load_scenario(svm, {"world.objective.samples=0", "world.agents=2"}));
  CHECK(all.seconds() > default_max_work_seconds);
  CHECK(all.largest().key == "world.objective.samples");
  // The samples are the data set's at most: 2^31 is all of them.
  CHECK(estimate_work(load_scenario(svm, {"world.objective.samples=2147483647", "world.agents=2"}))
            .seconds() == Approx(all.seconds()));
}

TEST_CASE("the work of runs no one would wait for is refused, blaming its key",
          "[scenario][work]") {
  // FBO: a million candidates per acquisition, or a history posterior of 10^4 features.
  const WorkEstimate candidates = estimate_work(load_scenario(
      dir + "/objectives/hartmann6.toml", {"algorithm.acquisition_candidates=100000000"}));
  CHECK(candidates.seconds() > default_max_work_seconds);
  CHECK(candidates.largest().key == "algorithm.iterations");
  // FN-UCB at its widest network, or trained for a million steps.
  const std::string fn_ucb = dir + "/papers/fn-ucb-garland.toml";
  const WorkEstimate wide = estimate_work(load_scenario(fn_ucb, {"algorithm.fn-ucb.width=4096"}));
  CHECK(wide.seconds() > default_max_work_seconds);
  CHECK(wide.largest().key == "algorithm.fn-ucb.width");
  const WorkEstimate trained =
      estimate_work(load_scenario(fn_ucb, {"algorithm.fn-ucb.train_steps=1000000"}));
  CHECK(trained.seconds() > default_max_work_seconds);
  CHECK(trained.largest().key == "algorithm.fn-ucb.train_steps");
  // GP-BO: cubic in its evaluations (2,000 the most its rule allows: about 16 times 1,000).
  const std::string gp_bo = dir + "/papers/gp-bo-garland.toml";
  const double thousand = estimate_work(load_scenario(gp_bo)).seconds();
  const double two_thousand =
      estimate_work(load_scenario(gp_bo, {"algorithm.budget=2000"})).seconds();
  CHECK(two_thousand / thousand > 10);
  CHECK(estimate_work(load_scenario(gp_bo)).largest().key == "algorithm.budget");
  // Fed-PNE: the clients' pulls.
  const WorkEstimate pulls = estimate_work(
      load_scenario(dir + "/papers/fed-pne-garland.toml", {"algorithm.budget=1000000000000"}));
  CHECK(pulls.largest().key == "algorithm.budget");
  CHECK(pulls.seconds() > default_max_work_seconds);
}

TEST_CASE("every shipped scenario is under the default work limit", "[scenario][work]") {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path().string());
    const WorkEstimate e = estimate_work(load_scenario(entry.path().string()));
    CHECK(e.seconds() > 0);
    CHECK(work_refusal("the run", e, work_limit("", "--max-work"), "--max-work").empty());
  }
}

TEST_CASE("work times parse with units, none is no limit, a refusal is one line",
          "[scenario][work]") {
  CHECK(*parse_work_time("24h", "--max-work") == 86400);
  CHECK(*parse_work_time("90m", "--max-work") == 5400);
  CHECK(*parse_work_time("2d", "--max-work") == 172800);
  CHECK(*parse_work_time("30", "--max-work") == 30);
  CHECK(*parse_work_time("1.5s", "--max-work") == 1.5);
  CHECK_FALSE(parse_work_time("none", "--max-work").has_value());
  for (const char* bad : {"", "h", "-1h", "8x", "inf", "nan", "0", "1 h", "1e400", "2hours"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_work_time(bad, "--max-work"),
                      Catch::Contains("--max-work") && Catch::Contains("none"));
  }
  CHECK(work_text(30) == "30 CPU-seconds");
  CHECK(work_text(5400) == "1.5 CPU-hours");
  CHECK(work_limit("", "--max-work").seconds == default_max_work_seconds);

  const WorkEstimate e = estimate_work(
      load_scenario(dir + "/papers/fn-ucb-garland.toml", {"algorithm.fn-ucb.width=4096"}));
  const std::string why = work_refusal("the run", e, work_limit("", "--max-work"), "--max-work");
  CHECK(why.rfind("the run needs about ", 0) == 0);
  CHECK(why.find("key 'algorithm.fn-ucb.width'") != std::string::npos);
  CHECK(why.find("the default --max-work 24h") != std::string::npos);
  CHECK(why.find("--max-work none") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
  CHECK(work_refusal("the run", e, work_limit("none", "--max-work"), "--max-work").empty());
  const WorkEstimate small = estimate_work(load_scenario(tiny));
  CHECK(work_refusal("the run", small, work_limit("", "--max-work"), "--max-work").empty());
  CHECK_FALSE(
      work_refusal("the run", small, work_limit("0.001s", "--max-work"), "--max-work").empty());
}
