// `fedsim run --stream` (docs/stream.md): streams valid under docs/stream.schema.json for FBO
// and Fed-PNE runs, matching the run's files, the same for 1 and 4 threads, and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::read_lines;
using fedsim::test::read_rows;
using fedsim::test::run_fedsim;
using fedsim::test::run_shell;
using nlohmann::json;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;
const fs::path repo = scenarios.parent_path();

/// Counts of each line type by tests/tools/validate_stream.py (schema, first/last lines, time
/// order); fails the test with the script's message otherwise.
json validate(const fs::path& stream) {
  const auto r = run_shell(fedsim::test::python_interpreter() + " " +
                           (repo / "tests" / "tools" / "validate_stream.py").string() + " " +
                           (repo / "docs" / "stream.schema.json").string() + " " + stream.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.output);
}

std::vector<json> records(const fs::path& stream, const std::string& type) {
  std::vector<json> out;
  for (const auto& line : read_lines(stream)) {
    json j = json::parse(line);
    if (j["type"] == type) out.push_back(std::move(j));
  }
  return out;
}

/// The stream without what may differ between thread counts: `wall`, and the start line's
/// `threads`.
std::vector<std::string> reproducible(const fs::path& stream) {
  std::vector<std::string> out;
  for (const auto& line : read_lines(stream)) {
    json j = json::parse(line);
    j.erase("wall");
    j.erase("threads");
    out.push_back(j.dump());
  }
  return out;
}

/// The straggler scenario shrunk, with crashes that recover, a partition, drops and agents
/// presumed dead after one missed round: every kind of line but Fed-PNE's.
const std::string faulty_fbo =
    (scenarios / "stragglers" / "deadline.toml").string() +
    " --set world.agents=24 --set algorithm.iterations=10"
    " --set 'world.network.crashes=[{fraction=0.2,time=1.0,recover=3.0}]'"
    " --set 'world.network.partitions=[{agents=[3,4],start=0.5,end=2.5}]'"
    " --set world.network.drop=0.1 --set policy.dead_after_missed=1";

}  // namespace

