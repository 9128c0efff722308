// `fedsim algorithms`: the registry as a table and as JSON (tools/golden reads the JSON).
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "actors/algorithms/algorithm_kind.hpp"
#include "tests/tools/run_command.hpp"

namespace al = fedsim::actors::algorithms;
using fedsim::test::run_fedsim;

TEST_CASE("fedsim algorithms --json lists every registered algorithm, its drivers and its keys",
          "[cli][algorithms]") {
  const auto r = run_fedsim("algorithms --json");
  REQUIRE(r.exit_code == 0);
  const auto all = nlohmann::json::parse(r.output);
  REQUIRE(all.size() == al::algorithm_kinds().size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const al::AlgorithmKind& k = al::algorithm_kinds()[i];
    INFO(k.name);
    CHECK(all[i]["name"] == k.name);
    CHECK(all[i]["drivers"].size() == (k.actors ? 2u : 1u));
    CHECK(all[i]["keys"].size() == k.parameters.size());
    for (std::size_t p = 0; p < k.parameters.size(); ++p)
      CHECK(all[i]["keys"][p]["key"] == "algorithm." + k.name + "." + k.parameters[p].name);
  }
  const auto table = run_fedsim("algorithms");
  REQUIRE(table.exit_code == 0);
  CHECK(table.output.find("kernel-ts    X-armed  loop ") != std::string::npos);
  CHECK(table.output.find("    algorithm.kernel-ts.lambda = 1.0  (float, [1e-12, 1e6])") !=
        std::string::npos);
}
