// Benchmark: what serving a run's agents to other processes costs (fedsim serve + fedsim agents,
// actors/remote/serve.hpp), in virtual time, on loopback. The same scenario runs in-process
// (`fedsim run`) and served to 1, 2 and 4 `fedsim agents` processes (the ids split evenly), each
// as whole fedsim processes started here; per mode it prints the run's own wall time (summary.json
// "wall_time_s", from the start of the run to its end: for serve that includes the agents
// joining), the whole commands' wall time (first process started to last one exited),
// agent-iterations per second (agents x iterations / the run's wall time) and its ratio to
// in-process, measured in this same run, and the added cost per message: (served wall -
// in-process wall) / messages sent. Every served run's records must be those of `fedsim run`
// byte for byte (observations.csv, rounds.csv, events.jsonl): a line says so when they are not.
// Modes alternate within a repeat, so a load on the shared machine hits all of them; times are
// medians of the repeats. Nothing is asserted on time. With --json FILE it also writes the
// measurements and their circumstances (version, commit, date, machine, load, build) as JSON:
// docs/bench-distributed.json, which tools/reproduce --bench writes and tools/results_page.py
// renders on docs/results.md.
// Release build, with the fedsim binary next to this one (or --fedsim PATH):
//   cmake --build build --target fedsim bench_distributed
//   build/tools/bench_distributed [--agents N] [--iterations T] [--repeats R] [--processes K ...]
//                                 [--threads T] [--scenario FILE] [--fedsim PATH] [--json FILE]
// (defaults: scenarios/stragglers/deadline.toml shrunk to N = 100, T = 20; 3 repeats; 1, 2 and 4
// agent processes; each process with CAF's default scheduler threads).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/bench/circumstances.hpp"

extern char** environ;

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int agents = 100;
  int iterations = 20;
  int repeats = 3;
  int threads = 0;  // --threads of every fedsim process; 0: each command's default (CAF's)
  std::vector<int> processes;
  std::string scenario = std::string(FEDSIM_SOURCE_DIR) + "/scenarios/stragglers/deadline.toml";
  std::string fedsim;
  double timeout = 600;  // seconds one run may take before it is killed
  std::string json_out;  // --json FILE: the measurements as JSON ("" : none)
};

/// The fedsim binary built with this benchmark: next to it (build/tools/).
std::string default_fedsim() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "fedsim" : (self.parent_path() / "fedsim").string();
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Starts `args` (args[0] the binary) with stdout and stderr appended to `log`.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    std::fprintf(stderr, "cannot start %s: %s\n", argv[0], std::strerror(rc));
    std::exit(1);
  }
  return pid;
}

