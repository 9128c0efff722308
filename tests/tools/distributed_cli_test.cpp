// `fedsim serve` + `fedsim agents` end to end (docs/distributed.md): real processes on loopback
// (127.0.0.1 only), started with Boost.Process, every wait bounded, every child SIGKILLed when
// its test ends early. Virtual time: the records of `fedsim run` byte for byte, and a lost agent
// process ends the run naming the agent. Wall-clock time: a killed agent process is a crash the
// run survives under sync, deadline and async. Joins: timeouts, a wrong secret, an unreachable
// server, a lost server; bad input is one line and exit code 2.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <catch2/catch.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_files.hpp"
#include "tests/tools/run_command.hpp"

namespace fs = std::filesystem;
namespace bp = boost::process;
using fedsim::test::fresh_dir;
using fedsim::test::read_table;
using fedsim::test::slurp;
using Args = std::vector<std::string>;

namespace {

const fs::path scenarios = FEDSIM_SCENARIO_DIR;
const std::string tiny = (scenarios / "tiny.toml").string();
const std::string deadline = (scenarios / "stragglers" / "deadline.toml").string();
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void pause_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

/// One `fedsim ARGS` process, its stdout and stderr together in `log`. SIGKILLed (and reaped)
/// when destroyed while still running, so a failed REQUIRE leaves nothing behind; and SIGKILLed
/// by the kernel if this test process dies first (ctest's timeout kills it without unwinding).
class Fedsim {
 public:
  /// `max_files` > 0: the child's file-descriptor limit (RLIMIT_NOFILE), as `ulimit -n`.
  Fedsim(const Args& args, const fs::path& log, rlim_t max_files = 0) : log_(log) {
    std::ofstream(log_).flush();  // exists (empty) before the child writes
    child_ = std::make_unique<bp::child>(
        bp::exe = fedsim::test::fedsim_binary(), bp::args = args,
        (bp::std_out & bp::std_err) > log_.string(), bp::std_in < bp::null,
        bp::extend::on_exec_setup = [max_files](auto&) {
          ::prctl(PR_SET_PDEATHSIG, SIGKILL);
          if (max_files > 0) {
            const rlimit files{max_files, max_files};
            ::setrlimit(RLIMIT_NOFILE, &files);
          }
        });
  }
  Fedsim(const Fedsim&) = delete;
  Fedsim& operator=(const Fedsim&) = delete;
  ~Fedsim() { kill(); }

  bool running() {
    if (done_) return false;
    std::error_code ec;
    if (child_->running(ec)) return true;
    done_ = true;
    status_ = child_->native_exit_code();
    return false;
  }
  /// True once it has exited, false if still running after `seconds`.
  bool wait(double seconds) {
    const auto t0 = Clock::now();
    while (running()) {
      if (seconds_since(t0) >= seconds) return false;
      pause_ms(20);
    }
    return true;
  }
  /// Its exit code; -1 when it did not exit (killed by a signal, or still running).
  int exit_code() {
    if (running()) return -1;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }
  bool killed_by(int signal) {
    return !running() && WIFSIGNALED(status_) && WTERMSIG(status_) == signal;
  }
  std::string output() const { return slurp(log_); }
  /// Waits until its output holds `needle`; false if it exited first or `seconds` went by.
  bool wait_for_output(const std::string& needle, double seconds) {
    const auto t0 = Clock::now();
    for (;;) {
      if (output().find(needle) != std::string::npos) return true;
      if (!running()) return output().find(needle) != std::string::npos;
      if (seconds_since(t0) >= seconds) return false;
      pause_ms(20);
    }
  }
  /// SIGKILL, then reap it.
  void kill() {
    if (!running()) return;
    ::kill(child_->id(), SIGKILL);
    wait(10);
  }

 private:
  fs::path log_;
  std::unique_ptr<bp::child> child_;
  bool done_ = false;
  int status_ = 0;
};

struct Result {
  int exit_code;  ///< -1: killed (after the timeout)
  std::string output;
  double seconds;
};

/// `fedsim ARGS` to its end, or SIGKILLed after `timeout` seconds (then REQUIRE fails).
Result run(const Args& args, const fs::path& dir, const std::string& name, double timeout = 20) {
  fs::create_directories(dir);
  const auto t0 = Clock::now();
  Fedsim p(args, dir / (name + ".log"));
  const bool exited = p.wait(timeout);
  Result r{p.exit_code(), p.output(), seconds_since(t0)};
  INFO(name << ": " << r.output);
  REQUIRE(exited);
  return r;
}

std::size_t count_lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

/// A usage error: exit code 2, one line "fedsim: error: ..." naming `what`.
void check_usage_error(const Result& r, const std::string& what) {
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.rfind("fedsim: error: ", 0) == 0);
  CHECK(count_lines(r.output) == 1);
  CHECK(r.output.find(what) != std::string::npos);
}

