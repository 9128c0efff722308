// The resource estimate (scenarios/resources.hpp) against sizes computed by hand, the memory
// option's parser, and the refusal that names the key.
#include "scenarios/resources.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "scenarios/loader.hpp"

using namespace fedsim;
using namespace fedsim::scenario;

namespace {

const std::string tiny = std::string(FEDSIM_SCENARIO_DIR) + "/tiny.toml";

double part(const ResourceEstimate& e, const std::string& key, const std::string& starts) {
  for (const ResourcePart& p : e.parts)
    if (p.key == key && p.what.rfind(starts, 0) == 0) return p.bytes;
  FAIL("no part " << key << " starting with " << starts);
  return 0;
}

}  // namespace

TEST_CASE("the estimate's parts are the documented formulas", "[scenario][resources]") {
  // tiny.toml: N = 8, dp-fts-de, T = 5, n_init = 3, M = 10, P = 2, a grid of 200 points.
  ScenarioConfig c = load_scenario(tiny);
  const ResourceEstimate e = estimate(c);
  const double n = 8, m = 10, t = 5, obs = 3 + 5, d = 1, nc = 200, p = 2;
  CHECK(part(e, "world.agents", "the agents'") == n * (6 * 1024 + 8 * obs * (d + 2)));
  CHECK(part(e, "algorithm.features", "the agents' M x M") == 8 * n * (m * m + 3 * m));
  CHECK(part(e, "world.objective.grid_size", "the candidate grid") ==
        8 * nc * (m + d) + 24 * nc * nc);
  CHECK(part(e, "algorithm.features", "the server's") == 8 * m * p * (n + 1));
  CHECK(part(e, "algorithm.iterations", "the regret table") == 8 * n * (t + 1));
  CHECK(part(e, "", "the process") == process_base_bytes);
  double sum = 0;
  for (const ResourcePart& q : e.parts) sum += q.bytes;
  CHECK(e.bytes() == sum);
  CHECK(e.bytes() < 16.0 * 1024 * 1024);  // a tiny run: the process and about a megabyte
  CHECK(e.sizes.find("M = 10") != std::string::npos);

  // history: one factor per draw, not one per agent.
  c.algorithm.posterior_memory = fbo::PosteriorMemory::history;
  CHECK(part(estimate(c), "algorithm.features", "an M x M") == 8 * (m * m + obs * m));
}

TEST_CASE("the estimate of a run that no machine holds is astronomical, blaming its key",
          "[scenario][resources]") {
  const ResourceEstimate features =
      estimate(load_scenario(tiny, {"algorithm.features=2147483647"}));
  CHECK(features.bytes() > 1e20);  // 8 N M^2 = 8 * 8 * 2^62
  CHECK(features.largest().key == "algorithm.features");
  const ResourceEstimate agents = estimate(load_scenario(tiny, {"world.agents=2147483647"}));
  CHECK(agents.largest().key == "world.agents");
  CHECK(agents.bytes() > 1e13);
  const ResourceEstimate grid =
      estimate(load_scenario(tiny, {"world.objective.grid_size=2147483647"}));
  CHECK(grid.largest().key == "world.objective.grid_size");
  // X-armed: the initial partition and the clients' curves.
  const ResourceEstimate xarmed = estimate(load_scenario(
      std::string(FEDSIM_SCENARIO_DIR) + "/xarmed/garland.toml", {"algorithm.budget=1000000000000"}));
  CHECK(xarmed.largest().key == "algorithm.budget");
}

TEST_CASE("memory sizes parse with binary units, and none is no limit", "[scenario][resources]") {
  CHECK(*parse_memory_size("8G", "--max-memory") == 8.0 * 1024 * 1024 * 1024);
  CHECK(*parse_memory_size("512M", "--max-memory") == 512.0 * 1024 * 1024);
  CHECK(*parse_memory_size("1.5K", "--max-memory") == 1536.0);
  CHECK(*parse_memory_size("1000", "--max-memory") == 1000.0);
  CHECK(*parse_memory_size("2GiB", "--max-memory") == 2.0 * 1024 * 1024 * 1024);
  CHECK_FALSE(parse_memory_size("none", "--max-memory").has_value());
  for (const char* bad : {"", "G", "-1G", "8X", "inf", "nan", "0", "8 G", "1e400"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_memory_size(bad, "--max-memory"),
                      Catch::Contains("--max-memory") && Catch::Contains("none"));
  }
  CHECK(physical_memory() > 0);
  CHECK(memory_text(1536) == "1.5 KiB");
  CHECK(memory_text(3.0 * 1024 * 1024 * 1024) == "3.0 GiB");
}

TEST_CASE("a run above the limit is refused in one line naming its key, none never refuses",
          "[scenario][resources]") {
  const ResourceEstimate e = estimate(load_scenario(tiny, {"algorithm.features=2147483647"}));
  const MemoryLimit machine = memory_limit("", "--max-memory");
  REQUIRE(machine.bytes.has_value());
  const std::string why = memory_refusal("the run", e, machine, "--max-memory");
  CHECK(why.find("algorithm.features") != std::string::npos);
  CHECK(why.find("physical memory") != std::string::npos);
  CHECK(why.find("--max-memory none") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
  CHECK(memory_refusal("the run", e, memory_limit("none", "--max-memory"), "--max-memory").empty());
  const ResourceEstimate small = estimate(load_scenario(tiny));
  CHECK(memory_refusal("the run", small, machine, "--max-memory").empty());
  CHECK_FALSE(memory_refusal("the run", small, memory_limit("1M", "--max-memory"), "--max-memory")
                  .empty());
}
