// Values the engine cannot compute with are refused at load, with the allowed range (issue 32):
// sub-normal length scales, infinite or absurd times and factors; a name that would take the
// default output folder out of out/; and a 1-iteration run with the default dead_after_missed.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenarios/loader.hpp"

using namespace fedsim::scenario;

namespace {

const std::string tiny = std::string(FEDSIM_SCENARIO_DIR) + "/tiny.toml";

/// The message of loading tiny.toml with `set`, or "" when it loads.
std::string refusal(const std::string& set, const std::string& also = "") {
  try {
    std::vector<std::string> sets{set};
    if (!also.empty()) sets.push_back(also);
    load_scenario(tiny, sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("degenerate numbers are refused at load with the allowed range", "[scenario][degenerate]") {
  struct Case {
    const char* set;
    const char* key;
    const char* range;
  };
  for (const Case c : {
           Case{"algorithm.kernel_lengthscale=5e-324", "algorithm.kernel_lengthscale", "[1e-06, 1e+06]"},
           Case{"algorithm.kernel_lengthscale=1e300", "algorithm.kernel_lengthscale", "[1e-06, 1e+06]"},
           Case{"world.objective.lengthscale=5e-324", "world.objective.lengthscale", "[1e-06, 1e+06]"},
           Case{"algorithm.lambda=5e-324", "algorithm.lambda", "[1e-12, 1e+12]"},
           Case{"algorithm.q=5e-324", "algorithm.q", "[1e-9, 1]"},
           Case{"algorithm.beta=1e308", "algorithm.beta", "(0, 1e6]"},
           Case{"algorithm.z=1e308", "algorithm.z", "(0, 1e6]"},
           Case{"world.noise_variance=1e308", "world.noise_variance", "[0, 1e+06]"},
           Case{"world.network.uplink=1e300", "world.network.uplink", "[0, 1e9]"},
           Case{"world.network.compute=1e10", "world.network.compute", "[0, 1e9]"},
           Case{"world.network.downlink={kind=\"exponential\",mean=1e300}", "world.network.downlink",
                "(0, 1e9]"},
           Case{"world.network.uplink={kind=\"lognormal\",mu=700,sigma=1}", "world.network.uplink",
                "20.7"},
           Case{"world.network.speed_factor=1e308", "world.network.speed_factor", "(0, 1e6]"},
           Case{"world.network.bandwidth=5e-324", "world.network.bandwidth", ">= 1 byte"},
           Case{"world.network.detection_delay=1e300", "world.network.detection_delay", "1e+09"},
           Case{"policy.round_timeout=1e300", "policy.round_timeout", "1e+09"},
       }) {
    INFO(c.set);
    const std::string why = refusal(c.set);
    CHECK(why.find(std::string("'") + c.key) != std::string::npos);
    CHECK(why.find(c.range) != std::string::npos);
  }
  // A tuning objective's label skew: a sub-normal Dirichlet alpha failed the run's split.
  const std::string svm = std::string(FEDSIM_SCENARIO_DIR) + "/papers/real/svm-detection.toml";
  CHECK_THROWS_WITH(load_scenario(svm, {"world.objective.label_skew=5e-324"}),
                    Catch::Contains("'world.objective.label_skew'") && Catch::Contains(">= 0.01"));
  CHECK_NOTHROW(load_scenario(svm, {"world.objective.label_skew=inf"}));
  // inf keeps its meaning where a key gives it one; the bounds themselves are accepted.
  for (const char* ok : {"policy.round_timeout=inf", "world.network.detection_delay=inf",
                         "world.network.uplink=1e9", "algorithm.kernel_lengthscale=1e-6",
                         "world.network.bandwidth=inf"})
    CHECK(refusal(ok).empty());
}

TEST_CASE("crash and partition times are finite and bounded, or inf where inf means never",
          "[scenario][degenerate]") {
  const std::string crash = "world.network.crashes=[{agents=[1],time=1e300}]";
  CHECK(refusal(crash).find("1e+09") != std::string::npos);
  CHECK(refusal("world.network.crashes=[{agents=[1],time=1.0,recover=1e300}]").find("1e+09") !=
        std::string::npos);
  CHECK(refusal("world.network.crashes=[{agents=[1],time=1.0,recover=inf}]").empty());
  CHECK(refusal("world.network.partitions=[{agents=[1],start=0.0,end=1e300}]").find("1e+09") !=
        std::string::npos);
  CHECK(refusal("world.network.partitions=[{agents=[1],start=0.0,end=inf}]").empty());
}

TEST_CASE("a name that would leave out/ is refused", "[scenario][degenerate]") {
  for (const char* bad : {"name=\"../../x\"", "name=\"a/b\"", "name=\"..\"", "name=\".\""}) {
    INFO(bad);
    const std::string why = refusal(bad);
    CHECK(why.find("'name'") != std::string::npos);
    CHECK(why.find("out/<name>") != std::string::npos);
  }
  CHECK(refusal("name=\"a..b\"").empty());
}

TEST_CASE("one iteration loads with the default dead_after_missed", "[scenario][degenerate]") {
  CHECK(refusal("algorithm.iterations=1").empty());
  const ScenarioConfig c = load_scenario(tiny, {"algorithm.iterations=1"});
  CHECK(c.policy.dead_after_missed == 3);
  // A larger count than both the rounds and the default is still refused.
  CHECK(refusal("algorithm.iterations=1", "policy.dead_after_missed=4")
            .find("'policy.dead_after_missed'") != std::string::npos);
  CHECK(refusal("algorithm.iterations=1", "policy.dead_after_missed=3").empty());
}
