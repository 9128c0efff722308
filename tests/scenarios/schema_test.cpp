// The scenario schema: the README table matches the field lists; keys without effect are
// warned about; configurations the key rules accept but the engine cannot run are refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "actors/algorithms/algorithm_kind.hpp"
#include "engine/fbo/de_server.hpp"
#include "engine/fbo/schedules.hpp"
#include "engine/xarmed/fed_pne_server.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/schema.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::scenario;

namespace {

const fs::path scenario_dir = FEDSIM_SCENARIO_DIR;

/// Loads `text` as a scenario; returns the warnings.
std::vector<std::string> warnings(const std::string& text,
                                  const std::vector<std::string>& overrides = {}) {
  return load_scenario_text(text, "warn.toml", overrides).warnings;
}

/// Loads `text` and checks that it fails with one line holding every part.
void expect_error(const std::string& text, std::initializer_list<std::string> parts,
                  const std::vector<std::string>& overrides = {}) {
  INFO("scenario:\n" << text);
  try {
    load_scenario_text(text, "limits.toml", overrides);
    FAIL("no error");
  } catch (const ScenarioError& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    CHECK(what.find('\n') == std::string::npos);
    for (const std::string& part : parts) CHECK(what.find(part) != std::string::npos);
  }
}

/// Fed-PNE with M = 10 clients, as in the shipped xarmed/garland.toml.
const std::string fed = "[world]\nagents = 10\n[algorithm]\nname = \"fed-pne\"\n";

}  // namespace

const std::string readme_begin =
    "<!-- schema:begin (generated from scenarios/schema_fields.cpp) -->\n";
const std::string readme_end = "<!-- schema:end -->";