/// A secret file of 64 random hex digits (as `openssl rand -hex 32` writes).
fs::path write_secret(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::random_device rd;
  std::ofstream out(file);
  for (int k = 0; k < 64; ++k) out << "0123456789abcdef"[rd() % 16];
  out << "\n";
  return file;
}

/// The port `fedsim serve` wrote to its --port-file (it renames the file in whole).
std::string wait_for_port(Fedsim& serve, const fs::path& port_file, double seconds = 15) {
  const auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
    std::string text = slurp(port_file);
    text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());
    if (!text.empty() && std::all_of(text.begin(), text.end(), ::isdigit)) return text;
    if (!serve.running()) break;
    pause_ms(20);
  }
  INFO(serve.output());
  FAIL("fedsim serve wrote no port to " << port_file);
  return {};
}

/// `fedsim serve SCENARIO` on 127.0.0.1, any free port (written to dir/port), writing dir/served.
Args serve_args(const std::string& scenario, const fs::path& dir, const fs::path& secret,
                const Args& extra = {}) {
  Args a{"serve",         scenario,
         "--listen",      "127.0.0.1:0",
         "--port-file",   (dir / "port").string(),
         "--secret-file", secret.string(),
         "--out",         (dir / "served").string()};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

/// `fedsim agents` for `ids` of the server on 127.0.0.1:port.
Args agents_args(const std::string& port, const fs::path& secret, const std::string& ids,
                 const fs::path& dir, const Args& extra = {}) {
  Args a{"agents",
         "--connect",
         "127.0.0.1:" + port,
         "--secret-file",
         secret.string(),
         "--ids",
         ids,
         "--out",
         (dir / ("agents-" + ids)).string()};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

Args with_sets(Args args, const Args& sets) {
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

/// A loopback port that refuses connections: bound (so nobody else takes it) but not listening.
class ClosedPort {
 public:
  ClosedPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t n = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n) != 0)
      throw std::runtime_error("cannot bind a loopback port");
    port_ = std::to_string(ntohs(a.sin_port));
  }
  ~ClosedPort() {
    if (fd_ >= 0) ::close(fd_);
  }
  const std::string& port() const { return port_; }

 private:
  int fd_ = -1;
  std::string port_;
};

/// "0-9,12" -> its ids.
std::set<int> parse_ids(const std::string& list) {
  std::set<int> ids;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, comma - at);
    const std::size_t dash = item.find('-');
    const int lo = std::stoi(item.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(item.substr(dash + 1));
    for (int i = lo; i <= hi; ++i) ids.insert(i);
    at = comma + 1;
  }
  return ids;
}

/// The agent ids a failed virtual-time serve names as lost: "agent 17: its process (node ...)
/// was lost" or "agents 0-14: the process hosting them (node ...) was lost".
std::set<int> lost_ids_named(const std::string& output) {
  std::set<int> ids;
  static const std::regex line(
      R"(agents? ([0-9][0-9,-]*): (its process|the process hosting them) [^\n]*was lost)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), line);
       it != std::sregex_iterator(); ++it)
    for (int id : parse_ids((*it)[1])) ids.insert(id);
  return ids;
}

}  // namespace

