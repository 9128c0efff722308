// RGPE and TAF as registered algorithms (actors/algorithms/rgpe.cpp, taf.cpp, transfer.*): FBO
// kinds without an engine variant, run in FTS's target-agent setting by their own loop.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"
#include "actors/world_objective.hpp"
#include "engine/baselines/transfer_loop.hpp"
#include "scenarios/loader.hpp"
#include "tests/scenario_error.hpp"
#include "tests/test_files.hpp"

namespace al = fedsim::actors::algorithms;
namespace fs = std::filesystem;
using fedsim::scenario::load_scenario_text;
using fedsim::test::scenario_error;

namespace {

std::string scenario(const std::string& name, const std::string& extra = "",
                     int peer_observations = 8) {
  return "seed = 3\n[world]\nagents = 4\nnoise_variance = 0.01\npeer_observations = " +
         std::to_string(peer_observations) +
         "\n[world.objective]\nkind = \"perturbed\"\ngrid_size = 200\nlengthscale = 0.05\n"
         "perturbation = 0.02\nseed = 0\n[algorithm]\nname = \"" + name +
         "\"\niterations = 6\nn_init = 1\nfeatures = 12\nlambda = 0.01\n"
         "kernel_lengthscale = 0.05\n" + extra;
}

}  // namespace

TEST_CASE("rgpe, taf: their keys round-trip, the FBO keys they do not read warn",
          "[algorithms][rgpe][taf]") {
  const auto r = load_scenario_text(
      scenario("rgpe", "beta = 2.0\n[algorithm.rgpe]\nsamples = 64\ndilution_guard = false\n"),
      "r.toml");
  const auto& kind = fedsim::scenario::algorithm_kind(r.config);
  CHECK(kind.name == "rgpe");
  CHECK_FALSE(kind.fbo->traits.is_private);
  CHECK_FALSE(r.config.algorithm.is_private());  // what the rest of a run reads of it
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "key 'algorithm.beta' has no effect: not used by rgpe");
  const al::Params p = fedsim::scenario::algorithm_params(r.config);
  CHECK(p.integer("samples") == 64);
  CHECK_FALSE(p.flag("dilution_guard"));
  const std::string resolved = fedsim::scenario::to_toml(r.config);
  CHECK(resolved.find("name = \"rgpe\"") != std::string::npos);
  CHECK(resolved.find("[algorithm.rgpe]\nsamples = 64\ndilution_guard = false\n"
                      "dilution_percentile = 95.0\n") != std::string::npos);
  const auto again = load_scenario_text(resolved, "again.toml");
  CHECK(fedsim::scenario::algorithm_kind(again.config).name == "rgpe");
  CHECK(fedsim::scenario::algorithm_params(again.config) == p);

  const auto t = load_scenario_text(scenario("taf", "[algorithm.taf]\nimprovement = \"mean\"\n"),
                                    "t.toml");
  CHECK(t.warnings.empty());
  CHECK(fedsim::scenario::algorithm_params(t.config).choice("improvement") == "mean");
  // RGPE's table under TAF: a warning.
  const auto cross = load_scenario_text(scenario("taf", "[algorithm.rgpe]\nsamples = 8\n"), "c.toml");
  REQUIRE(cross.warnings.size() == 1);
  CHECK(cross.warnings[0].find("key 'algorithm.rgpe' has no effect") == 0);
}

TEST_CASE("rgpe, taf: outside the target-agent setting, and bad keys, are refused naming the key",
          "[algorithms][rgpe][taf]") {
  CHECK(scenario_error(scenario("rgpe", "", 0))
            .find("key 'world.peer_observations': must be >= 1 with algorithm.name = \"rgpe\"") !=
        std::string::npos);
  CHECK(scenario_error(scenario("taf", "[algorithm.taf]\nbandwidth = 0.0\n"))
            .find("key 'algorithm.taf.bandwidth': must be a finite number in (0, 10], got 0.0") !=
        std::string::npos);
  CHECK(scenario_error(scenario("rgpe", "[algorithm.rgpe]\nsamples = 0\n"))
            .find("key 'algorithm.rgpe.samples': must be an integer in [1, 100000], got 0") !=
        std::string::npos);
  CHECK(scenario_error(scenario("rgpe", "[algorithm.rgpe]\nweights = 1\n"))
            .find("unknown key 'algorithm.rgpe.weights' (allowed: samples, dilution_guard, "
                  "dilution_percentile)") != std::string::npos);
}

TEST_CASE("rgpe, taf: the loop is the engine's transfer loop on the scenario's objective",
          "[algorithms][rgpe][taf]") {
  for (const std::string name : {"rgpe", "taf"}) {
    INFO(name);
    const auto loaded = load_scenario_text(scenario(name), "l.toml");
    const fs::path dir = fedsim::test::fresh_dir("transfer-kind-" + name);
    fs::create_directories(dir);
    const al::LoopRun run =
        fedsim::scenario::algorithm_kind(loaded.config).loop({loaded.config, dir, nullptr});

    fedsim::baselines::TransferLoopConfig direct;
    direct.algorithm = fedsim::baselines::parse_transfer_algorithm(name);
    direct.agents = 4;
    direct.iterations = 6;
    direct.n_init = 1;
    direct.peer_observations = 8;
    direct.features = 12;
    direct.lambda = 0.01;
    direct.noise_variance = 0.01;
    direct.kernel_lengthscale = 0.05;
    direct.seed = 3;
    direct.objective = fedsim::scenario::reference_config(loaded.config).objective;
    const auto objective = fedsim::actors::make_world_objective(loaded.config, dir);
    const auto engine = fedsim::baselines::run_transfer(direct, *objective);
    CHECK(run.run.final_simple_regret == engine.final_simple_regret);
    REQUIRE(run.run.mean_simple_regret.size() == 7);  // iterations 0 .. T
    CHECK(run.run.mean_simple_regret.back() == engine.records.back().simple_regret);
    // The payload each peer sent: M + M^2, and TAF's incumbent.
    REQUIRE(run.summary.size() == 1);
    CHECK(run.summary[0].name == name);
    CHECK(std::get<std::int64_t>(run.summary[0].entries[0].second) ==
          12 + 144 + (name == "taf" ? 1 : 0));
    CHECK(std::get<std::int64_t>(run.summary[0].entries[1].second) == 3);  // every peer's
    // observations.csv: the target's rows, its initial design then one per iteration.
    std::ifstream in(dir / "observations.csv");
    std::string line;
    int rows = 0;
    std::getline(in, line);
    while (std::getline(in, line)) {
      ++rows;
      CHECK(line.rfind("0,", 0) == 0);  // agent 0, the target
    }
    CHECK(rows == 7);
  }
}