TEST_CASE("the README's schema table is the field lists' table", "[scenario][schema]") {
  const std::string readme = test::slurp(scenario_dir / "README.md");
  INFO("regenerate it with: build/tests/fedsim_tests \"[update-readme]\"");
  const auto b = readme.find(readme_begin);
  const auto e = readme.find(readme_end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  const std::string table = readme.substr(b + readme_begin.size(), e - b - readme_begin.size());
  CHECK(table == schema_markdown());
}

const std::string algorithms_begin = "<!-- algorithms:begin (generated from actors/algorithms/) -->\n";
const std::string algorithms_end = "<!-- algorithms:end -->";

TEST_CASE("the README's algorithm table is the registry's", "[scenario][schema][algorithms]") {
  const std::string readme = test::slurp(scenario_dir / "README.md");
  INFO("regenerate it with: build/tests/fedsim_tests \"[update-readme]\"");
  const auto b = readme.find(algorithms_begin);
  const auto e = readme.find(algorithms_end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(readme.substr(b + algorithms_begin.size(), e - b - algorithms_begin.size()) ==
        actors::algorithms::algorithms_markdown());
}

// Hidden (run by name): rewrites the tables between the markers of scenarios/README.md.
TEST_CASE("update the README's schema table", "[.][update-readme]") {
  const fs::path path = scenario_dir / "README.md";
  std::string readme = test::slurp(path);
  for (const auto& [begin, end, table] :
       {std::tuple{readme_begin, readme_end, schema_markdown()},
        std::tuple{algorithms_begin, algorithms_end, actors::algorithms::algorithms_markdown()}}) {
    const auto b = readme.find(begin);
    const auto e = readme.find(end);
    REQUIRE(b != std::string::npos);
    REQUIRE(e != std::string::npos);
    readme.replace(b + begin.size(), e - b - begin.size(), table);
  }
  std::ofstream(path) << readme;
}

TEST_CASE("the schema table names every key once per family", "[scenario][schema]") {
  std::set<std::string> seen;
  std::istringstream in(schema_markdown());
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const auto key_end = line.find("` |");
    const auto family_end = line.find(" |", key_end + 3);
    const std::string id = line.substr(0, family_end);
    INFO(line);
    CHECK(seen.insert(id).second);
    ++rows;
  }
  CHECK(rows > 60);
  // Spot checks: defaults come from the structs' own initialisers.
  const std::string md = schema_markdown();
  CHECK(md.find("| `algorithm.q` | FBO | float | `0.25` | [1e-9, 1] |") != std::string::npos);
  CHECK(md.find("| `algorithm.k` | X-armed | int | `2` | >= 2 |") != std::string::npos);
  CHECK(md.find("| `policy.kind` |  | string | `\"sync\"` | sync, deadline, quorum, async, fedbuff |") !=
        std::string::npos);
  CHECK(md.find("| `world.network.groups[].speed_factor` |") != std::string::npos);
}

TEST_CASE("keys without effect are warned about, by name and reason", "[scenario][warnings]") {
  // Present in the file, no effect: one line each, naming the key and why.
  const auto w = warnings("[policy]\nkind = \"sync\"\ndeadline = 2.0\nquorum = 0.5\n");
  REQUIRE(w.size() == 2);
  CHECK(w[0] == "key 'policy.deadline' has no effect: used by policy.kind = deadline, quorum, "
                "not sync");
  CHECK(w[1].find("key 'policy.quorum' has no effect") == 0);
  // The same keys under the policies that use them: nothing.
  CHECK(warnings("[policy]\nkind = \"deadline\"\ndeadline = 2.0\n").empty());
  CHECK(warnings("[policy]\nkind = \"quorum\"\ndeadline = 2.0\nquorum = 0.5\n").empty());
  // Algorithms.
  const auto q = warnings("[algorithm]\nname = \"fts-de\"\nq = 0.5\nz = 2.0\nsubregions = 3\n");
  REQUIRE(q.size() == 2);
  CHECK(q[0] == "key 'algorithm.q' has no effect: used by the private algorithms (dp-fts, dp-fts-de), not by fts-de");
  CHECK(q[1].find("key 'algorithm.z' has no effect") == 0);
  const auto ts = warnings("[algorithm]\nname = \"ts\"\nweight_a = 3.0\nfts_one_shot = true\n");
  REQUIRE(ts.size() == 2);
  CHECK(ts[0].find("'algorithm.fts_one_shot'") != std::string::npos);
  CHECK(ts[1].find("'algorithm.weight_a'") != std::string::npos);
  CHECK(warnings("[algorithm]\nname = \"dp-fts-de\"\nq = 0.5\nz = 2.0\nweight_a = 3.0\n").empty());
  // Staleness exponent: async and polynomial.
  CHECK(warnings("[policy]\nkind = \"async\"\nasync_every = 2\nstaleness_exponent = 1.0\n")
            .size() == 1);
  CHECK(warnings("[policy]\nkind = \"async\"\nasync_every = 2\nstaleness = \"polynomial\"\n"
                 "staleness_exponent = 1.0\n")
            .empty());
  // Defaults (absent keys) never warn.
  CHECK(warnings("[algorithm]\nname = \"ts\"\n").empty());
  // An override is warned about like a key of the file.
  const auto set = warnings("", {"policy.carry_late=true"});
  REQUIRE(set.size() == 1);
  CHECK(set[0] == "key 'policy.carry_late' has no effect: used by policy.kind = deadline, not sync");
  // A resolved config holds every key: only its overrides are warned about.
  const ScenarioConfig tiny = load_scenario((scenario_dir / "tiny.toml").string());
  const std::string resolved = to_toml(tiny);
  CHECK(load_scenario_text(resolved, "resolved.toml").warnings.empty());
  CHECK(load_scenario_text(resolved, "resolved.toml", {"policy.deadline=3"}).warnings.size() == 1);
  // The same text without the resolved header warns of every inert key it holds.
  CHECK(load_scenario_text("\n" + resolved, "resolved.toml").warnings.size() > 5);
}

TEST_CASE("engine configurations are derived from the scenario", "[scenario]") {
  ScenarioConfig c;
  c.world.agents = 7;
  c.world.noise_variance = 0.2;
  c.world.peer_observations = 0;
  c.world.objective.grid_size = 77;
  c.seed = 99;
  c.privacy.accountant = "tight";
  c.privacy.delta = 1e-4;
  const fbo::ReferenceConfig a = reference_config(c);
  CHECK(a.agents == 7);
  CHECK(a.noise_variance == 0.2);
  CHECK(a.objective.grid_size == 77);
  CHECK(a.seed == 99);
  CHECK(a.accountant == "tight");
  CHECK(a.delta == 1e-4);
  c.xarmed.enabled = true;
  const xarmed::FedPneConfig f = fed_pne_config(c);
  CHECK(f.problem.clients == 7);
  CHECK(f.problem.seed == 99);
  CHECK_FALSE(f.record_curve);
}

// ---------------------------------------------------------------------------------------------
// Issue 10, bugs 4, 5 and 7: values the key rules accept but the engine cannot run.

TEST_CASE("Fed-PNE schedules that overflow are refused naming the key", "[scenario][limits]") {
  // tau_0 = ceil(c^2 log(c1 T / delta) / nu1^2) = 1.2e21: pulls per node above 2^53.
  expect_error(fed + "c = 1e10\n", {"key 'algorithm.c'", "exceed 2^53", "c = 1e+10"});
  // c1 T / delta overflows to inf.
  expect_error(fed + "c1 = 1e308\n", {"key 'algorithm.c1'", "overflows", "must be finite"});
  expect_error(fed + "delta = 5e-324\n", {"key 'algorithm.delta'", "overflows"});
  // The shipped defaults, and values close to them, pass; the schedule then never throws
  // at the depths the budget reaches.
  const ScenarioConfig ok = load_scenario_text(fed + "c = 1e3\n", "ok.toml").config;
  const xarmed::FedPneConfig f = fed_pne_config(ok);
  const xarmed::FedPneSchedule s(f.params, f.problem.clients, f.budget);
  const PartitionEstimate start = initial_partition(f);
  CHECK_NOTHROW(s.pulls_per_node(start.depth));
}

TEST_CASE("Fed-PNE initial partitions are counted before they are built", "[scenario][limits]") {
  // The estimate is what the server builds, for settings that start shallow and deep.
  for (const std::vector<std::string>& sets :
       std::vector<std::vector<std::string>>{{},
                                             {"algorithm.nu1=30"},
                                             {"algorithm.k=5", "algorithm.nu1=10"},
                                             {"algorithm.rho=0.9", "algorithm.budget=500"},
                                             {"world.agents=40"}}) {
    const ScenarioConfig c = load_scenario_text(fed, "estimate.toml", sets).config;
    const xarmed::FedPneConfig f = fed_pne_config(c);
    const xarmed::PartitionTree tree(Box::unit(1), f.k, f.split, f.problem.seed);
    const xarmed::FedPneServer server(tree, f.params, f.problem.clients, f.budget);
    const PartitionEstimate e = initial_partition(f);
    INFO("depth " << e.depth << ", nodes " << e.nodes);
    CHECK(e.depth == server.broadcast().depth);
    CHECK(e.nodes == static_cast<double>(server.broadcast().size()));
  }
  // Issue 10's reproductions: 685 MB, 3.7 GB and 2.7 GB before a single pull.
  expect_error(fed + "nu1 = 1e6\nbudget = 300\n",
               {"key 'algorithm.nu1'", "initial partition would hold", "limit of 1000000"});
  expect_error(fed + "rho = 0.95\nbudget = 2000\n",
               {"key 'algorithm.rho'", "initial partition would hold", "limit of 1000000"});
  expect_error(fed + "k = 2147483647\n", {"key 'algorithm.k'", "limit of 1000000"});
  expect_error(fed + "k = 1000000\n", {"key 'algorithm.k'", "limit of 1000000"});
  // A large but bounded start passes: 2^11 nodes at depth 11.
  const ScenarioConfig under =
      load_scenario_text(fed + "nu1 = 400\nbudget = 300\n", "under.toml").config;
  CHECK(initial_partition(fed_pne_config(under)).nodes <= max_initial_nodes);
}

TEST_CASE("dead_after_missed is bounded by the run's rounds", "[scenario][limits]") {
  expect_error("[policy]\ndead_after_missed = 2147483647\n",
               {"key 'policy.dead_after_missed'", "algorithm.iterations + 1 = 41",
                "got 2147483647"});
  CHECK_NOTHROW(load_scenario_text("[policy]\ndead_after_missed = 41\n", "ok.toml"));
  expect_error("[policy]\ndead_after_missed = 42\n", {"at most the run's rounds", "got 42"});
  expect_error(fed + "budget = 50\n[policy]\ndead_after_missed = 51\n",
               {"key 'policy.dead_after_missed'", "algorithm.budget = 50"});
}

TEST_CASE("DE weight constants that overflow the softmax are refused", "[scenario][limits]") {
  // Issue 10: weight_a = 1000 made every DE weight NaN.
  expect_error("[algorithm]\nweight_a = 1000\n",
               {"key 'algorithm.weight_a'", "ln(DBL_MAX / N) = 704.4", "world.agents = 200",
                "got 1000"});
  // The bound is tight: just under it the weights of N agents in one sub-region are finite
  // and sum to 1, just over it the normaliser overflows and they do not.
  const int n = 200;
  const double limit = max_weight_a(n);
  const std::vector<int> one_region(n, 0);
  const auto sound = [&](double a) {
    const double t = fbo::temperature(fbo::TemperatureSchedule::fixed, 1, a);
    const Eigen::MatrixXd w = fbo::de_weights(one_region, 1, t, a);
    return w.allFinite() && std::abs(w.sum() - 1.0) < 1e-9;
  };
  CHECK(sound(limit - 0.01));
  CHECK_FALSE(sound(limit + 0.01));
  CHECK_FALSE(sound(1000));
  CHECK_NOTHROW(load_scenario_text("[algorithm]\nweight_a = " + std::to_string(limit - 0.01) + "\n",
                                   "ok.toml"));
  // With the uniform temperature the weights are all equal, whatever a.
  CHECK_NOTHROW(load_scenario_text("[algorithm]\nweight_a = 1000\ntemperature = \"uniform\"\n",
                                   "ok.toml"));
}

TEST_CASE("the default privacy.delta is min(1/N^1.1, 0.01): never vacuous for small N",
          "[scenario][limits]") {
  // 1/N^1.1 is 1 with N = 1 and 0.47 with N = 2 (issue 10, bug 7; issue 32): the default stops
  // at 0.01, and the papers' N = 200 keeps 1/200^1.1.
  for (const int n : {1, 2, 8, 65})
    CHECK(reference_config(load_scenario_text("[world]\nagents = " + std::to_string(n) + "\n",
                                              "n.toml").config)
              .effective_delta() == 0.01);
  CHECK(reference_config(load_scenario_text("[world]\nagents = 66\n", "n.toml").config)
            .effective_delta() == Approx(std::pow(66.0, -1.1)));
  CHECK(reference_config(load_scenario_text("[world]\nagents = 200\n", "n.toml").config)
            .effective_delta() == Approx(std::pow(200.0, -1.1)));
  CHECK_NOTHROW(load_scenario_text("[world]\nagents = 1\n[privacy]\ndelta = 0.01\n", "ok.toml"));
  CHECK_NOTHROW(load_scenario_text("[world]\nagents = 1\n[algorithm]\nname = \"ts\"\n", "ok.toml"));
}

TEST_CASE("TOML strings escape every control character and DEL, and read back the same",
          "[scenario][schema]") {
  std::string all;
  for (int c = 1; c < 0x80; ++c) all += static_cast<char>(c);
  const std::string text = fedsim::scenario::schema::toml_string(all);
  for (const char c : text) CHECK((static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));
  const toml::table t = toml::parse("v = " + text);
  CHECK(t["v"].value<std::string>() == all);
}
