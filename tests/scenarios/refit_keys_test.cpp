// The algorithm.refit_* keys: checks naming the key, warnings when inert, the resolved config,
// and runs with refits on: the actors equal the loop, and 1 or 4 threads write the same bytes.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "actors/federation.hpp"
#include "engine/fbo/reference_loop.hpp"
#include "scenarios/loader.hpp"
#include "tests/test_files.hpp"

namespace fs = std::filesystem;
using namespace fedsim;
using namespace fedsim::scenario;

namespace {

const std::string head =
    "name = \"refit\"\n[world]\nagents = 4\n[world.objective]\ngrid_size = 100\n"
    "[algorithm]\nname = \"fts-de\"\n";

/// The one-line error of loading `text`, or "" when it loads.
std::string error_of(const std::string& text) {
  try {
    load_scenario_text(text, "refit.toml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> warnings_of(const std::string& text) {
  return load_scenario_text(text, "refit.toml").warnings;
}

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

/// The reference loop's records in the recorder's CSV layout, without the time column.
std::vector<std::string> reference_rows(const fbo::ReferenceResult& r) {
  std::vector<std::string> rows;
  for (const auto& o : r.observations) {
    std::string row = std::to_string(o.agent) + "," + std::to_string(o.iteration);
    for (int j = 0; j < o.x.size(); ++j) row += "," + g(o.x(j));
    rows.push_back(row + "," + g(o.y) + "," + g(o.f) + "," + g(o.simple_regret) + "," +
                   g(o.best_y) + "," + fbo::to_string(o.branch) + "," + std::to_string(o.source));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// observations.csv rows with the time column (3rd) removed.
std::vector<std::string> actor_rows(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    rows.push_back(line.substr(0, b) + line.substr(c));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

ScenarioConfig small(fbo::Algorithm a, fbo::LocalSampler sampler) {
  ScenarioConfig c;
  c.name = "refit";
  c.seed = 5;
  c.world.agents = 8;
  c.world.objective.grid_size = 200;
  c.algorithm.algorithm = a;
  c.algorithm.iterations = 10;
  c.algorithm.n_init = 4;
  c.algorithm.features = 20;
  c.algorithm.subregions = 2;
  c.algorithm.local_sampler = sampler;
  if (sampler == fbo::LocalSampler::refit_rff || sampler == fbo::LocalSampler::refit_rff_bounded) {
    // The authors' sampler refits on its own period; refit_every stays 0.
    c.algorithm.refit_rff.features = 30;
    c.algorithm.refit_rff.restarts = 3;
  } else {
    c.algorithm.refit.every = 5;
    c.algorithm.refit.restarts = 2;
  }
  validate(c);
  return c;
}

}  // namespace

TEST_CASE("refit keys: bad values fail with one line naming the key", "[scenario][refit]") {
  CHECK(error_of(head + "refit_every = 5\n").empty());
  CHECK_THAT(error_of(head + "refit_every = -1\n"),
             Catch::Contains("key 'algorithm.refit_every': must be an integer >= 0"));
  CHECK_THAT(error_of(head + "refit_every = 5\nrefit_restarts = 0\n"),
             Catch::Contains("key 'algorithm.refit_restarts'"));
  CHECK_THAT(error_of(head + "refit_every = 5\nrefit_lengthscale_min = 0.0\n"),
             Catch::Contains("key 'algorithm.refit_lengthscale_min': must be a finite number in [1e-06, 1e+06]"));
  CHECK_THAT(error_of(head + "refit_every = 5\nlocal_sampler = \"exact\"\n"
                             "refit_lengthscale_min = 0.5\nrefit_lengthscale_max = 0.2\n"),
             Catch::Contains("key 'algorithm.refit_lengthscale_max': must be > "
                             "algorithm.refit_lengthscale_min (0.5), got 0.2"));
  CHECK_THAT(error_of(head + "refit_every = 5\nrefit_noise_max = 1e-7\n"),
             Catch::Contains("key 'algorithm.refit_noise_max': must be > "
                             "algorithm.refit_noise_min"));
  CHECK_THAT(error_of(head + "refit_every = 5\nrefit_noise_max = inf\n"),
             Catch::Contains("key 'algorithm.refit_noise_max': must be a finite number in (0, 1e6]"));
  CHECK_THAT(error_of(head + "refit_every = 2.5\n"), Catch::Contains("algorithm.refit_every"));
  // A bad bound is an error even with refits off: the file says something impossible.
  CHECK_THAT(error_of(head + "refit_noise_min = -1.0\n"),
             Catch::Contains("key 'algorithm.refit_noise_min'"));
  // Each error is one line.
  CHECK(error_of(head + "refit_every = -1\n").find('\n') == std::string::npos);
}

TEST_CASE("refit keys: inert ones are warned about, naming why", "[scenario][refit]") {
  CHECK(warnings_of(head + "refit_every = 5\nrefit_noise_max = 0.5\n").empty());
  CHECK(mentions(warnings_of(head + "refit_noise_max = 0.5\n"),
                 "'algorithm.refit_noise_max' has no effect: used only with "
                 "algorithm.refit_every > 0"));
  // The rff sampler's fits hold the features' length scale: its bounds have no effect.
  CHECK(mentions(warnings_of(head + "refit_every = 5\nrefit_lengthscale_max = 0.5\n"),
                 "used only with algorithm.local_sampler = \"exact\""));
  CHECK(warnings_of(head + "refit_every = 5\nlocal_sampler = \"exact\"\n"
                           "refit_lengthscale_max = 0.5\n")
            .empty());
}

TEST_CASE("refit keys: the resolved config writes them only with refits on, and reads back",
          "[scenario][refit]") {
  const ScenarioConfig off = load_scenario_text(head, "refit.toml").config;
  CHECK(to_toml(off).find("refit_") == std::string::npos);
  const ScenarioConfig on =
      load_scenario_text(head +
                             "refit_every = 5\nlocal_sampler = \"exact\"\n"
                             "refit_lengthscale_max = 0.5\nrefit_noise_min = 1e-4\n",
                         "refit.toml")
          .config;
  const std::string text = to_toml(on);
  CHECK_THAT(text, Catch::Contains("refit_every = 5\n"));
  CHECK_THAT(text, Catch::Contains("refit_restarts = 5\n"));
  CHECK_THAT(text, Catch::Contains("refit_lengthscale_max = 0.5\n"));
  const ScenarioConfig back = load_scenario_text(text, "refit.toml").config;
  CHECK(back.algorithm.refit.every == 5);
  CHECK(back.algorithm.refit.restarts == 5);
  CHECK(back.algorithm.refit.lengthscale_min == on.algorithm.refit.lengthscale_min);
  CHECK(back.algorithm.refit.lengthscale_max == 0.5);
  CHECK(back.algorithm.refit.noise_min == 1e-4);
  CHECK(back.algorithm.refit.noise_max == on.algorithm.refit.noise_max);
  CHECK(to_toml(back) == text);
  // The engine config carries them.
  CHECK(reference_config(on).refit.lengthscale_max == 0.5);
}

TEST_CASE("with refits on, a perfect network under sync reproduces the reference loop",
          "[scenario][refit][refit-rff][actors][sanitizer-heavy]") {
  using fbo::Algorithm;
  using fbo::LocalSampler;
  for (auto [a, sampler] : {std::pair{Algorithm::ts, LocalSampler::rff},
                            {Algorithm::fts, LocalSampler::rff},
                            {Algorithm::dp_fts_de, LocalSampler::rff},
                            {Algorithm::fts_de, LocalSampler::exact},
                            {Algorithm::ts, LocalSampler::refit_rff},
                            {Algorithm::dp_fts_de, LocalSampler::refit_rff},
                            {Algorithm::fts_de, LocalSampler::refit_rff_bounded}}) {
    const ScenarioConfig c = small(a, sampler);
    const fs::path dir = test::fresh_dir("refit-perfect-" + fbo::to_string(a) + "-" +
                                         fbo::to_string(sampler));
    actors::RunOptions opt;
    opt.out_dir = dir.string();
    opt.threads = 2;
    const actors::RunResult run = actors::run_federation(c, opt);
    const fbo::ReferenceResult ref = fbo::run_reference(reference_config(c));
    INFO("algorithm " << fbo::to_string(a) << ", sampler " << fbo::to_string(sampler));
    const auto actor = actor_rows(dir / "observations.csv");
    const auto expected = reference_rows(ref);
    REQUIRE(actor.size() == expected.size());
    for (size_t i = 0; i < actor.size(); ++i) REQUIRE(actor[i] == expected[i]);
    CHECK(run.final_simple_regret == Approx(ref.final_simple_regret).margin(1e-12));
    // The refits changed the run: the same config without them (for the authors' sampler:
    // with the default rff sampler) queries elsewhere.
    ScenarioConfig plain = c;
    plain.algorithm.refit.every = 0;
    if (sampler == LocalSampler::refit_rff || sampler == LocalSampler::refit_rff_bounded)
      plain.algorithm.local_sampler = LocalSampler::rff;
    CHECK(reference_rows(fbo::run_reference(reference_config(plain))) != expected);
  }
}

TEST_CASE("with refits on, 1 or 4 threads write byte-identical files",
          "[scenario][refit][actors]") {
  ScenarioConfig c = small(fbo::Algorithm::dp_fts_de, fbo::LocalSampler::rff);
  c.world.network.link.compute = {Distribution::Kind::lognormal, 0, 0, 0, 0, -1.0, 0.5};
  c.world.network.link.uplink = {Distribution::Kind::exponential, 0, 0, 0, 0.2, 0, 0};
  c.world.network.link.drop = 0.05;
  c.policy.kind = PolicyConfig::Kind::deadline;
  c.policy.deadline = 1.0;
  validate(c);
  std::string files[2][3];
  for (int k = 0; k < 2; ++k) {
    const fs::path dir = test::fresh_dir("refit-threads" + std::to_string(k));
    actors::RunOptions opt;
    opt.out_dir = dir.string();
    opt.threads = k == 0 ? 1 : 4;
    actors::run_federation(c, opt);
    files[k][0] = test::slurp(dir / "observations.csv");
    files[k][1] = test::slurp(dir / "rounds.csv");
    files[k][2] = test::slurp(dir / "events.jsonl");
  }
  CHECK(files[0][0].size() > 1000);
  for (int f = 0; f < 3; ++f) CHECK(files[0][f] == files[1][f]);
}

TEST_CASE("authors' sampler keys: checked, warned about when inert, written only with it",
          "[scenario][refit][refit-rff]") {
  const std::string authors = head + "local_sampler = \"refit-rff\"\n";
  CHECK(error_of(authors).empty());
  CHECK(warnings_of(authors + "local_refit_every = 3\nlocal_features = 50\n").empty());
  CHECK_THAT(error_of(authors + "local_refit_every = 0\n"),
             Catch::Contains("key 'algorithm.local_refit_every': must be an integer >= 1"));
  CHECK_THAT(error_of(authors + "local_refit_restarts = 0\n"),
             Catch::Contains("key 'algorithm.local_refit_restarts'"));
  CHECK_THAT(error_of(authors + "local_features = 0\n"),
             Catch::Contains("key 'algorithm.local_features'"));
  CHECK_THAT(error_of(authors + "local_features = 1001\n"),
             Catch::Contains("key 'algorithm.local_features': must be an integer in [1, 1000]"));
  CHECK(error_of(authors + "local_features = 1000\n").empty());
  CHECK_THAT(error_of(authors + "local_lambda_floor = 0.0\n"),
             Catch::Contains("key 'algorithm.local_lambda_floor'"));
  CHECK_THAT(error_of(authors + "refit_every = 5\n"),
             Catch::Contains("key 'algorithm.refit_every': must be 0 with "
                             "algorithm.local_sampler = \"refit-rff\""));
  CHECK_THAT(error_of(head + "local_sampler = \"refit\"\n"),
             Catch::Contains("refit-rff-bounded"));
  // Inert with the other samplers.
  CHECK(mentions(warnings_of(head + "local_features = 50\n"),
                 "'algorithm.local_features' has no effect: used only with "
                 "algorithm.local_sampler = \"refit-rff\" or \"refit-rff-bounded\""));
  // The bounds act with the bounded variant, and not with the unbounded one.
  CHECK(warnings_of(head + "local_sampler = \"refit-rff-bounded\"\nrefit_lengthscale_max = 0.5\n"
                           "refit_noise_min = 1e-5\n")
            .empty());
  CHECK(mentions(warnings_of(authors + "refit_lengthscale_max = 0.5\n"),
                 "'algorithm.refit_lengthscale_max' has no effect"));
  // The resolved config: the sampler's keys with it, read back the same; none without it.
  const std::string plain = to_toml(load_scenario_text(head, "refit.toml").config);
  CHECK(plain.find("local_refit") == std::string::npos);
  CHECK(plain.find("local_features") == std::string::npos);
  const ScenarioConfig on =
      load_scenario_text(head + "local_sampler = \"refit-rff-bounded\"\nlocal_features = 64\n"
                                "refit_lengthscale_max = 0.5\n",
                         "refit.toml")
          .config;
  const std::string text = to_toml(on);
  CHECK_THAT(text, Catch::Contains("local_refit_every = 5\n"));
  CHECK_THAT(text, Catch::Contains("local_refit_restarts = 10\n"));
  CHECK_THAT(text, Catch::Contains("local_features = 64\n"));
  CHECK_THAT(text, Catch::Contains("refit_lengthscale_max = 0.5\n"));
  CHECK(text.find("\nrefit_every") == std::string::npos);
  const ScenarioConfig back = load_scenario_text(text, "refit.toml").config;
  CHECK(to_toml(back) == text);
  CHECK(reference_config(back).refit_rff.features == 64);
  CHECK(reference_config(back).refit.lengthscale_max == 0.5);
}
