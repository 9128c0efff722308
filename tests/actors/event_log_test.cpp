// output.events: "all" logs every send, delivery and fault; "faults" the faults alone (the
// same fault lines, the run's records unchanged); "none" no file. And the key's values.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;
using fedsim::test::fresh_dir;
using fedsim::test::slurp;

namespace {

std::string shipped() { return (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string(); }

/// The lines of events.jsonl: the traffic (send, deliver) or the rest (the faults).
std::multiset<std::string> lines_of(const fs::path& file, bool traffic) {
  std::multiset<std::string> out;
  std::istringstream in(slurp(file));
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    const std::string kind = j["event"];
    if ((kind == "send" || kind == "deliver") != traffic) continue;
    out.insert(j.dump());
  }
  return out;
}

scenario::ScenarioConfig faulty(const std::string& events) {
  return scenario::load_scenario(
      shipped(),
      {"world.network.drop=0.2", "world.network.duplicate=0.1",
       "world.network.malformed.rate=0.1", "output.events=" + events});
}

fs::path run_in(const scenario::ScenarioConfig& c, const std::string& name) {
  RunOptions opt;
  opt.out_dir = fresh_dir(name).string();
  opt.threads = 2;
  run_federation(c, opt);
  return opt.out_dir;
}

}  // namespace

TEST_CASE("output.events: faults logs the faults of all, without the traffic, none no file, "
          "the records do not change",
          "[actors][events]") {
  const fs::path all = run_in(faulty("\"all\""), "events-all");
  const fs::path faults = run_in(faulty("\"faults\""), "events-faults");
  const fs::path none = run_in(faulty("\"none\""), "events-none");
  const auto all_faults = lines_of(all / "events.jsonl", false);
  REQUIRE(all_faults.size() > 20);  // drops, duplicates, corruptions, rejections
  std::set<std::string> kinds;
  for (const auto& l : all_faults) kinds.insert(nlohmann::json::parse(l)["event"]);
  CHECK(kinds.count("drop") == 1);
  CHECK(kinds.count("duplicate") == 1);
  CHECK(kinds.count("corrupt") == 1);
  CHECK(kinds.count("reject") == 1);
  CHECK(lines_of(all / "events.jsonl", true).size() > 100);
  CHECK(lines_of(faults / "events.jsonl", false) == all_faults);
  CHECK(lines_of(faults / "events.jsonl", true).empty());
  CHECK_FALSE(fs::exists(none / "events.jsonl"));
  for (const char* f : {"observations.csv", "rounds.csv"}) {
    INFO(f);
    CHECK(slurp(faults / f) == slurp(all / f));
    CHECK(slurp(none / f) == slurp(all / f));
  }
}

TEST_CASE("output.events: all, faults, none, and true / false as all / none", "[scenario][events]") {
  using E = scenario::OutputConfig::EventLog;
  const auto events = [](const std::string& v) {
    return scenario::load_scenario(shipped(), {"output.events=" + v})
        .output.events;
  };
  CHECK(events("\"all\"") == E::all);
  CHECK(events("\"faults\"") == E::faults);
  CHECK(events("\"none\"") == E::none);
  CHECK(events("true") == E::all);
  CHECK(events("false") == E::none);
  CHECK_THROWS_WITH(events("\"some\""),
                    Catch::Contains("key 'output.events': unknown value 'some' (allowed: all, "
                                    "faults, none)"));
  CHECK_THROWS_WITH(events("3"), Catch::Contains("key 'output.events'"));
  auto c = scenario::load_scenario(shipped(), {"output.events=false"});
  const std::string text = scenario::to_toml(c);
  CHECK(text.find("events = \"none\"\n") != std::string::npos);
  const std::string again = scenario::to_toml(scenario::load_scenario_text(text, "r.toml").config);
  CHECK(again.substr(again.find("name =")) == text.substr(text.find("name =")));
}