/// Waits for every process of `pids` until `deadline`; kills (SIGKILL, by pid) those still
/// running then. Returns "" when all exited with status 0, else what went wrong.
std::string wait_all(std::vector<pid_t> pids, Clock::time_point deadline) {
  std::string problem;
  while (!pids.empty()) {
    for (auto it = pids.begin(); it != pids.end();) {
      int status = 0;
      const pid_t r = waitpid(*it, &status, WNOHANG);
      if (r == 0) {
        ++it;
        continue;
      }
      if (r == *it && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        problem += " pid " + std::to_string(*it) + " exited with status " +
                   std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                   ";";
      it = pids.erase(it);
    }
    if (pids.empty()) break;
    if (Clock::now() > deadline) {
      for (pid_t p : pids) {
        kill(p, SIGKILL);
        waitpid(p, nullptr, 0);
      }
      return problem + " timed out (killed " + std::to_string(pids.size()) + " processes)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return problem;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail(const std::string& text, std::size_t n = 600) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

struct Run {
  bool ok = false;
  std::string problem;   // why it failed, or which records differ from the in-process run
  double run_wall = 0;   // summary.json wall_time_s
  double cmd_wall = 0;   // first process started to the last one exited
  std::uint64_t sent = 0, delivered = 0;
};

/// The records a served run must share with `fedsim run` byte for byte.
const char* const compared_files[] = {"observations.csv", "rounds.csv", "events.jsonl"};

class Bench {
 public:
  Bench(Options o, fs::path work) : o_(std::move(o)), work_(std::move(work)) {
    fs::create_directories(work_);
    // A fresh 32-byte secret as hex (as `openssl rand -hex 32` makes it), readable by us only.
    std::random_device rd;
    std::string hex;
    for (int i = 0; i < 32; ++i) {
      char b[3];
      std::snprintf(b, sizeof b, "%02x", static_cast<unsigned>(rd() & 0xff));
      hex += b;
    }
    secret_ = (work_ / "secret").string();
    std::ofstream(secret_) << hex << "\n";
    fs::permissions(secret_, fs::perms::owner_read | fs::perms::owner_write);
  }

  /// The scenario arguments every command shares.
  std::vector<std::string> scenario_args() const {
    std::vector<std::string> a = {o_.scenario, "--set", "world.agents=" + std::to_string(o_.agents),
                                  "--set", "algorithm.iterations=" + std::to_string(o_.iterations)};
    return with_threads(a);
  }

  std::vector<std::string> with_threads(std::vector<std::string> a) const {
    if (o_.threads > 0) a.insert(a.end(), {"--threads", std::to_string(o_.threads)});
    return a;
  }

  Run in_process(const fs::path& out) {
    fs::remove_all(out);
    const std::string log = (work_ / "run.log").string();
    fs::remove(log);
    std::vector<std::string> args = {o_.fedsim, "run"};
    for (auto& a : scenario_args()) args.push_back(a);
    args.insert(args.end(), {"--out", out.string(), "--quiet"});
    const auto start = Clock::now();
    const pid_t pid = spawn(args, log);
    Run r;
    r.problem = wait_all({pid}, start + seconds(o_.timeout));
    r.cmd_wall = seconds_since(start);
    return finish(std::move(r), out, log);
  }

  Run served(int processes, const fs::path& out) {
    fs::remove_all(out);
    const fs::path port_file = work_ / "port";
    fs::remove(port_file);
    const std::string log = (work_ / ("serve-" + std::to_string(processes) + ".log")).string();
    fs::remove(log);
    std::vector<std::string> args = {o_.fedsim, "serve"};
    for (auto& a : scenario_args()) args.push_back(a);
    args.insert(args.end(), {"--listen", "127.0.0.1:0", "--port-file", port_file.string(),
                             "--secret-file", secret_, "--out", out.string(), "--quiet"});
    Run r;
    const auto start = Clock::now();
    const auto deadline = start + seconds(o_.timeout);
    const pid_t server = spawn(args, log);
    // The port, once the server listens (written whole, then renamed into place).
    std::string port;
    while (port.empty()) {
      std::error_code ec;
      if (fs::exists(port_file, ec)) {
        port = read_file(port_file);
        while (!port.empty() && (port.back() == '\n' || port.back() == '\r')) port.pop_back();
        break;
      }
      int status = 0;
      if (waitpid(server, &status, WNOHANG) == server) {
        r.problem = " fedsim serve exited before listening: " + tail(read_file(log));
        return r;
      }
      if (seconds_since(start) > 30) {
        wait_all({server}, Clock::now());  // kills it
        r.problem = " fedsim serve did not listen within 30 s: " + tail(read_file(log));
        return r;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::vector<pid_t> pids = {server};
    std::vector<std::string> logs = {log};
    for (int k = 0; k < processes; ++k) {
      const int first = k * o_.agents / processes, last = (k + 1) * o_.agents / processes - 1;
      const std::string ids = std::to_string(first) + "-" + std::to_string(last);
      logs.push_back((work_ / ("agents-" + ids + ".log")).string());
      fs::remove(logs.back());
      pids.push_back(spawn(with_threads({o_.fedsim, "agents", "--connect", "127.0.0.1:" + port,
                                         "--secret-file", secret_, "--ids", ids, "--out",
                                         (work_ / ("agents-" + ids)).string(), "--quiet"}),
                           logs.back()));
    }
    r.problem = wait_all(pids, deadline);
    r.cmd_wall = seconds_since(start);
    if (!r.problem.empty())
      for (std::size_t k = 1; k < logs.size(); ++k) r.problem += " " + tail(read_file(logs[k]), 300);
    return finish(std::move(r), out, log);
  }

  /// "" when `out` holds the reference's records byte for byte, else which differ.
  std::string compare(const fs::path& out, const fs::path& reference) const {
    std::string differ;
    for (const char* f : compared_files) {
      const bool here = fs::exists(out / f), there = fs::exists(reference / f);
      if (here != there || (here && read_file(out / f) != read_file(reference / f)))
        differ += std::string(differ.empty() ? "" : ", ") + f;
    }
    return differ;
  }

 private:
  static Clock::duration seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  Run finish(Run r, const fs::path& out, const std::string& log) const {
    if (!r.problem.empty()) {
      r.problem += " " + tail(read_file(log));
      return r;
    }
    try {
      const json s = json::parse(read_file(out / "summary.json"));
      if (!s.value("completed", false)) throw std::runtime_error("the run did not complete");
      r.run_wall = s.at("wall_time_s").get<double>();
      r.sent = s.at("messages").at("sent").get<std::uint64_t>();
      r.delivered = s.at("messages").at("delivered").get<std::uint64_t>();
      r.ok = true;
    } catch (const std::exception& e) {
      r.problem = std::string(" summary.json: ") + e.what() + " " + tail(read_file(log));
    }
    return r;
  }

  Options o_;
  fs::path work_;
  std::string secret_;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string load_average() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) < 0) return "?";
  char b[64];
  std::snprintf(b, sizeof b, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  return b;
}

/// `path` relative to the source tree when inside it (as the page shows commands), else as is.
std::string source_relative(const std::string& path) {
  const std::string root = std::string(FEDSIM_SOURCE_DIR) + "/";
  return path.rfind(root, 0) == 0 ? path.substr(root.size()) : path;
}

/// A number for the JSON: null when not finite (a mode whose every repeat failed).
json number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }


void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--agents N] [--iterations T] [--repeats R] [--processes K ...]\n"
               "          [--threads T] [--scenario FILE] [--fedsim PATH] [--timeout S]\n"
               "          [--json FILE]\n"
               "Times a scenario (virtual time) in-process (fedsim run) and served (fedsim serve)\n"
               "to K fedsim agents processes on loopback; checks the records are the same.\n"
               "Defaults: N=100 T=20 of scenarios/stragglers/deadline.toml, R=3, K=1 2 4,\n"
               "T=0 (CAF's default threads per process), the fedsim next to this binary.\n"
               "--json FILE also writes the measurements as JSON (tools/reproduce --bench writes\n"
               "docs/bench-distributed.json, which docs/results.md shows).\n",
               argv0);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.fedsim = default_fedsim();
  std::string command = "build/tools/bench_distributed";  // as the JSON records it
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool value = i + 1 < argc;
    if (a == "--agents" && value) o.agents = std::atoi(argv[++i]);
    else if (a == "--iterations" && value) o.iterations = std::atoi(argv[++i]);
    else if (a == "--repeats" && value) o.repeats = std::atoi(argv[++i]);
    else if (a == "--threads" && value) o.threads = std::atoi(argv[++i]);
    else if (a == "--processes" && value) {
      while (i + 1 < argc && argv[i + 1][0] != '-') o.processes.push_back(std::atoi(argv[++i]));
    } else if (a == "--scenario" && value) o.scenario = argv[++i];
    else if (a == "--fedsim" && value) o.fedsim = argv[++i];
    else if (a == "--timeout" && value) o.timeout = std::atof(argv[++i]);
    else if (a == "--json" && value) o.json_out = argv[++i];
    else {
      usage(argv[0]);
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (o.processes.empty()) o.processes = {1, 2, 4};
  if (o.agents < 1 || o.iterations < 1 || o.repeats < 1 || o.threads < 0 || !(o.timeout > 0)) {
    usage(argv[0]);
    return 2;
  }
  for (int k : o.processes)
    if (k < 1 || k > o.agents) {
      std::fprintf(stderr, "--processes: each count must be in 1 .. N (%d)\n", o.agents);
      return 2;
    }
  if (access(o.fedsim.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "no fedsim binary at %s: build the fedsim target, or pass --fedsim PATH\n",
                 o.fedsim.c_str());
    return 2;
  }
  if (!o.json_out.empty()) {  // fail now, not after the runs, when the JSON cannot be written
    std::error_code ec;
    const fs::path out(o.json_out);
    const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
    if (o.json_out.back() == '/' || fs::is_directory(out, ec) ||
        (fs::exists(dir, ec) && (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0))) {
      std::fprintf(stderr, "--json %s: not a file this process can write\n", o.json_out.c_str());
      return 2;
    }
  }

  const fs::path work = fs::temp_directory_path() / ("fedsim-bench-distributed-" + std::to_string(getpid()));
  Bench bench(o, work);
  const unsigned cores = std::thread::hardware_concurrency();
  const double work_units = double(o.agents) * o.iterations;
  const std::string threads = o.threads > 0 ? std::to_string(o.threads) : "CAF's default";
  const auto bench_start = Clock::now();

  // The JSON (--json): what bench_report records about the circumstances, then the measurements.
  json report = fedsim::bench::report_header(command);
  report["fedsim"] = source_relative(o.fedsim);
  report["scenario"] = source_relative(o.scenario);
  report["agents"] = o.agents;
  report["iterations"] = o.iterations;
  report["agent_iterations"] = o.agents * o.iterations;
  report["repeats"] = o.repeats;
  report["threads"] = o.threads;  // 0: CAF's default scheduler threads per process
  report["time"] = "virtual";
  report["network"] = "loopback (127.0.0.1), plain TCP";
  report["records_compared"] = json::array();
  for (const char* f : compared_files) report["records_compared"].push_back(f);
  // Finishes the JSON (load at the end, wall time, date) and writes it; false when it cannot.
  auto write_report = [&](json& r) {
    if (o.json_out.empty()) return true;
    if (!fedsim::bench::finish_report(r, seconds_since(bench_start), o.json_out)) {
      std::fprintf(stderr, "bench_distributed: cannot write %s\n", o.json_out.c_str());
      return false;
    }
    std::fprintf(stderr, "bench_distributed: wrote %s\n", o.json_out.c_str());
    return true;
  };

  std::printf("fedsim distributed runs, virtual time, loopback: %s, N=%d T=%d (%s build)\n",
              o.scenario.c_str(), o.agents, o.iterations, FEDSIM_BUILD_TYPE);
  std::printf("fedsim binary: %s; scheduler threads per process: %s; median of %d repeats, modes "
              "alternating; load average at start %s\n",
              o.fedsim.c_str(), threads.c_str(), o.repeats, load_average().c_str());
  std::fflush(stdout);

  // A warm-up run in-process, untimed: its records are the reference every run must match.
  const fs::path reference = work / "reference";
  {
    const Run ref = bench.in_process(reference);
    if (!ref.ok) {
      std::printf("the in-process reference run failed:%s\n", ref.problem.c_str());
      report["error"] = "the in-process reference run failed:" + ref.problem;
      report["modes"] = json::array();
      report["records_equal"] = false;
      write_report(report);
      std::error_code ec;
      fs::remove_all(work, ec);
      return 1;
    }
  }

  // Per mode (0: in-process, then one per process count), the repeats' measurements.
  const std::size_t modes = 1 + o.processes.size();
  std::vector<std::vector<double>> run_wall(modes), cmd_wall(modes);
  std::vector<std::uint64_t> sent(modes, 0);
  std::vector<int> mismatches(modes, 0), failures(modes, 0);
  for (int rep = 1; rep <= o.repeats; ++rep) {
    for (std::size_t m = 0; m < modes; ++m) {
      const fs::path out = work / ("out-" + std::to_string(m));
      const Run r = m == 0 ? bench.in_process(out) : bench.served(o.processes[m - 1], out);
      const std::string label =
          m == 0 ? std::string("in-process") : "served to " + std::to_string(o.processes[m - 1]);
      if (!r.ok) {
        ++failures[m];
        std::printf("repeat %d, %s: FAILED:%s\n", rep, label.c_str(), r.problem.c_str());
        continue;
      }
      const std::string differ = bench.compare(out, reference);
      if (!differ.empty()) {
        ++mismatches[m];
        std::printf("repeat %d, %s: RECORDS DIFFER from the in-process run (%s): this run "
                    "measures a wrong run\n",
                    rep, label.c_str(), differ.c_str());
      }
      run_wall[m].push_back(r.run_wall);
      cmd_wall[m].push_back(r.cmd_wall);
      sent[m] = r.sent;
      std::printf("repeat %d, %-14s run wall %7.3f s, commands %7.3f s, %llu messages sent%s\n",
                  rep, (label + ":").c_str(), r.run_wall, r.cmd_wall,
                  static_cast<unsigned long long>(r.sent), differ.empty() ? "" : " (WRONG)");
      std::fflush(stdout);
    }
  }

  std::printf("\n%-22s %10s %11s %13s %8s %9s %13s %13s %s\n", "mode", "run wall s",
              "cmd wall s", "agent-it/s", "ratio", "messages", "+us/message", "+us/msg (cmd)",
              "records");
  const double base_run = median(run_wall[0]), base_cmd = median(cmd_wall[0]);
  report["modes"] = json::array();
  for (std::size_t m = 0; m < modes; ++m) {
    const std::string label = m == 0 ? std::string("in-process (run)")
                                     : "served, " + std::to_string(o.processes[m - 1]) +
                                           (o.processes[m - 1] == 1 ? " process" : " processes");
    json mode = {{"mode", m == 0 ? "in-process" : "served"},
                 {"processes", m == 0 ? 0 : o.processes[m - 1]},
                 {"runs", run_wall[m].size()},
                 {"failed", failures[m]},
                 {"records_differ", mismatches[m]},
                 {"records_equal", !run_wall[m].empty() && mismatches[m] == 0 && failures[m] == 0}};
    if (run_wall[m].empty()) {
      std::printf("%-22s   (every repeat failed)\n", label.c_str());
      mode.update({{"run_wall_s", nullptr}, {"command_wall_s", nullptr},
                   {"agent_iterations_per_s", nullptr}, {"ratio", nullptr},
                   {"messages", nullptr}, {"added_us_per_message", nullptr},
                   {"added_us_per_message_command", nullptr}});
      report["modes"].push_back(mode);
      continue;
    }
    const double rw = median(run_wall[m]), cw = median(cmd_wall[m]);
    const double rate = work_units / rw, base_rate = work_units / base_run;
    char added[32] = "-", added_cmd[32] = "-";
    json added_us = nullptr, added_us_cmd = nullptr;
    if (m > 0 && sent[m] > 0) {
      std::snprintf(added, sizeof added, "%.0f", 1e6 * (rw - base_run) / double(sent[m]));
      std::snprintf(added_cmd, sizeof added_cmd, "%.0f", 1e6 * (cw - base_cmd) / double(sent[m]));
      if (!run_wall[0].empty()) {
        added_us = number(1e6 * (rw - base_run) / double(sent[m]));
        added_us_cmd = number(1e6 * (cw - base_cmd) / double(sent[m]));
      }
    }
    mode.update({{"run_wall_s", rw},
                 {"command_wall_s", cw},
                 {"run_wall_s_repeats", run_wall[m]},
                 {"command_wall_s_repeats", cmd_wall[m]},
                 {"agent_iterations_per_s", number(rate)},
                 {"ratio", run_wall[0].empty() ? json(nullptr) : number(rate / base_rate)},
                 {"messages", sent[m]},
                 {"added_us_per_message", added_us},
                 {"added_us_per_message_command", added_us_cmd}});
    report["modes"].push_back(mode);
    std::string records = m == 0 ? "reference" : "same as in-process";
    if (mismatches[m] > 0)
      records = "DIFFER in " + std::to_string(mismatches[m]) + " of " +
                std::to_string(run_wall[m].size()) + " runs";
    if (failures[m] > 0) records += ", " + std::to_string(failures[m]) + " failed";
    std::printf("%-22s %10.3f %11.3f %13.0f %8.3f %9llu %13s %13s %s\n", label.c_str(), rw, cw,
                rate, rate / base_rate, static_cast<unsigned long long>(sent[m]), added,
                added_cmd, records.c_str());
  }
  std::printf("\nagent-it/s: N x T / the run's own wall time (summary.json wall_time_s; a served "
              "run's includes its agents joining); ratio: to in-process, same machine, same "
              "benchmark run. +us/message: (served - in-process) wall / messages sent; (cmd): the "
              "same with whole commands' wall time (process start-up included).\n");
  std::string crowded;  // the rows whose processes outnumber the cores
  for (int k : o.processes)
    if (cores > 0 && static_cast<unsigned>(k) + 1 > cores)
      crowded += (crowded.empty() ? "" : ", ") + std::to_string(k);
  if (!crowded.empty())
    std::printf("note: this machine has %u cores: served to %s agent processes, the server and the "
                "agent processes (each with its own scheduler threads) "
                "outnumber them and compete for CPU, so those rows measure CPU contention as "
                "well as the network.\n",
                cores, crowded.c_str());
  std::printf("load average at end %s\n", load_average().c_str());
  std::error_code ec;
  fs::remove_all(work, ec);
  int wrong = 0;
  for (std::size_t m = 1; m < modes; ++m) wrong += mismatches[m] + failures[m];
  bool equal = true;  // every run (in-process repeats too) completed with the reference's records
  for (const auto& mode : report["modes"]) equal = equal && mode["records_equal"].get<bool>();
  report["records_equal"] = equal;
  report["crowded_processes"] = json::array();  // counts whose processes outnumber the cores
  for (int k : o.processes)
    if (cores > 0 && static_cast<unsigned>(k) + 1 > cores) report["crowded_processes"].push_back(k);
  if (!write_report(report)) return 1;
  return wrong > 0 ? 1 : 0;
}
