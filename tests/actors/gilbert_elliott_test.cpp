#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "actors/faults/loss_model.hpp"
#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::actors;

namespace {

faults::LossParams ge(double p, double r, double h, double k) {
  return {{"p", p}, {"r", r}, {"h", h}, {"k", k}};
}

struct Measured {
  double loss_rate;
  double mean_burst;  ///< mean length of runs of consecutive losses
  int bursts;
};

/// Sends n messages over one Gilbert-Elliott link, each with its own keyed stream as the
/// network does.
Measured measure(const faults::LossParams& params, int n, std::uint64_t seed) {
  auto link = faults::find_loss_kind("gilbert-elliott")->make(params);
  int lost = 0, bursts = 0, run = 0;
  long burst_total = 0;
  for (int m = 0; m < n; ++m) {
    RandomStream rng(seed, "network.link", 5, static_cast<std::uint64_t>(m));
    if (link->lost(rng)) {
      ++lost;
      ++run;
    } else if (run > 0) {
      ++bursts;
      burst_total += run;
      run = 0;
    }
  }
  if (run > 0) {
    ++bursts;
    burst_total += run;
  }
  return {static_cast<double>(lost) / n, static_cast<double>(burst_total) / bursts, bursts};
}

}  // namespace

TEST_CASE(
    "Gilbert-Elliott: loss rate and burst length match the model over "
    "10^5 messages",
    "[actors][faults]") {
  // Tolerances: 4 standard errors. The loss indicator of message m is a Bernoulli whose
  // probability follows the two-state chain (stationary bad probability pi = p/(p+r), lag-1
  // correlation lambda = 1 - p - r), so the sample mean of n messages has variance
  //   [(h-k)^2 pi (1-pi) (1+lambda)/(1-lambda) + pi h (1-h) + (1-pi) k (1-k)] / n
  // around pi h + (1-pi) k. With h = 1, k = 0 a burst is a stay in the bad state: geometric
  // with mean 1/r and variance (1-r)/r^2, so the mean of B bursts has SE sqrt((1-r)/r^2 / B).
  const int n = 100000;
  struct Case {
    double p, r, h, k;
  };
  for (const Case c :
       {Case{0.01, 0.2, 1.0, 0.0}, Case{0.05, 0.5, 1.0, 0.0}, Case{0.02, 0.1, 0.7, 0.05}}) {
    INFO("p " << c.p << " r " << c.r << " h " << c.h << " k " << c.k);
    const double pi = c.p / (c.p + c.r), lambda = 1 - c.p - c.r;
    const double expected = pi * c.h + (1 - pi) * c.k;
    const double var = (c.h - c.k) * (c.h - c.k) * pi * (1 - pi) * (1 + lambda) / (1 - lambda) +
                       pi * c.h * (1 - c.h) + (1 - pi) * c.k * (1 - c.k);
    const double se = std::sqrt(var / n);
    const Measured m = measure(ge(c.p, c.r, c.h, c.k), n, 42);
    CHECK(std::abs(m.loss_rate - expected) < 4 * se);
    CHECK(se < 0.2 * expected);  // the test has teeth: 4 SE is well below the rate itself
    if (c.h == 1.0 && c.k == 0.0) {
      REQUIRE(m.bursts > 500);
      const double burst_se = std::sqrt((1 - c.r) / (c.r * c.r) / m.bursts);
      CHECK(std::abs(m.mean_burst - 1 / c.r) < 4 * burst_se);
    }
  }
  // Bursty, unlike Bernoulli loss of the same rate (mean burst 1/(1-rate) ~ 1.05).
  CHECK(measure(ge(0.01, 0.2, 1.0, 0.0), n, 7).mean_burst > 4.0);
}