TEST_CASE("fedsim run --stream: an FBO run's stream is valid, matches its files, and is the "
          "same for 1 and 4 threads",
          "[cli][stream]") {
  std::map<int, fs::path> streams;
  fs::path dir1;
  for (int threads : {1, 4}) {
    const fs::path dir = fresh_dir("stream-fbo-" + std::to_string(threads));
    const fs::path stream = dir.string() + ".jsonl";
    const auto r = run_fedsim("run " + faulty_fbo + " --quiet --threads " +
                              std::to_string(threads) + " --out " + dir.string() + " --stream " +
                              stream.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    streams[threads] = stream;
    if (threads == 1) dir1 = dir;
  }
  const json counts = validate(streams[1]);
  CHECK(reproducible(streams[1]) == reproducible(streams[4]));

  // As many rounds, observations and faults as the files have.
  const auto rounds_csv = read_rows(dir1 / "rounds.csv");
  CHECK(counts["round"] == rounds_csv.size() - 1);
  CHECK(counts["privacy"] == rounds_csv.size() - 1);
  CHECK(counts["observation"] == read_rows(dir1 / "observations.csv").size() - 1);
  long faults = 0;
  for (const auto& line : read_lines(dir1 / "events.jsonl")) {
    const std::string kind = json::parse(line)["event"];
    faults += kind != "send" && kind != "deliver";
  }
  CHECK(faults > 0);
  CHECK(counts["fault"] == faults);
  // Node ids as events.jsonl writes them: agents 0 .. N-1, the server -1, the network -2.
  for (const auto& f : records(streams[1], "fault"))
    for (const char* end : {"from", "to"}) {
      INFO(f.dump());
      CHECK(f[end].get<long long>() >= -2);
      CHECK(f[end].get<long long>() < 24);
    }

  // Each round line carries rounds.csv's numbers.
  const auto rounds = records(streams[1], "round");
  REQUIRE(rounds.size() == rounds_csv.size() - 1);
  const auto& header = rounds_csv[0];
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const auto& row = rounds_csv[k + 1];
    CHECK(rounds[k]["round"] == std::stoi(row[column("round")]));
    CHECK(rounds[k]["participants"] == std::stoi(row[column("participants")]));
    CHECK(rounds[k]["alive"] == std::stoi(row[column("alive")]));
    CHECK(rounds[k]["late"] == std::stoi(row[column("late")]));
    CHECK(rounds[k]["epsilon"].get<double>() ==
          Approx(std::stod(row[column("epsilon")])).epsilon(1e-9));
    CHECK(rounds[k]["t"].get<double>() == Approx(std::stod(row[column("time")])).epsilon(1e-9));
  }
  // Regret so far is a mean of simple regrets: in [0, 1] on this objective, and known.
  for (const auto& r : rounds) {
    REQUIRE(r["regret"].is_number());
    CHECK(r["regret"].get<double>() >= 0.0);
  }

  // The state changes of the plan, at their times, and the server's presumptions.
  std::map<std::string, int> states;
  for (const auto& a : records(streams[1], "agent")) {
    const std::string state = a["state"];
    ++states[state];
    if (state == "crashed") CHECK(a["t"] == 1.0);
    if (state == "recovered") CHECK(a["t"] == 3.0);
    if (state == "partitioned") CHECK(a["t"] == 0.5);
    if (state == "healed") CHECK(a["t"] == 2.5);
    if (state == "partitioned" || state == "healed")
      CHECK((a["agent"] == 3 || a["agent"] == 4));
  }
  CHECK(states["crashed"] == 5);  // ceil(0.2 x 24)
  CHECK(states["recovered"] == 5);
  CHECK(states["partitioned"] == 2);
  CHECK(states["healed"] == 2);
  CHECK(states["straggling"] == 6);  // the "slow" group: 0.25 x 24
  CHECK(states["presumed_dead"] > 0);
  CHECK(states["revived"] > 0);

  const auto end = records(streams[1], "end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["completed"] == true);
  CHECK(end[0]["rounds"] == rounds.size());
  const json summary = json::parse(fedsim::test::slurp(dir1 / "summary.json"));
  CHECK(end[0]["final_simple_regret"].get<double>() ==
        Approx(summary["mean_final_simple_regret"].get<double>()).epsilon(1e-12));
}

TEST_CASE("fedsim run --stream: a Fed-PNE run's stream is valid, matches its files, and is "
          "the same for 1 and 4 threads",
          "[cli][stream][xarmed]") {
  fs::path dir, stream;
  std::vector<std::string> first;
  for (int threads : {1, 4}) {
    dir = fresh_dir("stream-fed-pne-" + std::to_string(threads));
    stream = dir.string() + ".jsonl";
    const auto r = run_fedsim("run " + (scenarios / "xarmed" / "stragglers-garland.toml").string() +
                              " --set world.agents=4 --set algorithm.budget=600"
                              " --set 'world.network.crashes=[{agents=[2],time=0.0,recover=inf}]'"
                              " --quiet --threads " + std::to_string(threads) + " --out " +
                              dir.string() + " --stream " + stream.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    if (threads == 1) first = reproducible(stream);
    else CHECK(reproducible(stream) == first);
  }
  const json counts = validate(stream);
  CHECK(counts["phase"] == read_rows(dir / "phases.csv").size() - 1);
  CHECK(counts["pull"] == read_rows(dir / "observations.csv").size() - 1);
  CHECK(counts.value("observation", 0) == 0);
  const auto start = records(stream, "start");
  CHECK(start[0]["family"] == "fed-pne");
  CHECK(start[0]["pulls_per_client"] == 600);
  int crashed = 0;
  for (const auto& a : records(stream, "agent"))
    if (a["state"] == "crashed") {
      ++crashed;
      CHECK(a["agent"] == 2);
      CHECK(a["t"] == 0.0);
    }
  CHECK(crashed == 1);
  const auto phases = records(stream, "phase");
  REQUIRE(!phases.empty());
  // Pulls per client grow to at most the budget; the last phase's regret is the mean R(T) of
  // the clients that pulled, as summary.json's.
  long long before = 0;
  for (const auto& p : phases) {
    CHECK(p["pulls"].get<long long>() > before);
    before = p["pulls"];
  }
  CHECK(before <= 600);
  const json summary = json::parse(fedsim::test::slurp(dir / "summary.json"));
  const auto end = records(stream, "end");
  CHECK(end[0]["average_cumulative_regret"].get<double>() ==
        Approx(summary["average_cumulative_regret_per_client"].get<double>()).epsilon(1e-12));
}

TEST_CASE("fedsim run --stream -: standard output holds the stream alone", "[cli][stream]") {
  const fs::path dir = fresh_dir("stream-stdout");
  const fs::path stream = dir.string() + ".jsonl";
  const auto r = run_shell(fedsim::test::fedsim_binary() + " run " +
                           (scenarios / "tiny.toml").string() + " --out " + dir.string() +
                           " --stream - 2>/dev/null > " + stream.string());
  REQUIRE(r.exit_code == 0);
  const json counts = validate(stream);  // every line a record: no result line among them
  CHECK(counts["round"] == read_rows(dir / "rounds.csv").size() - 1);
}

TEST_CASE("fedsim run --stream: nobody observed: the end line has no regret, not 0",
          "[cli][stream]") {
  const fs::path dir = fresh_dir("stream-nobody");
  const fs::path stream = dir.string() + ".jsonl";
  const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() +
                            " --set 'world.network.crashes=[{fraction=1.0,time=0.0}]' --quiet --out " +
                            dir.string() + " --stream " + stream.string());
  INFO(r.output);
  validate(stream);
  const auto end = records(stream, "end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["final_simple_regret"].is_null());
}

TEST_CASE("fedsim run --stream: an interrupted run's end line counts its round lines",
          "[cli][stream][checkpoint]") {
  const fs::path dir = fresh_dir("stream-interrupted");
  const fs::path stream = dir.string() + ".jsonl";
  const auto r = run_shell("FEDSIM_DEBUG_STOP_AFTER_CHECKPOINTS=1 " + fedsim::test::fedsim_binary() +
                           " run " + (scenarios / "tiny.toml").string() +
                           " --checkpoint-every 2 --quiet --out " + dir.string() + " --stream " +
                           stream.string());
  INFO(r.output);
  CHECK(r.exit_code == 130);
  validate(stream);
  const auto end = records(stream, "end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["completed"] == false);
  CHECK(end[0]["rounds"] == records(stream, "round").size());
  CHECK(end[0]["reason"].get<std::string>().find("interrupted") != std::string::npos);
}

TEST_CASE("fedsim run --stream: a run that fails ends its stream saying why", "[cli][stream]") {
  const fs::path dir = fresh_dir("stream-failed");
  const fs::path stream = dir.string() + ".jsonl";
  const auto r = run_shell("FEDSIM_DEBUG_FAIL_AGENT=1 " + fedsim::test::fedsim_binary() +
                           " run " + (scenarios / "tiny.toml").string() + " --quiet --out " +
                           dir.string() + " --stream " + stream.string());
  INFO(r.output);
  CHECK(r.exit_code == 1);
  validate(stream);
  const auto end = records(stream, "end");
  REQUIRE(end.size() == 1);
  CHECK(end[0]["completed"] == false);
  CHECK(end[0]["reason"].get<std::string>().find("agent 1") != std::string::npos);
}

TEST_CASE("fedsim run --stream: bad destinations exit 2 with one line, before the run",
          "[cli][stream]") {
  const fs::path dir = fresh_dir("stream-bad");
  const std::string tiny = (scenarios / "tiny.toml").string();
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--out " + dir.string() + " --stream " + (dir / "s.jsonl").string(),
       "inside the run's folder"},
      {"--out " + dir.string() + " --stream " + (dir / "sub" / ".." / "s.jsonl").string(),
       "inside the run's folder"},
      {"--out " + dir.string() + " --stream /nonexistent-folder/s.jsonl", "cannot create it"},
      {"--out " + dir.string() + " --stream " + fs::temp_directory_path().string(), "is a folder"},
      {"--out " + dir.string() + " --stream ''", "give a file"},
      {"--out " + dir.string() + " --driver loop --stream " + dir.string() + ".jsonl",
       "the loop driver has no live records"},
      {"--out " + dir.string() + " --stream " + dir.string() + "-fifo", "a FIFO with no reader"},
      {"--out " + dir.string() + " --stream " + dir.string() + "-locked.jsonl", "in use by another run"},
  };
  // Beside the run's folder, not in it; a test process of an earlier run with the same pid
  // may have left them (mkfifo refuses an existing name): made afresh, removed at the end.
  const std::string fifo = dir.string() + "-fifo";
  const std::string locked = dir.string() + "-locked.jsonl";
  struct Remove {
    std::vector<std::string> files;
    ~Remove() {
      std::error_code ec;
      for (const auto& f : files) fs::remove(f, ec);
    }
  } beside{{fifo, locked}};
  fs::remove(fifo);
  fs::remove(locked);
  REQUIRE(run_shell("mkfifo " + fifo).exit_code == 0);
  // Another run holds this one (flock, as fedsim takes it) while the cases run.
  REQUIRE(run_shell("touch " + locked).exit_code == 0);
  std::string holder = run_shell("flock " + locked + " sleep 30 > /dev/null 2>&1 & echo $!").output;
  holder = holder.substr(0, holder.find('\n'));
  for (int k = 0; k < 50 && run_shell("flock -n " + locked + " true").exit_code == 0; ++k)
    run_shell("sleep 0.1");
  for (const auto& c : cases) {
    const auto r = run_fedsim("run " + tiny + " --quiet " + c.args);
    INFO(c.args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(c.message) != std::string::npos);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK(!fs::exists(dir));  // refused before the run's folder was made
  }
  run_shell("kill " + holder);
}

TEST_CASE("fedsim run --stream -: a reader that goes away fails the run, saying so",
          "[cli][stream]") {
  const fs::path dir = fresh_dir("stream-broken-pipe");
  const auto r = run_shell(fedsim::test::fedsim_binary() + " run " +
                           (scenarios / "dp-fts-de-synthetic.toml").string() + " --quiet --out " +
                           dir.string() + " --stream - 2> " + dir.string() +
                           ".err | head -c 10 > /dev/null");
  const std::string err = fedsim::test::slurp(dir.string() + ".err");
  INFO(err);
  CHECK(err.find("fedsim: failed: recorder: --stream '-': write failed (Broken pipe)") !=
        std::string::npos);
}

TEST_CASE("fedsim run: the progress line says round r/R, regret, eps of the budget, agents "
          "alive and time left",
          "[cli][run][progress]") {
  const fs::path dir = fresh_dir("progress-fbo");
  const auto r = run_fedsim("run " + (scenarios / "tiny.toml").string() +
                            " --set algorithm.iterations=20 --set privacy.budget=50 --out " +
                            dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // stderr is not a terminal: a plain line each time the iterations pass a tenth (every 2 of
  // 20; under sync a round is an iteration).
  const std::regex line(R"(round (\d+)  iteration (\d+)/20  t [0-9.]+  wall [0-9.]+ s  regret [0-9.e-]+  eps [0-9.]+/50  alive 8/8(  left ~[0-9.]+ s)?\n)");
  std::vector<int> rounds, iterations;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), line);
       it != std::sregex_iterator(); ++it) {
    rounds.push_back(std::stoi((*it)[1]));
    iterations.push_back(std::stoi((*it)[2]));
  }
  CHECK(iterations == std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16, 18, 20});
  CHECK(rounds == iterations);
  CHECK(r.output.find("left ~") != std::string::npos);

  // Under a deadline, rounds outnumber iterations: the line counts both.
  const fs::path deadline = fresh_dir("progress-deadline");
  const auto d = run_fedsim("run " + faulty_fbo + " --out " + deadline.string());
  INFO(d.output);
  REQUIRE(d.exit_code == 0);
  const std::regex any(R"(round (\d+)  iteration (\d+)/10 )");
  int last_round = 0, last_iteration = 0, count = 0;
  for (auto it = std::sregex_iterator(d.output.begin(), d.output.end(), any);
       it != std::sregex_iterator(); ++it, ++count) {
    CHECK(std::stoi((*it)[2]) >= last_iteration);
    last_round = std::stoi((*it)[1]);
    last_iteration = std::stoi((*it)[2]);
  }
  CHECK(count >= 2);
  CHECK(last_round == static_cast<int>(read_rows(deadline / "rounds.csv").size()) - 1);
  CHECK(last_round > last_iteration);
}

TEST_CASE("fedsim run --driver loop: HCT prints its progress, pulls of T", "[cli][run][progress][xarmed]") {
  const fs::path dir = fresh_dir("progress-hct");
  const auto r = run_fedsim("run " + (scenarios / "papers" / "hct-garland.toml").string() +
                            " --set algorithm.budget=1000 --driver loop --out " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::regex line(R"(pulls (\d+)/1000  wall [0-9.]+ s  regret R\(t\) ([0-9.e+-]+)(  left ~[0-9.]+ s)?\n)");
  std::vector<int> pulls;
  double last = 0.0;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), line);
       it != std::sregex_iterator(); ++it) {
    pulls.push_back(std::stoi((*it)[1]));
    last = std::stod((*it)[2]);
  }
  CHECK(pulls == std::vector<int>{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000});
  // The last line's regret is the run's R(T).
  const json summary = json::parse(fedsim::test::slurp(dir / "summary.json"));
  CHECK(last == Approx(summary["average_cumulative_regret_per_client"].get<double>()).epsilon(1e-3));
}
