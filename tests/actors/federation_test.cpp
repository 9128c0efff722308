#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "tests/test_files.hpp"
#include "scenarios/loader.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

scenario::ScenarioConfig small(fbo::Algorithm a) {
  scenario::ScenarioConfig c;
  c.name = "test";
  c.seed = 5;
  c.world.agents = 12;
  c.world.objective.grid_size = 200;
  c.algorithm.algorithm = a;
  c.algorithm.iterations = 8;
  c.algorithm.n_init = 4;
  c.algorithm.features = 20;
  c.algorithm.subregions = 3;
  scenario::validate(c);
  return c;
}

std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

/// The reference loop's records in the recorder's CSV layout, without the time column.
std::vector<std::string> reference_rows(const fbo::ReferenceResult& r) {
  std::vector<std::string> rows;
  for (const auto& o : r.observations) {
    std::string row = std::to_string(o.agent) + "," + std::to_string(o.iteration);
    for (int j = 0; j < o.x.size(); ++j) row += "," + g(o.x(j));
    rows.push_back(row + "," + g(o.y) + "," + g(o.f) + "," + g(o.simple_regret) + "," +
                   g(o.best_y) + "," + fbo::to_string(o.branch) + "," + std::to_string(o.source));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// observations.csv rows with the time column (3rd) removed.
std::vector<std::string> actor_rows(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    rows.push_back(line.substr(0, b) + line.substr(c));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

TEST_CASE("a perfect network under sync reproduces the reference loop exactly", "[actors]") {
  for (auto a : {fbo::Algorithm::ts, fbo::Algorithm::fts, fbo::Algorithm::fts_de,
                 fbo::Algorithm::dp_fts_de}) {
    const auto c = small(a);
    const fs::path dir = fresh_dir("perfect-" + fbo::to_string(a));
    RunOptions opt;
    opt.out_dir = dir.string();
    opt.threads = 2;
    const RunResult run = run_federation(c, opt);
    const fbo::ReferenceResult ref = fbo::run_reference(scenario::reference_config(c));
    INFO("algorithm " << fbo::to_string(a));
    const auto actor = actor_rows(dir / "observations.csv");
    const auto expected = reference_rows(ref);
    REQUIRE(actor.size() == expected.size());
    for (size_t i = 0; i < actor.size(); ++i) REQUIRE(actor[i] == expected[i]);
    CHECK(run.final_simple_regret == Approx(ref.final_simple_regret).margin(1e-12));
    if (c.algorithm.is_private()) {
      CHECK(run.epsilon == Approx(ref.epsilon).epsilon(1e-12));
      CHECK(run.releases == c.algorithm.iterations);
    }
  }
}

TEST_CASE("FTS's target-agent setting through actors equals the reference loop", "[actors]") {
  // On a perfect network and on slow, variable links (a peer's report must not be lost to the
  // end of its run overtaking it): the target's queries do not depend on timing.
  for (auto [a, latency] : {std::pair{fbo::Algorithm::ts, false}, {fbo::Algorithm::fts, false},
                            {fbo::Algorithm::fts, true}}) {
    scenario::ScenarioConfig c;
    c.name = "target";
    c.seed = 4;
    c.world.agents = 9;
    c.world.peer_observations = 15;
    c.world.objective.grid_size = 200;
    c.algorithm.algorithm = a;
    c.algorithm.iterations = 12;
    c.algorithm.n_init = 1;
    c.algorithm.features = 20;
    c.algorithm.p_schedule = fbo::PSchedule::inv;
    c.algorithm.p1_equals_p2 = true;
    c.algorithm.fts_one_shot = true;
    if (latency) {
      c.world.network.link.uplink = {scenario::Distribution::Kind::lognormal, 0, 0, 0, 0, -3.0, 1.0};
      c.world.network.link.compute = {scenario::Distribution::Kind::exponential, 0, 0, 0, 0.01};
    }
    scenario::validate(c);
    const fs::path dir = fresh_dir("target-" + fbo::to_string(a) + (latency ? "-slow" : ""));
    RunOptions opt;
    opt.out_dir = dir.string();
    const RunResult run = run_federation(c, opt);
    const fbo::ReferenceResult ref = fbo::run_reference(scenario::reference_config(c));
    INFO("algorithm " << fbo::to_string(a) << (latency ? ", slow links" : ""));
    const auto actor = actor_rows(dir / "observations.csv");
    REQUIRE(actor.size() == 13);  // the target's 1 + 12 queries; peers' histories unrecorded
    CHECK(actor == reference_rows(ref));
    REQUIRE(run.mean_simple_regret.size() == ref.mean_simple_regret.size());
    for (size_t t = 0; t < ref.mean_simple_regret.size(); ++t)
      CHECK(run.mean_simple_regret[t] == Approx(ref.mean_simple_regret[t]).margin(1e-12));
  }
}

TEST_CASE("the same scenario and seed give byte-identical files on 1 or 4 threads", "[actors]") {
  auto c = small(fbo::Algorithm::dp_fts_de);
  c.world.network.link.compute = {scenario::Distribution::Kind::lognormal, 0, 0, 0, 0, -1.0, 0.5};
  c.world.network.link.uplink = {scenario::Distribution::Kind::exponential, 0, 0, 0, 0.2, 0, 0};
  c.world.network.link.downlink = {scenario::Distribution::Kind::uniform, 0, 0.05, 0.3, 0, 0, 0};
  c.world.network.link.drop = 0.05;
  c.world.network.link.duplicate = 0.05;
  c.policy.kind = scenario::PolicyConfig::Kind::deadline;
  c.policy.deadline = 1.0;
  scenario::validate(c);
  std::string files[2][3];
  for (int k = 0; k < 2; ++k) {
    const fs::path dir = fresh_dir("threads" + std::to_string(k));
    RunOptions opt;
    opt.out_dir = dir.string();
    opt.threads = k == 0 ? 1 : 4;
    run_federation(c, opt);
    files[k][0] = slurp(dir / "observations.csv");
    files[k][1] = slurp(dir / "rounds.csv");
    files[k][2] = slurp(dir / "events.jsonl");
  }
  CHECK(files[0][0].size() > 1000);
  CHECK(files[0][2].find("\"event\":\"drop\"") != std::string::npos);
  for (int f = 0; f < 3; ++f) CHECK(files[0][f] == files[1][f]);
}

TEST_CASE("a federation runs inside the caller's own actor system", "[actors]") {
  caf::actor_system_config cfg;
  add_fedsim_types(cfg);
  caf::actor_system system{cfg};
  const auto c = small(fbo::Algorithm::dp_fts_de);
  RunOptions opt;
  opt.out_dir = fresh_dir("embedded").string();
  const RunResult first = run_federation(system, c, opt);
  const RunResult second = run_federation(system, c, opt);  // the system is reusable
  CHECK(first.final_simple_regret == second.final_simple_regret);
  CHECK(first.epsilon == Approx(fbo::run_reference(scenario::reference_config(c)).epsilon).epsilon(1e-12));
}
