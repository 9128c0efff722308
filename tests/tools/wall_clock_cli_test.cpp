// `fedsim run` in wall-clock time (run.time = "wall", docs/wall-clock.md): summary.json's
// "clock", and what the command refuses. No assertion on elapsed time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::slurp;

namespace {

const std::string tiny = (fs::path(FEDSIM_SCENARIO_DIR) / "tiny.toml").string();
// No round timeout: at 5 ms per model second it would fire before slow evaluations end.
const std::string wall =
    " --set run.time=wall --set run.time_scale=0.005 --set policy.round_timeout=inf";

/// A usage error: exit code 2 and exactly one line "fedsim: error: ..." naming `what`.
void check_one_line_error(const fedsim::test::CommandResult& r, const std::string& what) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK(r.output.find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("summary.json says which clock a run kept and what the network added",
          "[cli][wall-clock]") {
  const fs::path vdir = fresh_dir("cli-clock-virtual"), wdir = fresh_dir("cli-clock-wall");
  const auto v = run_fedsim("run " + tiny + " --quiet --out " + vdir.string());
  INFO(v.output);
  REQUIRE(v.exit_code == 0);
  const auto vs = nlohmann::json::parse(slurp(vdir / "summary.json"));
  CHECK(vs["clock"] == nlohmann::json{{"time", "virtual"}});

  const auto w = run_fedsim("run " + tiny + wall + " --quiet --out " + wdir.string());
  INFO(w.output);
  REQUIRE(w.exit_code == 0);
  CHECK(w.output.find("model time") != std::string::npos);
  const auto ws = nlohmann::json::parse(slurp(wdir / "summary.json"));
  const auto& clock = ws["clock"];
  CHECK(clock["time"] == "wall");
  CHECK(clock["time_scale"] == 0.005);
  CHECK(clock["injected_compute"] == false);
  REQUIRE(clock["delivery_lateness_median_s"].is_number());
  REQUIRE(clock["delivery_lateness_p99_s"].is_number());
  CHECK(clock["delivery_lateness_median_s"].get<double>() >= 0);
  CHECK(clock["delivery_lateness_p99_s"].get<double>() >=
        clock["delivery_lateness_median_s"].get<double>());
  CHECK(ws["completed"] == true);
  // The same queries as the virtual run (sync, perfect network), and the same privacy.
  CHECK(ws["mean_simple_regret_by_iteration"] == vs["mean_simple_regret_by_iteration"]);
  CHECK(ws["epsilon"] == vs["epsilon"]);
  CHECK(slurp(wdir / "config.resolved.toml").find("\n[run]\ntime = \"wall\"\n") !=
        std::string::npos);
  CHECK(slurp(vdir / "config.resolved.toml").find("[run]") == std::string::npos);
}

TEST_CASE("fedsim run refuses checkpoints in wall-clock time with one line and exit code 2",
          "[cli][wall-clock]") {
  const fs::path out = fresh_dir("cli-wall-checkpoint");
  const auto r = run_fedsim("run " + tiny + wall + " --checkpoint-every 2 --quiet --out " +
                            out.string());
  check_one_line_error(r, "key 'run.time'");
  CHECK(r.output.find("--checkpoint-every") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "summary.json"));
  // Without --checkpoint-every it runs (and leaves no checkpoint behind).
  const auto ok = run_fedsim("run " + tiny + wall + " --quiet --out " + out.string());
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK(fs::exists(out / "summary.json"));
  CHECK_FALSE(fs::exists(out / "checkpoint"));
}

TEST_CASE("bad run keys are usage errors naming the key", "[cli][wall-clock]") {
  const fs::path out = fresh_dir("cli-wall-bad");
  for (const char* bad : {"0", "-1", "inf", "nan"})
    check_one_line_error(run_fedsim("run " + tiny + " --set run.time=wall --set run.time_scale=" +
                                    bad + " --quiet --out " + out.string()),
                         "key 'run.time_scale'");
  check_one_line_error(run_fedsim("run " + tiny + " --set run.time=real --quiet --out " +
                                  out.string()),
                       "key 'run.time': unknown value 'real' (allowed: virtual, wall)");
  CHECK_FALSE(fs::exists(out / "summary.json"));
}