TEST_CASE("a served run in virtual time writes the records of fedsim run, byte for byte",
          "[cli][remote]") {
  const auto t0 = Clock::now();
  const fs::path dir = fresh_dir("remote-identity");
  const fs::path secret = write_secret(dir / "secret");
  // The straggler world shrunk: 30 agents, 8 iterations, 5% of the messages lost, 20% of the
  // agents crashing for good at t = 20 s (the run ends after it), deadline policy.
  const Args sets{"world.agents=30", "algorithm.iterations=8", "world.network.drop=0.05"};
  const Result local = run(
      with_sets({"run", deadline, "--quiet", "--out", (dir / "local").string()}, sets), dir, "run");
  INFO(local.output);
  REQUIRE(local.exit_code == 0);

  Fedsim serve(
      with_sets(serve_args(deadline, dir, secret, {"--quiet", "--join-timeout", "30"}), sets),
      dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  std::vector<std::unique_ptr<Fedsim>> agents;
  for (const char* ids : {"0-2", "3-19", "20-29"})
    agents.push_back(std::make_unique<Fedsim>(agents_args(port, secret, ids, dir, {"--quiet"}),
                                              dir / (std::string("agents-") + ids + ".log")));
  const bool served = serve.wait(60);
  INFO(serve.output());
  REQUIRE(served);
  CHECK(serve.exit_code() == 0);
  for (auto& a : agents) {
    INFO(a->output());
    REQUIRE(a->wait(15));
    CHECK(a->exit_code() == 0);
  }
  for (const char* file : {"observations.csv", "rounds.csv", "events.jsonl"}) {
    const auto expected = fedsim::test::read_lines(dir / "local" / file);
    const auto served_lines = fedsim::test::read_lines(dir / "served" / file);
    std::size_t line = 0;  // the first line that differs (not the files, which can be long)
    while (line < expected.size() && line < served_lines.size() &&
           expected[line] == served_lines[line])
      ++line;
    INFO(file << ": fedsim run wrote " << expected.size() << " lines, fedsim serve "
              << served_lines.size() << "; first difference at line " << line + 1 << ": "
              << (line < expected.size() ? expected[line] : "(end)") << " | "
              << (line < served_lines.size() ? served_lines[line] : "(end)"));
    CHECK(!expected.empty());
    const bool identical = slurp(dir / "served" / file) == slurp(dir / "local" / file);
    CHECK(identical);
  }
  // The run has what it claims: lost messages and crashed agents.
  const std::string events = slurp(dir / "local" / "events.jsonl");
  CHECK(events.find(R"("reason":"lost")") != std::string::npos);
  CHECK(events.find(R"("reason":"recipient down")") != std::string::npos);
  const auto summary = nlohmann::json::parse(slurp(dir / "served" / "summary.json"));
  CHECK(summary["completed"] == true);
  CHECK(summary["policy"] == "deadline");
  CHECK(summary["remote"]["joins"] == 3);
  CHECK(summary["remote"]["lost_agents"].empty());
  CHECK(summary["remote"]["refused_joins"].empty());
  CHECK(summary["remote"]["dropped_messages"].empty());
  WARN("byte identity (fedsim run + serve with 3 agent processes): " << seconds_since(t0) << " s");
}

TEST_CASE("fedsim serve gives up after --join-timeout naming the ids that did not join",
          "[cli][remote]") {
  const auto t0 = Clock::now();
  const fs::path dir = fresh_dir("remote-join-timeout");
  const fs::path none = dir / "none", some = dir / "some";
  const fs::path secret = write_secret(dir / "secret");
  // Both servers wait at once.
  Fedsim alone(serve_args(tiny, none, secret, {"--quiet", "--join-timeout", "2"}),
               dir / "alone.log");
  // 3 s: time enough for agents 0-1 to join on a loaded machine.
  Fedsim partial(
      serve_args(tiny, some, secret, {"--quiet", "--join-timeout", "3", "--set", "world.agents=4"}),
      dir / "partial.log");
  const std::string port = wait_for_port(partial, some / "port");
  Fedsim agents(agents_args(port, secret, "0-1", dir, {"--quiet"}), dir / "agents.log");

  REQUIRE(alone.wait(20));
  {
    const std::string out = alone.output();
    INFO(out);
    CHECK(alone.exit_code() == 1);
    CHECK(count_lines(out) == 1);
    CHECK(out.rfind("fedsim: failed: ", 0) == 0);
    CHECK(out.find("no agent joined within the join timeout (2 s)") != std::string::npos);
    CHECK_FALSE(fs::exists(none / "served" / "summary.json"));
  }
  REQUIRE(partial.wait(20));
  {
    const std::string out = partial.output();
    INFO(out);
    CHECK(partial.exit_code() == 1);
    CHECK(count_lines(out) == 1);
    CHECK(out.rfind("fedsim: failed: ", 0) == 0);
    CHECK(out.find("agents 2-3 of 4 did not join within the join timeout (3 s)") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(some / "served" / "summary.json"));
  }
  // The agents that did join are stopped with the server's reason (they must not wait for a
  // run, nor say it went well).
  INFO(agents.output());
  REQUIRE(agents.wait(10));
  CHECK(agents.exit_code() == 1);
  CHECK(agents.output().find("the server gave up: agents 2-3 of 4 did not join") != std::string::npos);
  WARN("join timeouts: " << seconds_since(t0) << " s");
}

TEST_CASE("bad serve and agents input is one line and exit code 2", "[cli][remote]") {
  const fs::path dir = fresh_dir("remote-bad-input");
  const fs::path secret = write_secret(dir / "secret");
  const fs::path short_secret = dir / "short";
  std::ofstream(short_secret) << "only15bytes....\n";  // 15 bytes and the newline
  const std::string out = (dir / "out").string();
  const Args listen{"--listen", "127.0.0.1:0", "--join-timeout", "5", "--quiet", "--out", out};
  auto serve = [&](Args a) {
    Args all{"serve"};
    all.insert(all.end(), a.begin(), a.end());
    return all;
  };
  auto concat = [](Args a, const Args& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };

  check_usage_error(run(serve(concat({tiny}, listen)), dir, "no-secret"), "--secret-file");
  check_usage_error(
      run(serve(concat({tiny, "--secret-file", short_secret.string()}, listen)), dir, "short"),
      "15 bytes, at least 16 needed");
  check_usage_error(run(serve({tiny, "--listen", "garbage", "--secret-file", secret.string(),
                               "--join-timeout", "5", "--quiet", "--out", out}),
                        dir, "listen"),
                    "--listen 'garbage'");
  check_usage_error(run(serve(concat({(scenarios / "xarmed" / "garland.toml").string(),
                                      "--secret-file", secret.string()},
                                     listen)),
                        dir, "fed-pne"),
                    "Fed-PNE");
  CHECK_FALSE(fs::exists(fs::path(out) / "summary.json"));
  CHECK_FALSE(fs::exists(fs::path(out) / "config.resolved.toml"));

  const Args agents{"agents", "--secret-file", secret.string(), "--connect-timeout",
                    "1",      "--quiet",       "--out",         (dir / "agents").string()};
  check_usage_error(
      run(concat(agents, {"--connect", "127.0.0.1:4242", "--ids", "5-3"}), dir, "ids"),
      "range '5-3' is empty");
  check_usage_error(run(concat(agents, {"--connect", "127.0.0.1:0", "--ids", "0-3"}), dir, "port0"),
                    "port 0");
  check_usage_error(run({"agents", "--connect", "127.0.0.1:4242", "--ids", "0-3", "--secret-file",
                         short_secret.string(), "--quiet", "--out", (dir / "agents").string()},
                        dir, "agents-short"),
                    "15 bytes, at least 16 needed");
}

TEST_CASE("a server out of file descriptors closes new connections as it accepts them, and recovers",
          "[cli][remote][security]") {
  if (fedsim::test::under_sanitizer()) {
    // UBSan probes memory through a pipe of its own; a process with no descriptor left cannot
    // make one, and UBSan then reports a false "invalid vptr" in the first log line.
    WARN("not under the sanitizers: they need file descriptors of their own");
    return;
  }
  const fs::path dir = fresh_dir("remote-no-files");
  const fs::path secret = write_secret(dir / "secret");
  // 64 descriptors: the run's own files and CAF's take some, the held connections the rest.
  Fedsim serve(serve_args(tiny, dir, secret, {"--join-timeout", "60", "--auth-timeout", "60"}),
               dir / "serve.log", 64);
  const std::string port = wait_for_port(serve, dir / "port");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(port)));
  auto connect_one = [&] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);  // the kernel's backlog
    return fd;
  };
  /// Whether the server closed `fd` within `ms` (its handshake bytes read and dropped).
  auto closed_within = [](int fd, int ms) {
    const auto t0 = Clock::now();
    char buf[1024];
    while (seconds_since(t0) * 1000 < ms) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      if (::recv(fd, buf, sizeof buf, 0) <= 0) return true;
    }
    return false;
  };
  // Hold connections (not yet joined, so each keeps a descriptor of the server's) until one is
  // closed as soon as it is accepted: the server has no descriptor left.
  std::vector<int> held;
  bool refused = false;
  for (int k = 0; k < 70 && !refused; ++k) {
    held.push_back(connect_one());
    refused = closed_within(held.back(), 300);
  }
  INFO(serve.output());
  REQUIRE(refused);
  CHECK(serve.running());
  // Further connections are closed too (not left queued while the server spins on accept).
  for (int k = 0; k < 3; ++k) {
    const int fd = connect_one();
    CHECK(closed_within(fd, 2000));
    ::close(fd);
  }
  // Descriptors freed, the agents join and the run completes.
  for (int fd : held) ::close(fd);
  Fedsim agents(agents_args(port, secret, "0-7", dir, {"--quiet"}), dir / "agents.log");
  REQUIRE(serve.wait(60));
  INFO(agents.output());
  CHECK(serve.exit_code() == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "served" / "summary.json"));
  CHECK(summary["remote"]["closed_connections"]["no file descriptor left"].get<int>() >= 4);
  CHECK(summary["remote"]["connections"].get<int>() >= 5);
}

