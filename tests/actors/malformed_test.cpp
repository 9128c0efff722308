#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/faults/corruptions.hpp"
#include "actors/federation.hpp"
#include "actors/integrity.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

report sample_report() {
  report r{1200, 1, {0.5, -0.25, 1.0}};
  seal(r);
  return r;
}

phase_report sample_phase_report() {
  phase_report r{2, 1200, {0.1, 0.7}, {4, 4}};
  seal(r);
  return r;
}

/// events.jsonl lines of `kind` (and, if given, with this reason).
int count_events(const fs::path& file, const std::string& kind, const std::string& reason = "") {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"event\":\"" + kind + "\"") != std::string::npos &&
        (reason.empty() || line.find("\"reason\":\"" + reason + "\"") != std::string::npos))
      ++n;
  return n;
}

/// (from, round) of the events.jsonl lines of `kind`.
std::set<std::pair<int, int>> event_keys(const fs::path& file, const std::string& kind) {
  std::ifstream in(file);
  std::set<std::pair<int, int>> out;
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"event\":\"" + kind + "\"") == std::string::npos) continue;
    const int from = std::stoi(line.substr(line.find("\"from\":") + 7));
    const int round = std::stoi(line.substr(line.find("\"round\":") + 8));
    out.insert({from, round});
  }
  return out;
}

RunResult run(const scenario::ScenarioConfig& c, const fs::path& dir, int threads = 2) {
  RunOptions opt;
  opt.out_dir = dir.string();
  opt.threads = threads;
  return run_federation(c, opt);
}

std::string shipped(const std::string& name) {
  return (fs::path(FEDSIM_SCENARIO_DIR) / name).string();
}

}  // namespace

TEST_CASE("the corruption table covers every report type and is the default kind list",
          "[actors][faults]") {
  const auto& table = faults::corruptions();
  REQUIRE(table.size() == 5);
  for (const faults::Corruption& c : table) {
    INFO(c.name);
    CHECK(faults::find_corruption(c.name) == &c);
    CHECK(std::string(c.doc).size() > 10);
    CHECK(c.on_report != nullptr);        // report (FBO family)
    CHECK(c.on_phase_report != nullptr);  // phase_report (Fed-PNE)
  }
  CHECK(scenario::MalformedInjection{}.kinds == faults::all_corruption_names());
  CHECK(faults::corruption_names() == "nan, inf, wrong_dimension, huge_norm, stale_round");
  CHECK(faults::find_corruption("bitflip") == nullptr);
  CHECK(faults::is_report_payload(caf::make_message(sample_report())));
  CHECK(faults::is_report_payload(caf::make_message(sample_phase_report())));
  CHECK(!faults::is_report_payload(caf::make_message(kickoff{})));
}

TEST_CASE("a sealed report is intact, every corruption of either report type breaks it",
          "[actors][faults]") {
  CHECK(intact(sample_report()));
  CHECK(intact(sample_phase_report()));
  CHECK(!intact(report{1200, 1, {0.5, -0.25, 1.0}}));  // never sealed
  for (const faults::Corruption& c : faults::corruptions()) {
    INFO(c.name);
    RandomStream rng(3, "test.corrupt");
    caf::message m = caf::make_message(sample_report());
    faults::apply(c, m, rng);
    const report r = m.get_as<report>(0);
    CHECK(r.digest == sample_report().digest);  // the corruption leaves the digest alone
    CHECK(!intact(r));
    caf::message p = caf::make_message(sample_phase_report());
    faults::apply(c, p, rng);
    CHECK(!intact(p.get_as<phase_report>(0)));
  }
  // What each does, on the fields a server would look at.
  RandomStream rng(3, "test.corrupt");
  report r = sample_report();
  faults::find_corruption("stale_round")->on_report(r, rng);
  CHECK(r.round == 200);  // a valid earlier round: only the digest tells
  phase_report p = sample_phase_report();
  faults::find_corruption("stale_round")->on_phase_report(p, rng);
  CHECK(p.phase == 200);
  faults::find_corruption("wrong_dimension")->on_phase_report(p, rng);
  CHECK(p.means.size() == 3);
  faults::find_corruption("nan")->on_phase_report(p, rng);
  CHECK((std::isnan(p.means[0]) || std::isnan(p.means[1]) || std::isnan(p.means[2])));
  // Any change of content is seen, a single bit of one value included.
  report q = sample_report();
  q.omega[2] = std::nextafter(q.omega[2], 2.0);
  CHECK(!intact(q));
  q = sample_report();
  q.agent = 0;
  CHECK(!intact(q));
  phase_report pp = sample_phase_report();
  pp.pulls[1] = 5;
  CHECK(!intact(pp));
}

