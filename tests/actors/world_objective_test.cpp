// make_world_objective: the scenario's [world.objective] of every kind as the objective the
// actors and the loop driver evaluate.
#include "actors/world_objective.hpp"

#include <catch2/catch.hpp>
#include <climits>
#include <cmath>
#include <filesystem>
#include <string>

#include "engine/fbo/reference_loop.hpp"
#include "engine/objectives/box_test_objective.hpp"
#include "engine/objectives/test_functions.hpp"
#include "external/external_objective.hpp"
#include "external/settings.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::scenario;

namespace {

ScenarioConfig load(const std::string& objective, const std::string& world = "") {
  return load_scenario_text("name = \"w\"\nseed = 17\n[world]\nagents = 5\nnoise_variance = "
                            "0.04\n" + world + "[world.objective]\n" + objective +
                                "\n[algorithm]\nname = \"ts\"\n",
                            "w.toml")
      .config;
}

Query at(int agent, const Eigen::VectorXd& x, int candidate = -1) {
  Query q;
  q.agent = agent;
  q.x = x;
  q.candidate = candidate;
  return q;
}

}  // namespace

TEST_CASE("world objective: grid kinds are the loop's synthetic objective", "[world-objective]") {
  for (const char* kind : {"perturbed", "mixture"}) {
    INFO(kind);
    const ScenarioConfig c = load(std::string("kind = \"") + kind + "\"\ngrid_size = 60");
    const auto o = actors::make_world_objective(c, fedsim::test::fresh_dir("world-objective-grid"));
    const auto expected = fbo::make_synthetic_objective(reference_config(c));
    REQUIRE(o->domain().candidates);
    REQUIRE(o->domain().candidates->size() == 60);
    REQUIRE(o->agents() == 5);
    for (int n = 0; n < 5; ++n) {
      CHECK(o->optimum(n) == expected->optimum(n));
      for (int i = 0; i < 60; i += 7) {
        const Eigen::VectorXd x = o->domain().candidates->points.row(i).transpose();
        RandomStream a(1, "n", n), b(1, "n", n);
        const Answer got = o->evaluate(at(n, x, i), a), want = expected->evaluate(at(n, x, i), b);
        CHECK(got.y == want.y);
        CHECK(got.f == want.f);
      }
    }
  }
}

TEST_CASE("world objective: box kinds are shifted test functions with the world's noise",
          "[world-objective]") {
  const auto run = fedsim::test::fresh_dir("world-objective-box");
  SECTION("every agent shifted, shifts keyed by the run seed when objective.seed is 0") {
    const ScenarioConfig c = load("kind = \"hartmann3\"\nshift = 0.2");
    const auto o = actors::make_world_objective(c, run);
    const auto* box = dynamic_cast<const BoxTestObjective*>(o.get());
    REQUIRE(box);
    CHECK(o->agents() == 5);
    CHECK(o->dimension() == 3);
    CHECK(o->domain().candidates == nullptr);
    const auto base = make_test_function("hartmann3");
    for (int n = 0; n < 5; ++n)
      CHECK(box->function(n).shift() == make_agent_objective(base, 17, n, 0.2)->shift());
    // Noise sd sqrt(0.04) = 0.2: y - f is 0.2 times the stream's first normal draw.
    RandomStream a(3, "n"), b(3, "n");
    const Answer ans = o->evaluate(at(2, Eigen::Vector3d(0.1, 0.5, 0.9)), a);
    CHECK(ans.y - *ans.f == Approx(0.2 * b.normal()).margin(1e-12));
  }
  SECTION("objective.seed keys the shifts") {
    const auto o = actors::make_world_objective(load("kind = \"branin\"\nseed = 5"), run);
    const auto* box = dynamic_cast<const BoxTestObjective*>(o.get());
    REQUIRE(box);
    CHECK(box->function(3).shift() ==
          make_agent_objective(make_test_function("branin"), 5, 3, 0.1)->shift());
  }
  SECTION("ackley takes its dimension; 2 when absent") {
    CHECK(actors::make_world_objective(load("kind = \"ackley\"\ndimension = 7"), run)->dimension() == 7);
    CHECK(actors::make_world_objective(load("kind = \"ackley\""), run)->dimension() == 2);
  }
  SECTION("with peers, agent 0 (the target) has the unshifted base") {
    const ScenarioConfig c = load("kind = \"branin\"", "peer_observations = 3\n");
    const auto target = actors::make_world_objective(c, run);
    const auto* box = dynamic_cast<const BoxTestObjective*>(target.get());
    REQUIRE(box);
    CHECK(box->function(0).shift() == Eigen::Vector2d::Zero());
    CHECK(box->function(1).shift() != Eigen::Vector2d::Zero());
    const ScenarioConfig no_peers = load("kind = \"branin\"");
    const auto o = actors::make_world_objective(no_peers, run);
    CHECK(dynamic_cast<const BoxTestObjective&>(*o).function(0).shift() != Eigen::Vector2d::Zero());
  }
}