TEST_CASE("Gilbert-Elliott: edge parameters", "[actors][faults]") {
  const faults::LossKind& kind = *faults::find_loss_kind("gilbert-elliott");
  // p = 0: the link stays good and loses with probability k.
  CHECK(measure(ge(0.0, 0.5, 1.0, 0.0), 5000, 1).loss_rate == 0.0);
  // p = 1, r = 1: good and bad alternate, so exactly every second message is lost.
  CHECK(measure(ge(1.0, 1.0, 1.0, 0.0), 5000, 1).loss_rate == 0.5);
  CHECK(measure(ge(1.0, 1.0, 1.0, 0.0), 5000, 1).mean_burst == 1.0);
  // Defaults: h = 1, k = 0; p and r are required.
  const auto full = faults::complete_params(kind, {{"p", 0.1}, {"r", 0.3}}, "world.network.loss");
  CHECK(full.at("h") == 1.0);
  CHECK(full.at("k") == 0.0);
  CHECK_THROWS_WITH(faults::complete_params(kind, {{"p", 0.1}}, "world.network.loss"),
                    Catch::Contains("key 'world.network.loss.r': missing"));
  const std::string key = "world.network.loss";
  CHECK_THROWS_WITH(kind.validate(ge(1.5, 0.2, 1, 0), key),
                    Catch::Contains("key 'world.network.loss.p': must be in [0, 1], got 1.5"));
  CHECK_THROWS_WITH(kind.validate(ge(0.1, 0.2, 1, 1), key),
                    Catch::Contains("key 'world.network.loss.k': must be < 1"));
  CHECK_THROWS_WITH(kind.validate(ge(0.1, 0.0, 1, 0), key),
                    Catch::Contains("key 'world.network.loss.r': must be > 0 when h = 1"));
  CHECK_NOTHROW(kind.validate(ge(0.1, 0.0, 0.5, 0), key));  // stuck bad, but loses half
  CHECK_NOTHROW(kind.validate(ge(0.0, 0.0, 1, 0), key));    // never leaves the good state
  CHECK_THROWS_WITH(kind.validate(ge(0.1, 0.2, std::nan(""), 0), key),
                    Catch::Contains("key 'world.network.loss.h'"));
}

TEST_CASE("Gilbert-Elliott from a scenario: keys, groups, byte-identical on 1 or 4 threads",
          "[actors][faults]") {
  const fs::path dir = fedsim::test::fresh_dir("ge-scenario");
  fs::create_directories(dir);
  const fs::path file = dir / "ge.toml";
  std::ofstream(file) << "name = \"ge\"\nseed = 4\n"
                         "[world]\nagents = 8\n[world.objective]\ngrid_size = 200\n"
                         "[world.network]\ncompute = 1.0\nuplink = 0.1\ndownlink = 0.1\n"
                         "loss = { kind = \"gilbert-elliott\", p = 0.1, r = 0.4 }\n"
                         "[[world.network.groups]]\nagents = [2, 5]\n"
                         "loss = { kind = \"gilbert-elliott\", p = 0.3, r = 0.3, h = 0.9, "
                         "k = 0.05 }\n"
                         "[algorithm]\nname = \"dp-fts-de\"\niterations = 12\nn_init = 3\n"
                         "features = 10\nsubregions = 2\n"
                         "[policy]\nkind = \"deadline\"\ndeadline = 3.0\n";
  const scenario::ScenarioConfig c = scenario::load_scenario(file.string());
  const auto& loss = c.world.network.link.loss;
  CHECK(loss.kind == "gilbert-elliott");
  CHECK(loss.params == ge(0.1, 0.4, 1.0, 0.0));
  CHECK(c.world.network.groups.at(0).link.loss.params == ge(0.3, 0.3, 0.9, 0.05));
  // The resolved config reads back the same.
  std::ofstream(dir / "resolved.toml") << scenario::to_toml(c);
  const scenario::ScenarioConfig back = scenario::load_scenario((dir / "resolved.toml").string());
  CHECK(back.world.network.link.loss.params == loss.params);
  CHECK(back.world.network.groups.at(0).link.loss.params == ge(0.3, 0.3, 0.9, 0.05));

  std::string files[2][3];
  for (int t = 0; t < 2; ++t) {
    RunOptions opt;
    opt.out_dir = (dir / ("threads" + std::to_string(t))).string();
    opt.threads = t == 0 ? 1 : 4;
    const RunResult r = run_federation(c, opt);
    CHECK(r.network.dropped > 20);
    int i = 0;
    for (const char* name : {"observations.csv", "rounds.csv", "events.jsonl"})
      files[t][i++] = fedsim::test::slurp(fs::path(opt.out_dir) / name);
  }
  for (int i = 0; i < 3; ++i) {
    CHECK(!files[0][i].empty());
    CHECK(files[0][i] == files[1][i]);
  }
  CHECK(files[0][2].find("\"reason\":\"lost\"") != std::string::npos);
}
