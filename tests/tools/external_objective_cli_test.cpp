// The shipped external-objective scenarios end to end (issue 11 item 4): the command objective
// and the same function behind a loopback TCP service write the same records for the same
// seed; workers evaluate in parallel; a service that is not there stops the run at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
using fedsim::test::fresh_dir;
using fedsim::test::run_fedsim;
using fedsim::test::run_shell;
using fedsim::test::slurp;

namespace {
const fs::path scenarios = FEDSIM_SCENARIO_DIR;
const fs::path examples = scenarios.parent_path() / "examples" / "objectives";

/// examples/objectives/quadratic_service.py on a free loopback port, stopped when destroyed.
class Service {
 public:
  explicit Service(const fs::path& dir) {
    const fs::path port_file = dir / "port", pid_file = dir / "pid";
    run_shell(fedsim::test::python_interpreter() + " " + (examples / "quadratic_service.py").string() +
              " --port 0 > " + port_file.string() + " 2> " + (dir / "service.log").string() +
              " & echo $! > " + pid_file.string());
    for (int k = 0; k < 200 && port_.empty(); ++k) {  // up to 10 s for Python to start
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::ifstream in(port_file);
      std::string line;
      if (std::getline(in, line) && !line.empty() && line.back() != ' ') port_ = line;
    }
    pid_ = slurp(pid_file);
    pid_.erase(std::remove(pid_.begin(), pid_.end(), '\n'), pid_.end());
    // The service prints the port as its first line (or "... PORT": keep the digits at the end).
    const auto digits = port_.find_last_not_of("0123456789");
    if (digits != std::string::npos) port_ = port_.substr(digits + 1);
  }
  ~Service() {
    if (!pid_.empty()) run_shell("kill " + pid_);
  }
  const std::string& port() const { return port_; }

 private:
  std::string port_, pid_;
};
}  // namespace

TEST_CASE("the tcp objective writes the records of the same command objective, seed for seed",
          "[cli][external]") {
  const fs::path dir = fresh_dir("external-cli");
  const fs::path command = dir / "command", tcp = dir / "tcp";
  fs::create_directories(dir);
  auto r = run_fedsim("run " + (scenarios / "objectives" / "command-quadratic.toml").string() +
                      " --quiet --out " + command.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  Service service(dir);
  REQUIRE_FALSE(service.port().empty());
  r = run_fedsim("run " + (scenarios / "objectives" / "tcp-quadratic.toml").string() +
                 " --set 'world.objective.address=\"127.0.0.1:" + service.port() +
                 "\"' --quiet --out " + tcp.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* file : {"observations.csv", "rounds.csv", "events.jsonl"}) {
    INFO(file);
    CHECK(slurp(command / file) == slurp(tcp / file));
  }
  // DP-FTS-DE on the 2-D box: every coordinate recorded, inside the box [-1, 1]^2.
  const auto rows = fedsim::test::read_table(command / "observations.csv");
  REQUIRE(rows.size() == 8u * (3 + 10));
  for (const auto& row : rows) {
    for (const char* x : {"x0", "x1"}) {
      CHECK(std::stod(row.at(x)) >= -1.0);
      CHECK(std::stod(row.at(x)) <= 1.0);
    }
    CHECK(std::stod(row.at("f")) <= 0.0);  // f = -|x - 0.3|^2
  }
  const auto summary = nlohmann::json::parse(slurp(command / "summary.json"));
  CHECK(summary["algorithm"] == "dp-fts-de");
  CHECK(summary["failed_evaluations"] == 0);
  CHECK(summary["mean_best_observed"].get<double>() > -0.1);
  CHECK(fs::exists(command / "workers" / "worker-0.log"));
  CHECK(fedsim::test::read_table(command / "evaluation_times.csv").size() == rows.size());
}

TEST_CASE("a tcp objective whose service is not running stops the run at once, saying so",
          "[cli][external]") {
  const fs::path dir = fresh_dir("external-cli-absent");
  // A port nothing listens on: bind one, note it, close it.
  const auto port = run_shell(fedsim::test::python_interpreter() +
                              " -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); "
                              "print(s.getsockname()[1])'");
  const auto r = run_fedsim("run " + (scenarios / "objectives" / "tcp-quadratic.toml").string() +
                            " --set 'world.objective.address=\"127.0.0.1:" +
                            port.output.substr(0, port.output.find('\n')) + "\"' --quiet --out " +
                            (dir / "out").string());
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("connect_failed") != std::string::npos);
  CHECK(r.output.find("is the service running?") != std::string::npos);
}

TEST_CASE("workers evaluate in parallel: 8 agents on 4 workers keep 4 evaluations running",
          "[cli][external]") {
  const fs::path dir = fresh_dir("external-cli-parallel");
  fs::create_directories(dir);
  // A worker that takes 0.3 s per evaluation and logs when each began and ended.
  {
    std::ofstream w(dir / "slow.py");
    w << "import json, sys, time\n"
         "for line in sys.stdin:\n"
         "    r = json.loads(line)\n"
         "    t0 = time.time(); time.sleep(0.3); t1 = time.time()\n"
         "    print(f'{t0} {t1}', file=sys.stderr, flush=True)\n"
         "    print(json.dumps({'id': r['id'], 'y': -sum((v - 0.5) ** 2 for v in r['x'])}), "
         "flush=True)\n";
  }
  {
    std::ofstream s(dir / "slow.toml");
    s << "name = \"slow\"\n[world]\nagents = 8\n[world.objective]\nkind = \"command\"\n"
         "command = [\""
      << fedsim::test::python_interpreter()
      << "\", \"./slow.py\"]\ndimension = 2\nworkers = 4\n"
         "[algorithm]\nname = \"fts-de\"\niterations = 2\nn_init = 1\nfeatures = 20\n"
         "kernel_lengthscale = 0.2\nacquisition_candidates = 100\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_fedsim("run " + (dir / "slow.toml").string() + " --quiet --out " +
                            (dir / "out").string());
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // 24 evaluations of 0.3 s: 7.2 s one at a time, about 1.8 s four at a time.
  WARN("24 evaluations of 0.3 s on 4 workers took " << wall << " s of wall time");
  std::vector<std::pair<double, int>> edges;  // (time, +1 begin / -1 end)
  for (const auto& e : fs::directory_iterator(dir / "out" / "workers"))
    for (const std::string& line : fedsim::test::read_lines(e.path())) {
      const auto space = line.find(' ');
      if (space == std::string::npos) continue;
      edges.emplace_back(std::stod(line.substr(0, space)), +1);
      edges.emplace_back(std::stod(line.substr(space + 1)), -1);
    }
  REQUIRE(edges.size() == 2u * 24);
  std::sort(edges.begin(), edges.end());  // an end before a begin at the same instant
  int running = 0, most = 0;
  for (const auto& [t, d] : edges) most = std::max(most, running += d);
  CHECK(most == 4);
}
