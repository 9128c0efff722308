#include "tools/fedsim/run_replay.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "actors/agent_states.hpp"
#include "actors/network_plan.hpp"
#include "actors/record_csv.hpp"
#include "actors/record_json.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/live_run.hpp"
#include "tools/fedsim/run_folder.hpp"

namespace fedsim::cli {

namespace fs = std::filesystem;

namespace {

/// A file of the folder that is not as fedsim writes it: exit 2, naming the file and line.
[[noreturn]] void bad_file(const fs::path& file, std::size_t line, const std::string& what) {
  throw UsageError(scenario::quote(file.string()) + (line > 0 ? ":" + std::to_string(line) : "") +
                   ": " + what);
}

/// A CSV file fedsim wrote (no quoted fields): its header and rows, every row as long as the
/// header (read_records reads a record's rows from it).
struct Table {
  fs::path file;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) bad_file(file, 1, "no column '" + name + "'");
    return static_cast<std::size_t>(it - header.begin());
  }
};

/// The rows of a record's file, as the record declares its columns (actors/record_csv.hpp).
template <class R>
std::vector<R> read_records(const Table& t) {
  std::vector<R> out;
  try {
    const actors::CsvRecordReader<R> reader(t.header);
    out.reserve(t.rows.size());
    for (std::size_t k = 0; k < t.rows.size(); ++k) {
      try {
        out.push_back(reader.read(t.rows[k]));
      } catch (const actors::RecordError& e) {
        bad_file(t.file, k + 2, e.what());
      }
    }
  } catch (const actors::RecordError& e) {
    bad_file(t.file, 1, e.what());
  }
  return out;
}

Table read_table(const fs::path& file) {
  std::ifstream in(file);
  if (!in) bad_file(file, 0, "cannot read it");
  Table t;
  t.file = file;
  std::string line;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream s(l);
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    if (!l.empty() && l.back() == ',') cells.emplace_back();
    return cells;
  };
  if (!std::getline(in, line) || line.empty()) bad_file(file, 1, "no header");
  t.header = split(line);
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    t.rows.push_back(split(line));
    if (t.rows.back().size() != t.header.size())
      bad_file(file, n, std::to_string(t.rows.back().size()) + " cells where the header has " +
                            std::to_string(t.header.size()));
  }
  return t;
}

nlohmann::json read_json(const fs::path& file, std::size_t line, const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    bad_file(file, line, std::string("not JSON (") + e.what() + ")");
  }
}

/// One record of the files, with the key that orders the replay: time, then round (iteration,
/// phase), then kind as in a live wave.
struct Record {
  double time;
  long long epoch;
  int rank;
  std::function<void(const actors::RunObserver&)> deliver;
};

