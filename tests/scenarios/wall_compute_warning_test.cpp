// The loader's warning for a wall-clock run that leaves the compute model unused
// (scenarios/wall_compute_warning.hpp): once, naming every key whose modelled compute time the
// wall clock does not charge, and how to make them act; none in virtual time, with
// run.injected_compute = true, or when nothing models compute time.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenarios/loader.hpp"

using namespace fedsim::scenario;

namespace {

const std::string base =
    "[world]\nagents = 4\n[algorithm]\nname = \"fts-de\"\n[world.network]\n"
    "compute = { kind = \"lognormal\", mu = -1.5, sigma = 0.5 }\n"
    "[[world.network.groups]]\nagents = [0]\nspeed_factor = 4.0\n";

std::vector<std::string> compute_warnings(const std::string& text,
                                          const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  for (const std::string& w : load_scenario_text(text, "wall.toml", overrides).warnings)
    if (w.find("run.injected_compute") != std::string::npos) out.push_back(w);
  return out;
}

}  // namespace

TEST_CASE("a wall-clock run without injected compute warns once of the compute keys it ignores",
          "[scenario][wall-clock]") {
  const auto w = compute_warnings(base, {"run.time=wall"});
  REQUIRE(w.size() == 1);
  CHECK(w[0] ==
        "run.time = wall charges the real time of evaluations, not the modelled compute time of "
        "world.network.compute, world.network.groups[0].speed_factor: set run.injected_compute "
        "= true to hold it as well (docs/wall-clock.md)");
  // The same from the file's own [run] table.
  CHECK(compute_warnings(base + "[run]\ntime = \"wall\"\n", {}) == w);
}

TEST_CASE("no compute warning in virtual time, with injected compute, or without modelled compute",
          "[scenario][wall-clock]") {
  CHECK(compute_warnings(base, {}).empty());
  CHECK(compute_warnings(base, {"run.time=wall", "run.injected_compute=true"}).empty());
  // Nothing modelled: the default compute time is zero, and so is a speed factor times zero.
  const std::string plain = "[world]\nagents = 4\n[algorithm]\nname = \"fts-de\"\n";
  CHECK(compute_warnings(plain, {"run.time=wall"}).empty());
  CHECK(compute_warnings(plain + "[[world.network.groups]]\nagents = [0]\nspeed_factor = 4.0\n",
                         {"run.time=wall"})
            .empty());
}

TEST_CASE("the compute warning names a group's own compute and the default link's speed factor",
          "[scenario][wall-clock]") {
  const std::string text =
      "[world]\nagents = 4\n[algorithm]\nname = \"fts-de\"\n[world.network]\n"
      "speed_factor = 2.0\ncompute = 0.1\n[[world.network.groups]]\nagents = [1]\n"
      "compute = 0.5\n[[world.network.groups]]\nagents = [2]\nuplink = 0.2\n";
  const auto w = compute_warnings(text, {"run.time=wall"});
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("of world.network.compute, world.network.speed_factor, "
                  "world.network.groups[0].compute: set") != std::string::npos);
}
