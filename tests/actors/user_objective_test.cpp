// An embedding program's own objective (engine/objectives/federated_objective.hpp) runs through
// the actors and the loop alike: the federation queries it, records what it answers, and both
// drivers agree on a perfect network; a black box that knows no f or optimum leaves regret out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

#include "actors/failure.hpp"
#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

/// Agent n maximises -(x0 - 0.3 - 0.02 n)^2 - (x1 - 0.7)^2 on a 15 x 15 grid, observed with
/// N(0, 0.01^2) noise from the agent's stream; with `knows_f` false it answers y alone.
class Bowl final : public FederatedObjective {
 public:
  Bowl(int agents, bool knows_f, double bad_value = 0.0)
      : agents_(agents), knows_f_(knows_f), bad_value_(bad_value) {
    domain_.box = Box::unit(2);
    domain_.candidates = std::make_shared<const Grid>(Grid::tensor(Box::unit(2), 15));
  }
  const SearchDomain& domain() const override { return domain_; }
  int agents() const override { return agents_; }
  double f(int agent, const Eigen::VectorXd& x) const {
    const double a = x(0) - 0.3 - 0.02 * agent, b = x(1) - 0.7;
    return -(a * a) - b * b;
  }
  Answer evaluate(const Query& q, RandomStream& noise) const override {
    Answer out;
    const double fx = f(q.agent, q.x);
    out.y = q.iteration >= 3 && bad_value_ != 0.0 ? bad_value_ : fx + 0.01 * noise.normal();
    if (knows_f_) out.f = fx;
    return out;
  }
  std::optional<double> optimum(int agent) const override {
    if (!knows_f_) return std::nullopt;
    double best = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < domain_.candidates->size(); ++i)
      best = std::max(best, f(agent, domain_.candidates->points.row(i).transpose()));
    return best;
  }

 private:
  int agents_;
  bool knows_f_;
  double bad_value_;
  SearchDomain domain_;
};

scenario::ScenarioConfig config() {
  return scenario::load_scenario_text(R"(
name = "bowl"
seed = 7
[world]
agents = 6
[algorithm]
name = "fts-de"
iterations = 10
n_init = 3
features = 20
subregions = 2
[policy]
kind = "sync"
)", "bowl.toml").config;
}

}  // namespace

TEST_CASE("a user's 2-D objective runs as actors and in the loop with the same records",
          "[actors][objective]") {
  const fs::path dir = fedsim::test::fresh_dir("user-objective");
  const auto c = config();
  const auto bowl = std::make_shared<const Bowl>(c.world.agents, true);
  RunOptions o;
  o.out_dir = (dir / "actors").string();
  o.objective = bowl;
  o.threads = 2;
  const RunResult r = run_federation(c, o);
  fbo::ReferenceResult loop = fbo::run_reference(scenario::reference_config(c), *bowl);
  // observations.csv is in (agent, iteration) order; the loop records in query order.
  std::stable_sort(loop.observations.begin(), loop.observations.end(),
                   [](const auto& a, const auto& b) {
                     return std::tie(a.agent, a.iteration) < std::tie(b.agent, b.iteration);
                   });

  const auto obs = fedsim::test::read_table(dir / "actors" / "observations.csv");
  REQUIRE(obs.size() == loop.observations.size());
  REQUIRE(obs.size() == static_cast<std::size_t>(6 * (3 + 10)));
  const Grid& grid = *bowl->domain().candidates;
  for (std::size_t k = 0; k < obs.size(); ++k) {
    const auto& a = loop.observations[k];
    INFO("row " << k);
    CHECK(std::stoi(obs[k].at("agent")) == a.agent);
    CHECK(std::stoi(obs[k].at("iteration")) == a.iteration);
    // The value recorded is the user's function at the candidate the agent chose.
    CHECK(a.f == bowl->f(a.agent, grid.points.row(a.index).transpose()));
    CHECK(std::stod(obs[k].at("f")) == Approx(a.f).margin(1e-9));
    CHECK(std::stod(obs[k].at("y")) == Approx(a.y).margin(1e-9));
    CHECK(a.simple_regret >= 0.0);
  }
  CHECK(r.final_simple_regret == Approx(loop.final_simple_regret).margin(1e-12));
  CHECK(loop.final_simple_regret < loop.mean_simple_regret.front());  // it learns
}

TEST_CASE("a black box with no f or optimum: y recorded, f and regret absent (nan)",
          "[actors][objective]") {
  const fs::path dir = fedsim::test::fresh_dir("user-objective-blind");
  const auto c = config();
  RunOptions o;
  o.out_dir = (dir / "actors").string();
  o.objective = std::make_shared<const Bowl>(c.world.agents, false);
  const RunResult r = run_federation(c, o);
  const auto obs = fedsim::test::read_table(dir / "actors" / "observations.csv");
  REQUIRE_FALSE(obs.empty());
  for (const auto& row : obs) {
    CHECK(std::isfinite(std::stod(row.at("y"))));
    CHECK(row.at("f") == "nan");
    CHECK(row.at("simple_regret") == "nan");
  }
  CHECK(std::isnan(r.final_simple_regret));
}

TEST_CASE("objectives the FBO family cannot run are refused, a non-finite y fails the agent",
          "[actors][objective]") {
  const fs::path dir = fedsim::test::fresh_dir("user-objective-bad");
  const auto c = config();
  RunOptions o;
  o.out_dir = (dir / "out").string();
  o.objective = std::make_shared<const Bowl>(c.world.agents - 1, true);
  CHECK_THROWS_WITH(run_federation(c, o), Catch::Contains("has functions for 5 agents, the run has 6"));
  o.objective = std::make_shared<const Bowl>(c.world.agents, true, std::nan(""));
  CHECK_THROWS_WITH(run_federation(c, o), Catch::Contains("agent") && Catch::Contains("not finite"));
  auto fed_pne = scenario::load_scenario_text("name = \"p\"\n[algorithm]\nname = \"fed-pne\"\n",
                                              "p.toml").config;
  o.objective = std::make_shared<const Bowl>(fed_pne.world.agents, true);
  CHECK_THROWS_WITH(run_federation(fed_pne, o), Catch::Contains("own objectives serve the FBO"));
}