TEST_CASE("world objective: external kinds are an ExternalObjective logging to run/workers",
          "[world-objective]") {
  const auto run = fedsim::test::fresh_dir("world-objective-external");
  const ScenarioConfig c =
      load("kind = \"command\"\ndimension = 2\ncommand = [\"/bin/cat\"]\nlower = [-1, 0]\n"
           "upper = [1, 10]\nworkers = 2");
  const auto o = actors::make_world_objective(c, run);
  const auto* ext = dynamic_cast<const external::ExternalObjective*>(o.get());
  REQUIRE(ext);
  CHECK(o->async() == ext);
  CHECK(o->agents() == INT_MAX);
  CHECK(o->dimension() == 2);
  REQUIRE(o->domain().bounds);
  CHECK(o->domain().bounds->lower == Eigen::Vector2d(-1, 0));
  CHECK(o->domain().bounds->upper == Eigen::Vector2d(1, 10));
  CHECK(fs::is_directory(run / "workers"));

  const ScenarioConfig t = load("kind = \"tcp\"\ndimension = 1\naddress = \"127.0.0.1:9\"");
  CHECK(dynamic_cast<const external::ExternalObjective*>(
      actors::make_world_objective(t, run).get()));
}

TEST_CASE("world objective: the scenario's on_failure names are the evaluator's",
          "[world-objective]") {
  for (const auto& [value, name] : names(SyntheticConfig::OnFailure{})) {
    SyntheticConfig c;
    c.kind = SyntheticConfig::Kind::command;
    c.on_failure = value;
    CHECK(external::on_failure_name(external::settings_of(c, "x").on_failure) == name);
    CHECK(external::on_failure_from_name(name).has_value());
  }
  CHECK(names(SyntheticConfig::OnFailure{}).size() == 3);
}

TEST_CASE("world objective: an X-armed scenario or a bad config is refused", "[world-objective]") {
  const auto run = fedsim::test::fresh_dir("world-objective-bad");
  ScenarioConfig c = load("kind = \"branin\"");
  c.world.objective.dimension = 3;
  CHECK_THROWS_AS(actors::make_world_objective(c, run), std::invalid_argument);
  c = load("kind = \"command\"\ndimension = 1\ncommand = [\"/bin/cat\"]");
  c.world.objective.command.clear();
  CHECK_THROWS_AS(actors::make_world_objective(c, run), std::invalid_argument);
  c = load("kind = \"tcp\"\ndimension = 1\naddress = \"127.0.0.1:9\"");
  c.world.objective.address = "nowhere";
  CHECK_THROWS_WITH(actors::make_world_objective(c, run), Catch::Contains("address"));
  c.xarmed.enabled = true;
  CHECK_THROWS_WITH(actors::make_world_objective(c, run), Catch::Contains("X-armed"));
}