std::vector<std::string> replay_run(const fs::path& dir) {
  const scenario::ScenarioConfig config =
      scenario::load_scenario((dir / "config.resolved.toml").string());
  const nlohmann::json summary = [&] {
    nlohmann::json j = read_json(dir / "summary.json", 0, read_text(dir / "summary.json"));
    if (!j.is_object()) bad_file(dir / "summary.json", 0, "not a JSON object");
    return j;
  }();
  if (const auto& kind = scenario::algorithm_kind(config); !kind.actors)
    throw UsageError(scenario::quote(dir.string()) + ": a " + kind.name + " run (the loop "
                     "driver only) has no rounds or phases to show");
  const bool fed_pne = config.xarmed.enabled;

  std::vector<std::string> lines;
  LiveRun live(config, false, false);
  live.replaying();
  live.add_sink({[&lines](const std::string& l) { lines.push_back(l); }, {}});
  actors::RunObserver observer;
  live.attach(observer);

  std::vector<Record> records;
  const double end_time = summary.value("virtual_time_last_event", 0.0);
  for (const auto& e : actors::agent_state_schedule(actors::make_network_plan(config)))
    if (e.time <= end_time)
      records.push_back({e.time, std::numeric_limits<long long>::min(), 0,
                         [e](const actors::RunObserver& o) { o.agent(e); }});

  const Table obs = read_table(dir / "observations.csv");
  if (fed_pne) {
    for (const actors::pull_event& e : read_records<actors::pull_event>(obs))
      records.push_back({e.time, e.phase, 2, [e](const actors::RunObserver& o) { o.pull(e); }});
  } else {
    for (const actors::observation_event& e : read_records<actors::observation_event>(obs))
      records.push_back({e.time, e.iteration, 1,
                         [e](const actors::RunObserver& o) { o.observation(e); }});
  }

  if (fs::exists(dir / "events.jsonl")) {
    const fs::path file = dir / "events.jsonl";
    std::ifstream in(file);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.empty()) continue;
      const nlohmann::json j = read_json(file, n, line);
      if (!j.is_object()) bad_file(file, n, "not an event as fedsim writes them (not a JSON object)");
      actors::network_event e;
      try {
        e = actors::from_jsonl<actors::network_event>(j);
      } catch (const std::exception& x) {
        bad_file(file, n, std::string("not an event as fedsim writes them (") + x.what() + ")");
      }
      if (e.kind == "send" || e.kind == "deliver") continue;
      records.push_back({e.time, e.round, 3, [e](const actors::RunObserver& o) { o.event(e); }});
    }
  }

  if (fed_pne && fs::exists(dir / "phases.csv")) {
    for (const actors::phase_event& e : read_records<actors::phase_event>(read_table(dir / "phases.csv")))
      records.push_back({e.time, e.phase, 5, [e](const actors::RunObserver& o) { o.phase(e); }});
  } else if (!fed_pne && fs::exists(dir / "rounds.csv")) {  // the loop driver writes none
    for (const actors::round_event& e : read_records<actors::round_event>(read_table(dir / "rounds.csv")))
      // Round r closes after iteration r's observations (same epoch, ranked after them).
      records.push_back({e.time, e.round, 4, [e](const actors::RunObserver& o) { o.round(e); }});
  }

  std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    return std::tie(a.time, a.epoch, a.rank) < std::tie(b.time, b.epoch, b.rank);
  });
  live.start(0);
  for (std::size_t k = 0; k < records.size(); ++k) {
    if (k > 0 && std::tie(records[k].time, records[k].epoch) !=
                     std::tie(records[k - 1].time, records[k - 1].epoch))
      observer.wave(records[k].time);
    records[k].deliver(observer);
  }
  actors::RunResult result;
  result.completed = summary.value("completed", true);
  result.reason = summary["reason"].is_string() ? summary["reason"].get<std::string>() : "";
  result.network.final_time = end_time;
  auto num = [&](const char* key) {
    const auto it = summary.find(key);
    return it != summary.end() && it->is_number() ? it->get<double>()
                                                  : std::numeric_limits<double>::quiet_NaN();
  };
  result.final_simple_regret = num("mean_final_simple_regret");
  result.average_cumulative_regret = num("average_cumulative_regret_per_client");
  // What LiveRun's end line asks to tell "nobody observed" (null) from a regret.
  if (!std::isnan(result.final_simple_regret)) result.mean_simple_regret = {result.final_simple_regret};
  result.agents_without_observations = std::isnan(result.average_cumulative_regret)
                                           ? config.world.agents
                                           : summary.value("agents_without_observations", 0);
  result.epsilon = num("epsilon");
  if (summary.contains("messages")) {
    result.network.sent = summary["messages"].value("sent", std::uint64_t{0});
    result.network.dropped = summary["messages"].value("dropped", std::uint64_t{0});
  }
  live.end(result);
  return lines;
}

/// A run's folder inside a sweep without its seed: "algorithm.q=0.5/seed=2" -> "algorithm.q=0.5".
std::string grid_point(const std::string& folder) {
  std::string out;
  std::istringstream parts(folder);
  for (std::string part; std::getline(parts, part, '/');)
    if (part.rfind("seed=", 0) != 0) out += (out.empty() ? "" : "/") + part;
  return out.empty() ? "all" : out;
}

std::vector<std::string> replay_sweep(const fs::path& dir) {
  const fs::path file = dir / "sweep_runs.csv";
  const Table runs = read_table(file);
  const auto folder = runs.column("folder");
  std::vector<std::string> lines;
  for (const auto& row : runs.rows) {
    const std::string run = row[folder];
    if (run.empty() || fs::path(run).is_absolute() || run.find("..") != std::string::npos)
      bad_file(file, 0, "run folder " + scenario::quote(run) + " is not a folder inside the sweep");
    const fs::path run_dir = dir / run;
    if (!fs::exists(run_dir / "summary.json"))
      bad_file(file, 0, "run " + scenario::quote(run) + " has no summary.json (an unfinished sweep?)");
    for (const auto& line : replay_run(run_dir)) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);  // written by LiveRun
      j["run"] = run;
      j["point"] = grid_point(run);
      lines.push_back(j.dump());
    }
  }
  return lines;
}

}  // namespace

FolderKind finished_folder_kind(const fs::path& dir, const std::string& what) {
  const std::string name = what + " " + scenario::quote(dir.string());
  if (!fs::is_directory(dir)) throw UsageError(name + ": no such folder");
  if (fs::exists(dir / "sweep_runs.csv")) return FolderKind::sweep;
  if (fs::exists(dir / "summary.json")) return FolderKind::run;
  if (fs::exists(dir / "config.resolved.toml"))
    throw UsageError(name + ": the run has not finished (no summary.json); watch a running one "
                     "with fedsim run --dashboard");
  throw UsageError(name + ": neither a run folder (summary.json) nor a sweep folder "
                   "(sweep_runs.csv)");
}

std::vector<std::string> replay_folder(const fs::path& dir) {
  return finished_folder_kind(dir, "DIR") == FolderKind::sweep ? replay_sweep(dir) : replay_run(dir);
}

}  // namespace fedsim::cli