TEST_CASE("an agent process whose evaluations all fail stops the served run with exit 3, naming "
          "the agent", "[cli][remote][no-progress]") {
  const fs::path dir = fresh_dir("remote-breaker");
  const fs::path secret = write_secret(dir / "secret");
  fs::create_directories(dir);
  std::ofstream(dir / "worker.py") << "import sys\nsys.exit(1)\n";  // every evaluation fails
  std::ofstream(dir / "run.toml")
      << "name = \"remote-breaker\"\n[world]\nagents = 2\n[world.objective]\nkind = \"command\"\n"
      << "command = [\"" << fedsim::test::python_interpreter() << "\", \"" << (dir / "worker.py").string()
      << "\"]\ndimension = 2\nworkers = 2\n[algorithm]\nname = \"fts-de\"\niterations = 3\n"
         "n_init = 3\nfeatures = 20\nacquisition_candidates = 100\n";
  Fedsim serve(serve_args((dir / "run.toml").string(), dir, secret, {"--join-timeout", "30"}),
               dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  Fedsim agents(agents_args(port, secret, "0-1", dir, {"--quiet"}), dir / "agents.log");
  REQUIRE(serve.wait(60));
  INFO(serve.output() << agents.output());
  CHECK(serve.exit_code() == 3);
  CHECK(serve.output().find("fedsim: run did not complete: agent ") != std::string::npos);
  CHECK(serve.output().find("evaluations in a row failed") != std::string::npos);
  const auto summary = nlohmann::json::parse(slurp(dir / "served" / "summary.json"));
  CHECK(summary["completed"] == false);
  CHECK(summary["remote"]["dropped_messages"].empty());
}

TEST_CASE("agents with a wrong secret or ids are refused (exit 2) and the server keeps waiting "
          "for the right ones", "[cli][remote]") {
  const auto t0 = Clock::now();
  const fs::path dir = fresh_dir("remote-wrong-secret");
  const fs::path secret = write_secret(dir / "secret"), wrong = write_secret(dir / "wrong");
  Fedsim serve(serve_args(tiny, dir, secret, {"--quiet", "--join-timeout", "30"}),
               dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  // A refused join is a mistake in how the agents were started: a usage error, one line
  // naming the server's reason and the option to fix.
  const auto check_refused = [&](const Result& refused, const std::string& ids,
                                 const std::string& why) {
    INFO(refused.output);
    CHECK(refused.exit_code == 2);
    CHECK(count_lines(refused.output) == 1);
    CHECK(refused.output.rfind("fedsim: error: the server at 127.0.0.1:" + port +
                                   " refused the join of agents " + ids + ": " + why,
                               0) == 0);
  };
  check_refused(run(agents_args(port, wrong, "0-7", dir, {"--quiet"}), dir, "wrong"), "0-7",
                "wrong secret (--secret-file must hold the same secret as fedsim serve's "
                "--secret-file)");
  check_refused(run(agents_args(port, secret, "0-9", dir, {"--quiet"}), dir, "outside"), "0-9",
                "ids outside 0-7 (--ids: ids below the run's world.agents, each hosted by one "
                "agents process)");
  pause_ms(300);
  REQUIRE(serve.running());  // still waiting
  const Result joined = run(agents_args(port, secret, "0-7", dir, {"--quiet"}), dir, "right");
  INFO(joined.output);
  CHECK(joined.exit_code == 0);
  REQUIRE(serve.wait(20));
  INFO(serve.output());
  CHECK(serve.exit_code() == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "served" / "summary.json"));
  CHECK(summary["completed"] == true);
  CHECK(summary["remote"]["joins"] == 1);
  CHECK(summary["remote"]["refused_joins"] ==
        nlohmann::json{{"wrong secret", 1}, {"ids outside 0-7", 1}});
  WARN("wrong secret then the right one: " << seconds_since(t0) << " s");
}

TEST_CASE("agents that cannot reach a server give up after --connect-timeout", "[cli][remote]") {
  const fs::path dir = fresh_dir("remote-unreachable");
  const fs::path secret = write_secret(dir / "secret");
  const ClosedPort closed;
  const Result r =
      run({"agents", "--connect", "127.0.0.1:" + closed.port(), "--secret-file", secret.string(),
           "--ids", "0-3", "--connect-timeout", "1", "--quiet", "--out", (dir / "agents").string()},
          dir, "agents", 15);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(count_lines(r.output) == 1);
  CHECK(r.output.rfind("fedsim: failed: ", 0) == 0);
  CHECK(r.output.find("cannot reach the server at 127.0.0.1:" + closed.port() + " within 1 s") !=
        std::string::npos);
  CHECK(r.seconds < 10);
}

TEST_CASE("a lost agent process ends a served run in virtual time, naming its agents, its last "
          "checkpoint resumes with new agent processes to the files of fedsim run",
          "[cli][remote]") {
  const auto t0 = Clock::now();
  const fs::path dir = fresh_dir("remote-lost-virtual");
  const fs::path secret = write_secret(dir / "secret");
  // About 6 s distributed if nothing is lost (0.3 s in one process): 60 rounds.
  const Args sets{"world.agents=60", "algorithm.iterations=60"};
  Fedsim serve(with_sets(serve_args(deadline, dir, secret,
                                    {"--join-timeout", "30", "--checkpoint-every", "2"}),
                         sets),
               dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  Fedsim doomed(agents_args(port, secret, "0-14", dir, {"--quiet"}), dir / "doomed.log");
  Fedsim survivor(agents_args(port, secret, "15-59", dir, {"--quiet"}), dir / "survivor.log");
  // Mid-run: the agents are 6 iterations in (the server prints a line per tenth of them).
  {
    INFO(serve.output());
    REQUIRE(serve.wait_for_output("  iteration 6/60  t ", 60));
  }
  doomed.kill();
  const auto killed = Clock::now();
  const bool ended = serve.wait(20);
  const std::string out = serve.output();
  INFO(out);
  REQUIRE(ended);
  CHECK(serve.exit_code() == 1);
  CHECK(out.find("fedsim: failed: ") != std::string::npos);
  CHECK(out.find("a run in virtual time cannot go on without") != std::string::npos);
  const std::set<int> named = lost_ids_named(out);
  REQUIRE_FALSE(named.empty());
  for (int id : named) CHECK((id >= 0 && id <= 14));  // only agents of the killed process
  const double serve_took = seconds_since(killed);
  // The other process ends too, stopped by the server with the run's failure.
  INFO(survivor.output());
  REQUIRE(survivor.wait(15));
  CHECK(survivor.exit_code() == 1);
  CHECK(survivor.output().find("the run failed: agents ") != std::string::npos);

  // Nothing lost: the checkpoint taken before the loss resumes, served to new processes (split
  // otherwise), to the files of the same run in one process.
  CHECK(out.find("the last checkpoint is kept: continue with: fedsim serve --resume ") !=
        std::string::npos);
  REQUIRE(fs::exists(dir / "served" / "checkpoint" / "state.bin"));
  const Result local = run(
      with_sets({"run", deadline, "--quiet", "--out", (dir / "local").string()}, sets), dir, "local");
  REQUIRE(local.exit_code == 0);
  Fedsim resumed({"serve", "--resume", (dir / "served").string(), "--listen", "127.0.0.1:0",
                  "--port-file", (dir / "port2").string(), "--secret-file", secret.string(),
                  "--join-timeout", "30", "--quiet"},
                 dir / "resumed.log");
  const std::string port2 = wait_for_port(resumed, dir / "port2");
  Fedsim first(agents_args(port2, secret, "0-29", dir, {"--quiet"}), dir / "first.log");
  Fedsim second(agents_args(port2, secret, "30-59", dir, {"--quiet"}), dir / "second.log");
  REQUIRE(resumed.wait(60));
  INFO(resumed.output());
  CHECK(resumed.exit_code() == 0);
  for (const char* file : {"observations.csv", "rounds.csv", "events.jsonl"}) {
    INFO(file);
    CHECK(slurp(dir / "served" / file) == slurp(dir / "local" / file));
  }
  CHECK_FALSE(fs::exists(dir / "served" / "checkpoint"));
  WARN("lost agent process (virtual time): the server ended "
       << serve_took
       << " s after the "
          "kill, the other agents process "
       << seconds_since(killed) << " s after; the test took " << seconds_since(t0) << " s");
}

namespace {

/// What summary.json's "remote" and rounds.csv say of a wall-clock run served to two agent
/// processes, one of them (agents 0-5) SIGKILLed mid-run. `sets` choose the policy;
/// `settle`: model seconds after the loss by which the server has presumed them dead.
void check_killed_agents_presumed_dead(const std::string& policy, const Args& sets, double settle) {
  const auto t0 = Clock::now();
  const fs::path dir = fresh_dir("remote-lost-wall-" + policy);
  const fs::path secret = write_secret(dir / "secret");
  // 20 agents, 40 iterations; a model second lasts 50 ms and each evaluation is held 1 model
  // second (injected), so a round lasts about 60 ms of wall time and the run about 3 s. No
  // loss and no crash of its own: the only agents that go are the killed process's.
  const fs::path scenario = dir / "wall.toml";
  std::ofstream(scenario) << "name = \"remote-wall-lost\"\nseed = 1\n"
                             "[run]\ntime = \"wall\"\ntime_scale = 0.05\ninjected_compute = true\n"
                             "[world]\nagents = 20\nnoise_variance = 0.01\n"
                             "[world.objective]\ngrid_size = 200\n"
                             "[world.network]\ncompute = 1.0\nuplink = 0.05\ndownlink = 0.05\n"
                             "[algorithm]\nname = \"dp-fts-de\"\niterations = 40\nn_init = 3\n"
                             "features = 10\nsubregions = 2\n"
                             "[policy]\ndead_after_missed = 3\n";
  const int agents = 20, killed = 6;  // the killed process hosts agents 0-5
  Fedsim serve(
      with_sets(serve_args(scenario.string(), dir, secret, {"--join-timeout", "30"}), sets),
      dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  Fedsim doomed(agents_args(port, secret, "0-5", dir, {"--quiet"}), dir / "doomed.log");
  Fedsim survivor(agents_args(port, secret, "6-19", dir, {"--quiet"}), dir / "survivor.log");
  {
    INFO(serve.output());
    REQUIRE(serve.wait_for_output("  iteration 8/40  t ", 20));  // a line per tenth
  }
  doomed.kill();
  const bool ended = serve.wait(30);
  const std::string out = serve.output();
  INFO(out);
  REQUIRE(ended);
  CHECK(serve.exit_code() == 0);
  {
    INFO(survivor.output());
    REQUIRE(survivor.wait(15));
    CHECK(survivor.exit_code() == 0);
  }
  REQUIRE(fs::exists(dir / "served" / "summary.json"));
  const auto summary = nlohmann::json::parse(slurp(dir / "served" / "summary.json"));
  CHECK(summary["completed"] == true);
  CHECK(summary["clock"]["time"] == "wall");
  CHECK(summary["policy"] == policy);
  // The lost agents: exactly the killed process's, each once, at a model time in the run.
  const auto& remote = summary["remote"];
  CHECK(remote["joins"] == 2);
  CHECK(remote["rejoined_agents"].empty());
  std::multiset<int> lost;
  double first_loss = INFINITY, last_loss = 0;
  for (const auto& l : remote["lost_agents"]) {
    lost.insert(l["agent"].get<int>());
    const double t = l["time"].get<double>();
    CHECK(std::isfinite(t));
    CHECK(t > 0);
    CHECK(t <= summary["virtual_time_last_event"].get<double>());
    first_loss = std::min(first_loss, t);
    last_loss = std::max(last_loss, t);
  }
  CHECK(lost == std::multiset<int>{0, 1, 2, 3, 4, 5});
  // events.jsonl: the network marked each of them lost.
  std::multiset<int> lost_events;
  for (const std::string& line : fedsim::test::read_lines(dir / "served" / "events.jsonl")) {
    if (line.find(R"("event":"lost")") == std::string::npos) continue;
    const auto e = nlohmann::json::parse(line);
    CHECK(e["reason"] == "process lost");
    lost_events.insert(e["to"].get<int>());
  }
  CHECK(lost_events == lost);
  // rounds.csv: all 20 alive at the start; once the server has presumed them dead, at most
  // the 14 survivors, and all 14 at some round (a survivor's report revives it).
  const auto rounds = read_table(dir / "served" / "rounds.csv");
  REQUIRE(!rounds.empty());
  CHECK(std::stoi(rounds.front().at("alive")) == agents);
  int most_after = -1, after = 0;
  for (const auto& r : rounds)
    if (std::stod(r.at("time")) >= last_loss + settle) {
      ++after;
      most_after = std::max(most_after, std::stoi(r.at("alive")));
    }
  INFO("rounds closed after the loss settled: " << after);
  REQUIRE(after > 0);
  CHECK(most_after == agents - killed);
  WARN("wall clock, " << policy << ": agents 0-5 lost at model time " << first_loss << ", "
                      << rounds.size() << " rounds, " << seconds_since(t0) << " s of wall time");
}

}  // namespace

// The network tells the server 1 s (model) after the loss; sync's round timeout is finite.
TEST_CASE("a killed agent process is a crash in wall-clock time: sync completes without it",
          "[cli][remote][wall-clock]") {
  check_killed_agents_presumed_dead(
      "sync", {"policy.kind=sync", "policy.round_timeout=5", "world.network.detection_delay=1"}, 3);
}

// No notice from the network: presumed dead after 3 rounds closed without them (each at most
// the 2 s deadline).
TEST_CASE("a killed agent process is a crash in wall-clock time: deadline completes without it",
          "[cli][remote][wall-clock]") {
  check_killed_agents_presumed_dead(
      "deadline",
      {"policy.kind=deadline", "policy.deadline=2", "world.network.detection_delay=inf"}, 9);
}

TEST_CASE("a killed agent process is a crash in wall-clock time: async completes without it",
          "[cli][remote][wall-clock]") {
  check_killed_agents_presumed_dead(
      "async", {"policy.kind=async", "policy.async_every=5", "world.network.detection_delay=1"}, 3);
}

TEST_CASE("agents whose server is killed stop within seconds, saying they lost it",
          "[cli][remote]") {
  const auto t0 = Clock::now();
  const fs::path dir = fresh_dir("remote-server-lost");
  const fs::path secret = write_secret(dir / "secret");
  const Args sets{"world.agents=60", "algorithm.iterations=60"};
  Fedsim serve(with_sets(serve_args(deadline, dir, secret, {"--join-timeout", "30"}), sets),
               dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  Fedsim agents(agents_args(port, secret, "0-59", dir, {"--quiet"}), dir / "agents.log");
  {
    INFO(serve.output());
    REQUIRE(serve.wait_for_output("  iteration 6/60  t ", 60));
  }
  serve.kill();
  CHECK(serve.killed_by(SIGKILL));
  const auto killed = Clock::now();
  const bool ended = agents.wait(15);
  const double took = seconds_since(killed);
  INFO(agents.output());
  REQUIRE(ended);
  CHECK(agents.exit_code() == 1);
  CHECK(agents.output().find("fedsim: failed: lost the server at 127.0.0.1:" + port) !=
        std::string::npos);
  CHECK(took < 8);
  WARN("server killed: the agents process exited " << took << " s later; the test took "
                                                   << seconds_since(t0) << " s");
}

// Wall-clock time: an agent process started again with the killed one's ids joins again, and
// its agents recover with their state lost (issue 13: a crash-recover).
TEST_CASE("a killed agent process started again rejoins a wall-clock run as recovered agents",
          "[cli][remote][wall-clock]") {
  const fs::path dir = fresh_dir("remote-rejoin");
  const fs::path secret = write_secret(dir / "secret");
  const fs::path scenario = dir / "wall.toml";
  std::ofstream(scenario) << "name = \"remote-wall-rejoin\"\nseed = 1\n"
                             "[run]\ntime = \"wall\"\ntime_scale = 0.05\ninjected_compute = true\n"
                             "[world]\nagents = 20\nnoise_variance = 0.01\n"
                             "[world.objective]\ngrid_size = 200\n"
                             "[world.network]\ncompute = 1.0\nuplink = 0.05\ndownlink = 0.05\n"
                             "detection_delay = 1\n"
                             "[algorithm]\nname = \"dp-fts-de\"\niterations = 40\nn_init = 3\n"
                             "features = 10\nsubregions = 2\n"
                             "[policy]\nkind = \"deadline\"\ndeadline = 2\ndead_after_missed = 3\n";
  Fedsim serve(serve_args(scenario.string(), dir, secret, {"--join-timeout", "30"}),
               dir / "serve.log");
  const std::string port = wait_for_port(serve, dir / "port");
  Fedsim doomed(agents_args(port, secret, "0-5", dir, {"--quiet"}), dir / "doomed.log");
  Fedsim survivor(agents_args(port, secret, "6-19", dir, {"--quiet"}), dir / "survivor.log");
  {
    INFO(serve.output());
    REQUIRE(serve.wait_for_output("  iteration 8/40  t ", 20));
  }
  doomed.kill();
  {
    INFO(serve.output());
    REQUIRE(serve.wait_for_output("agents 0-5 lost", 15));  // the server's one warning
  }
  Fedsim again(agents_args(port, secret, "0-5", dir, {"--quiet"}), dir / "again.log");
  const bool ended = serve.wait(40);
  INFO(serve.output());
  REQUIRE(ended);
  CHECK(serve.exit_code() == 0);
  REQUIRE(again.wait(15));
  CHECK(again.exit_code() == 0);
  REQUIRE(survivor.wait(15));
  CHECK(survivor.exit_code() == 0);
  const auto summary = nlohmann::json::parse(slurp(dir / "served" / "summary.json"));
  CHECK(summary["completed"] == true);
  const auto& remote = summary["remote"];
  CHECK(remote["joins"] == 3);
  std::multiset<int> lost, rejoined;
  for (const auto& l : remote["lost_agents"]) lost.insert(l["agent"].get<int>());
  for (const auto& r : remote["rejoined_agents"]) rejoined.insert(r.get<int>());
  CHECK(lost == std::multiset<int>{0, 1, 2, 3, 4, 5});
  CHECK(rejoined == lost);
  int rejoin_events = 0;
  for (const std::string& line : fedsim::test::read_lines(dir / "served" / "events.jsonl"))
    if (line.find(R"("event":"rejoin")") != std::string::npos) ++rejoin_events;
  CHECK(rejoin_events == 6);
  // The recovered agents observed again after their rejoin: observations of agent 0 at model
  // times after its loss.
  double lost_at = INFINITY;
  for (const auto& l : remote["lost_agents"]) lost_at = std::min(lost_at, l["time"].get<double>());
  int after = 0;
  for (const auto& row : read_table(dir / "served" / "observations.csv"))
    if (row.at("agent") == "0" && std::stod(row.at("time")) > lost_at) ++after;
  CHECK(after > 0);
}
