// Every enum a scenario names has a complete name table: values 0..n-1 each with one name
// that parses back, and a value outside the enum is a logic error (never a "?" in an output).
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "actors/run_config.hpp"
#include "engine/dp/rdp_conventions.hpp"
#include "engine/fbo/algorithms.hpp"
#include "engine/fbo/schedules.hpp"
#include "engine/xarmed/hct.hpp"
#include "engine/xarmed/partition_tree.hpp"
#include "engine/xarmed/problem.hpp"

using namespace fedsim;
using scenario::name_of;
using scenario::names;

namespace {

template <class E>
void check_table(const char* what) {
  INFO(what);
  const auto& table = names(E{});
  REQUIRE_FALSE(table.empty());
  std::set<std::string> seen;
  for (std::size_t v = 0; v < table.size(); ++v) {
    // The table holds the values 0..n-1 (in any order), each named once.
    bool found = false;
    for (const auto& entry : table) found = found || entry.first == static_cast<E>(v);
    CHECK(found);
    const std::string name = name_of(static_cast<E>(v));
    CHECK_FALSE(name.empty());
    CHECK(seen.insert(name).second);
  }
  CHECK_THROWS_AS(name_of(static_cast<E>(table.size())), std::logic_error);
  CHECK_THROWS_AS(name_of(static_cast<E>(-1)), std::logic_error);
}

}  // namespace

TEST_CASE("every scenario enum's name table is complete and a value outside it is an error",
          "[scenario][names]") {
  check_table<scenario::Distribution::Kind>("Distribution::Kind");
  check_table<scenario::PolicyConfig::Kind>("PolicyConfig::Kind");
  check_table<scenario::PolicyConfig::Staleness>("PolicyConfig::Staleness");
  check_table<scenario::RunClockConfig::Time>("RunClockConfig::Time");
  check_table<scenario::OutputConfig::EventLog>("OutputConfig::EventLog");
  check_table<SyntheticConfig::Kind>("SyntheticConfig::Kind");
  check_table<SyntheticConfig::OnFailure>("SyntheticConfig::OnFailure");
  check_table<fbo::Algorithm>("fbo::Algorithm");
  check_table<fbo::PSchedule>("fbo::PSchedule");
  check_table<fbo::TemperatureSchedule>("fbo::TemperatureSchedule");
  check_table<TuningSettings::Task>("TuningSettings::Task");
  check_table<fbo::LocalSampler>("fbo::LocalSampler");
  check_table<fbo::PosteriorMemory>("fbo::PosteriorMemory");
  check_table<xarmed::ObjectiveKind>("xarmed::ObjectiveKind");
  check_table<xarmed::SplitRule>("xarmed::SplitRule");
  check_table<xarmed::PointRule>("xarmed::PointRule");
  check_table<xarmed::HctVariant>("xarmed::HctVariant");
}

TEST_CASE("the engine's to_string of a value outside its enum is a logic error",
          "[names]") {
  CHECK_THROWS_AS(fbo::to_string(static_cast<fbo::Algorithm>(99)), std::logic_error);
  CHECK_THROWS_AS(fbo::to_string(static_cast<fbo::Branch>(99)), std::logic_error);
  CHECK_THROWS_AS(fbo::to_string(static_cast<fbo::PSchedule>(99)), std::logic_error);
  CHECK_THROWS_AS(fbo::to_string(static_cast<fbo::TemperatureSchedule>(99)), std::logic_error);
  CHECK_THROWS_AS(xarmed::to_string(static_cast<xarmed::HctVariant>(99)), std::logic_error);
  CHECK_THROWS_AS(xarmed::to_string(static_cast<xarmed::ObjectiveKind>(99)), std::logic_error);
  CHECK_THROWS_AS(xarmed::to_string(static_cast<xarmed::SplitRule>(99)), std::logic_error);
  CHECK_THROWS_AS(xarmed::to_string(static_cast<xarmed::PointRule>(99)), std::logic_error);
  CHECK_THROWS_AS(dp::to_string(static_cast<dp::OrderGrid>(99)), std::logic_error);
  // In range, the names are the scenario's.
  CHECK(fbo::to_string(fbo::Branch::federated) == "federated");
  CHECK(xarmed::to_string(xarmed::SplitRule::random_axis) == "random");
}