TEST_CASE("malformed.kinds: an unknown kind is refused with the table's names",
          "[actors][faults]") {
  try {
    scenario::load_scenario(shipped("tiny.toml"), {"world.network.malformed.rate=0.1",
                                                   "world.network.malformed.kinds=[\"bitflip\"]"});
    FAIL("accepted an unknown malformed kind");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("key 'world.network.malformed.kinds'") != std::string::npos);
    CHECK(what.find("unknown kind 'bitflip' (allowed: " + faults::corruption_names() + ")") !=
          std::string::npos);
  }
}

// Issue 10, bug 1: stale_round subtracts 1000 from the round; from round 1000 on that is a valid
// earlier round. Every corrupted report must be rejected, never late, carried or aggregated.
TEST_CASE("stale_round corruption at rounds >= 1000 is rejected under every policy",
          "[actors][faults][slow][sanitizer-heavy]") {
  const std::vector<std::string> common = {"world.agents=2", "algorithm.iterations=1100",
                                           "world.network.malformed.rate=0.2",
                                           "world.network.malformed.kinds=[\"stale_round\"]"};
  const std::map<std::string, std::vector<std::string>> policies = {
      {"sync", {"policy.kind=\"sync\""}},
      {"deadline", {"policy.kind=\"deadline\"", "policy.carry_late=true"}},
      {"async", {"policy.kind=\"async\"", "policy.async_every=1", "policy.max_staleness=1100"}},
  };
  for (const auto& [name, keys] : policies) {
    INFO("policy " << name);
    std::vector<std::string> overrides = common;
    overrides.insert(overrides.end(), keys.begin(), keys.end());
    const scenario::ScenarioConfig c = scenario::load_scenario(shipped("tiny.toml"), overrides);
    const fs::path dir = fedsim::test::fresh_dir("stale-round-" + name);
    const RunResult r = run(c, dir);
    const fs::path events = dir / "events.jsonl";
    REQUIRE(r.network.corrupted > 100);
    CHECK(count_events(events, "corrupt") == static_cast<int>(r.network.corrupted));
    CHECK(count_events(events, "reject") == static_cast<int>(r.network.corrupted));
    // Rounds < 1000 became negative ("unknown round"); later ones are valid rounds that only
    // the integrity check catches.
    CHECK(count_events(events, "reject", "corrupted") > 10);
    CHECK(count_events(events, "reject", "unknown round") +
              count_events(events, "reject", "corrupted") ==
          static_cast<int>(r.network.corrupted));
    // Nothing late from corruption: no late report carries a corrupted (agent, round). (A
    // rejected report is a missed round, so honest reports can be late after one.)
    const auto corrupted = event_keys(events, "corrupt");
    for (const auto& late : event_keys(events, "late")) CHECK(corrupted.count(late) == 0);
  }
}

TEST_CASE("Fed-PNE: malformed.rate = 0.5 corrupts phase reports, all rejected, the run ends",
          "[actors][faults][xarmed]") {
  scenario::ScenarioConfig c;
  c.name = "fed-pne-malformed";
  c.seed = 3;
  c.world.agents = 4;
  c.xarmed.enabled = true;
  c.xarmed.fed_pne.problem.objective = xarmed::ObjectiveKind::garland;
  c.xarmed.fed_pne.budget = 3000;
  c.xarmed.fed_pne.record_curve = false;
  c.world.network.malformed.rate = 0.5;
  scenario::validate(c);
  const fs::path dir = fedsim::test::fresh_dir("fed-pne-malformed");
  const RunResult r = run(c, dir);  // returning at all: no phase hangs on a rejected report
  const fs::path events = dir / "events.jsonl";
  REQUIRE(r.network.corrupted > 5);
  CHECK(count_events(events, "reject", "corrupted") == static_cast<int>(r.network.corrupted));
  CHECK(count_events(events, "reject") == static_cast<int>(r.network.corrupted));
  int in_phases = 0;
  for (const auto& row : fedsim::test::read_table(dir / "phases.csv"))
    in_phases += std::stoi(row.at("rejected"));
  CHECK(in_phases > 0);
  CHECK(in_phases <= static_cast<int>(r.network.corrupted));
  // Not only ends but finishes: a phase whose every report was rejected is sent again, and a
  // client sends its report of that phase again (resealed content, a new draw of the network).
  std::map<std::string, std::int64_t> last_step;
  for (const auto& row : fedsim::test::read_table(dir / "observations.csv"))
    last_step[row.at("client")] = std::stoll(row.at("step"));
  REQUIRE(last_step.size() == 4);
  for (const auto& [client, step] : last_step) CHECK(step == c.xarmed.fed_pne.budget);
}
