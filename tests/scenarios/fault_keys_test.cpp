#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim::scenario;

namespace {

/// Loads a scenario written from `text` (plus overrides).
ScenarioConfig load_text(const std::string& name, const std::string& text,
                         const std::vector<std::string>& overrides = {}) {
  const fs::path dir = fedsim::test::fresh_dir("fault-keys");
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".toml");
  std::ofstream(file) << text;
  return load_scenario(file.string(), overrides);
}

/// The one-line error of loading `text`, or "" when it loads.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    load_text("bad", text, overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

/// Writes the resolved config and loads it back.
ScenarioConfig round_trip(const ScenarioConfig& c) { return load_text("resolved", to_toml(c)); }

const std::string head = "[world]\nagents = 4\n[algorithm]\nname = \"fts\"\n";

}  // namespace

TEST_CASE("world.network.loss: the explicit Bernoulli form, its checks and the resolved config",
          "[scenario][faults]") {
  const ScenarioConfig c =
      load_text("bern", head + "[world.network]\nloss = { kind = \"bernoulli\", p = 0.2 }\n");
  CHECK(c.world.network.link.loss.kind == "bernoulli");
  CHECK(c.world.network.link.loss.params.at("p") == 0.2);
  CHECK(c.world.network.link.drop == 0.0);
  const ScenarioConfig back = round_trip(c);
  CHECK(back.world.network.link.loss.kind == "bernoulli");
  CHECK(back.world.network.link.loss.params == c.world.network.link.loss.params);
  // drop alone writes no loss line: resolved configs of existing scenarios do not change.
  const ScenarioConfig d = load_text("drop", head + "[world.network]\ndrop = 0.1\n");
  CHECK(d.world.network.link.loss.kind.empty());
  CHECK(to_toml(d).find("loss =") == std::string::npos);

  CHECK_THROWS_WITH(
      load_text("both",
                head + "[world.network]\ndrop = 0.1\nloss = { kind = \"bernoulli\", p = 0.2 }\n"),
      Catch::Contains("key 'world.network.loss'") && Catch::Contains("not both"));
  const std::string unknown = error_of(head + "[world.network]\nloss = { kind = \"bursty\" }\n");
  CHECK(unknown.find("key 'world.network.loss.kind'") != std::string::npos);
  CHECK(unknown.find("unknown value 'bursty' (allowed: bernoulli") != std::string::npos);
  CHECK(error_of(head + "[world.network]\nloss = { p = 0.1 }\n")
            .find("key 'world.network.loss.kind': missing (allowed: bernoulli") !=
        std::string::npos);
  CHECK(error_of(head + "[world.network]\nloss = 0.1\n")
            .find("key 'world.network.loss': expected an inline table") != std::string::npos);
  CHECK(error_of(head + "[world.network]\nloss = { kind = \"bernoulli\", q = 0.1 }\n")
            .find("key 'world.network.loss.q'") != std::string::npos);
  CHECK(error_of(head + "[world.network]\nloss = { kind = \"bernoulli\", p = \"x\" }\n")
            .find("key 'world.network.loss.p': expected a number") != std::string::npos);
  CHECK(error_of(head + "[world.network]\nloss = { kind = \"bernoulli\", p = 1.5 }\n")
            .find("key 'world.network.loss.p': must be in [0, 1), got 1.5") != std::string::npos);
  // As an override too.
  const ScenarioConfig o =
      load_text("over", head, {"world.network.loss={kind=\"bernoulli\",p=0.05}"});
  CHECK(o.world.network.link.loss.params.at("p") == 0.05);
}

TEST_CASE("world.network.groups: a group's own drop or loss replaces the default's model",
          "[scenario][faults]") {
  const ScenarioConfig c = load_text(
      "groups",
      head +
          "[world.network]\nloss = { kind = \"bernoulli\", p = 0.2 }\n"
          "[[world.network.groups]]\nagents = [0]\ndrop = 0.1\n"
          "[[world.network.groups]]\nagents = [1]\nloss = { kind = \"bernoulli\", p = 0.3 }\n"
          "[[world.network.groups]]\nagents = [2]\nspeed_factor = 2\n");
  const auto& g = c.world.network.groups;
  REQUIRE(g.size() == 3);
  CHECK(g[0].link.loss.kind.empty());
  CHECK(g[0].link.drop == 0.1);
  CHECK(g[1].link.loss.params.at("p") == 0.3);
  CHECK(g[1].link.drop == 0.0);
  CHECK(g[2].link.loss.params.at("p") == 0.2);  // inherited
  const ScenarioConfig back = round_trip(c);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(back.world.network.groups[i].link.loss.kind == g[i].link.loss.kind);
    CHECK(back.world.network.groups[i].link.loss.params == g[i].link.loss.params);
    CHECK(back.world.network.groups[i].link.drop == g[i].link.drop);
  }
  CHECK(error_of(head + "[[world.network.groups]]\nagents = [0]\ndrop = 0.1\n"
                        "loss = { kind = \"bernoulli\", p = 0.3 }\n")
            .find("key 'world.network.groups[0].loss'") != std::string::npos);
}

TEST_CASE("a malformed availability trace fails the load, naming the key, file, line and column",
          "[scenario][availability]") {
  const fs::path dir = fedsim::test::fresh_dir("fault-keys-trace");
  fs::create_directories(dir);
  std::ofstream(dir / "up.csv") << "agent,start,end\n0,0,5\n3,1e3,2e3\n1e3,0,1\n";
  const std::string e = error_of(head + "[world.network]\navailability_file = \"" +
                                 (dir / "up.csv").string() + "\"\n");
  CHECK(e.find("key 'world.network.availability_file': " + (dir / "up.csv").string() +
               ":4:1: agent id must be a whole decimal integer, got '1e3'") != std::string::npos);
  std::ofstream(dir / "ok.csv") << "agent,start,end\n0,0,5\n3,1e3,inf\n";
  CHECK(error_of(head + "[world.network]\navailability_file = \"" + (dir / "ok.csv").string() +
                 "\"\n") == "");
}
