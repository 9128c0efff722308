// SyntheticConfig configures every FBO world objective kind: the dimension of each kind, the
// external kinds' bounds, and validate()'s one-line errors (the schema's safety net).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "engine/objectives/grid_objective.hpp"

using fedsim::SyntheticConfig;
using Kind = SyntheticConfig::Kind;

namespace {

std::string error_of(const SyntheticConfig& c) {
  try {
    c.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

SyntheticConfig external(Kind kind) {
  SyntheticConfig c;
  c.kind = kind;
  c.dimension = 2;
  c.command = {"w"};
  c.address = "127.0.0.1:1";
  return c;
}

}  // namespace

TEST_CASE("SyntheticConfig: kinds, dimensions and bounds", "[objective][config]") {
  SyntheticConfig c;
  CHECK(c.is_grid());
  CHECK(c.effective_dimension() == 1);
  const std::pair<Kind, int> fixed[] = {{Kind::mixture, 1},   {Kind::branin, 2},
                                        {Kind::hartmann3, 3}, {Kind::hartmann6, 6},
                                        {Kind::ackley, 2}};
  for (const auto& [kind, d] : fixed) {
    c.kind = kind;
    CHECK(c.effective_dimension() == d);
    CHECK(c.is_grid() == (kind == Kind::mixture));
    CHECK(c.is_box() == (kind != Kind::mixture));
    CHECK_FALSE(c.is_external());
    CHECK(error_of(c).empty());
  }
  c.kind = Kind::ackley;
  c.dimension = 5;
  CHECK(c.effective_dimension() == 5);
  SyntheticConfig e = external(Kind::command);
  CHECK(e.is_external());
  CHECK_FALSE(e.is_box());
  CHECK(e.bounds().lower == Eigen::Vector2d(0, 0));
  CHECK(e.bounds().upper == Eigen::Vector2d(1, 1));
  e.lower = {-3, 2};
  CHECK(e.bounds().lower == Eigen::Vector2d(-3, 2));
  CHECK(e.bounds().upper == Eigen::Vector2d(1, 1));
  CHECK(error_of(e).find("lower[1] must be < upper[1]") != std::string::npos);
  e.upper = {0, 4};
  CHECK(error_of(e).empty());
}

TEST_CASE("SyntheticConfig::validate: each error names the field", "[objective][config]") {
  auto check = [](SyntheticConfig c, const std::string& what) {
    INFO(what);
    CHECK(error_of(c).find(what) != std::string::npos);
  };
  SyntheticConfig c;
  c.kind = Kind::branin;
  c.dimension = 3;
  check(c, "objective dimension: this test function is 2-dimensional");
  c.kind = Kind::ackley;
  c.dimension = SyntheticConfig::max_dimension + 1;
  check(c, "objective dimension must be in 1..1000");
  c = SyntheticConfig{};
  c.shift = -1;
  check(c, "objective shift");
  c.shift = NAN;
  check(c, "objective shift");
  c = SyntheticConfig{};
  c.workers = 0;
  check(c, "objective workers");
  c = SyntheticConfig{};
  c.timeout = 0;
  check(c, "objective timeout");
  c = SyntheticConfig{};
  c.max_retries = 101;
  check(c, "objective max_retries");
  SyntheticConfig e = external(Kind::command);
  e.dimension = 0;
  check(e, "objective dimension: required");
  e = external(Kind::command);
  e.command.clear();
  check(e, "objective command");
  e = external(Kind::command);
  e.command = {""};
  check(e, "objective command");
  e = external(Kind::tcp);
  e.address.clear();
  check(e, "objective address");
  e = external(Kind::tcp);
  e.upper = {1, 1, 1};
  check(e, "objective upper: must have one number per dimension (2), got 3");
  e = external(Kind::tcp);
  e.lower = {0, INFINITY};
  check(e, "objective lower: every bound must be finite");
  CHECK(error_of(external(Kind::tcp)).empty());
  CHECK(error_of(external(Kind::command)).empty());
}

TEST_CASE("make_synthetic_objectives builds grid kinds only", "[objective][config]") {
  SyntheticConfig c;
  c.grid_size = 20;
  CHECK(make_synthetic_objectives(c, 3, 1).size() == 3);
  for (Kind k : {Kind::branin, Kind::ackley, Kind::command}) {
    SyntheticConfig o = external(k);
    o.grid_size = 20;
    CHECK_THROWS_WITH(make_synthetic_objectives(o, 3, 1), Catch::Contains("not a grid kind"));
  }
}
