#include "tools/fedsim/run_replay.hpp"

#include <algorithm>
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
#include "scenarios/echo.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/live_run.hpp"

namespace fedsim::cli {

namespace fs = std::filesystem;

namespace {

/// A CSV file fedsim wrote (no quoted fields): its header and rows, cells by column name.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name, const fs::path& file) const {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw std::runtime_error(file.string() + ": no column '" + name + "'");
    return static_cast<std::size_t>(it - header.begin());
  }
};

Table read_table(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  Table t;
  std::string line;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream s(l);
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    if (!l.empty() && l.back() == ',') cells.emplace_back();
    return cells;
  };
  if (std::getline(in, line)) t.header = split(line);
  while (std::getline(in, line))
    if (!line.empty()) t.rows.push_back(split(line));
  return t;
}

/// A cell as a number: empty, "nan" and the like are NaN.
double number(const std::string& cell) {
  if (cell.empty()) return std::numeric_limits<double>::quiet_NaN();
  try {
    return std::stod(cell);
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}
long long integer(const std::string& cell) { return cell.empty() ? 0 : std::stoll(cell); }

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
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(dir / "summary.json"));
  if (config.xarmed.enabled && config.xarmed.hct)
    throw UsageError(scenario::quote(dir.string()) + ": an HCT run (one learner, the loop "
                     "driver) has no rounds or phases to show");
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

  const fs::path obs_file = dir / "observations.csv";
  const Table obs = read_table(obs_file);
  if (fed_pne) {
    const auto c = obs.column("client", obs_file), p = obs.column("phase", obs_file),
               s = obs.column("step", obs_file), t = obs.column("time", obs_file),
               r = obs.column("cumulative_regret", obs_file);
    for (const auto& row : obs.rows) {
      actors::pull_event e{static_cast<std::int32_t>(integer(row[c])), integer(row[p]),
                           integer(row[s]), number(row[t]), number(row[r])};
      records.push_back({e.time, e.phase, 2, [e](const actors::RunObserver& o) { o.pull(e); }});
    }
  } else {
    const auto a = obs.column("agent", obs_file), i = obs.column("iteration", obs_file),
               t = obs.column("time", obs_file), y = obs.column("y", obs_file),
               f = obs.column("f", obs_file), r = obs.column("simple_regret", obs_file),
               b = obs.column("best_y", obs_file);
    std::vector<std::size_t> xs;
    for (std::size_t k = 0; k < obs.header.size(); ++k)
      if (obs.header[k].size() > 1 && obs.header[k][0] == 'x' &&
          std::isdigit(static_cast<unsigned char>(obs.header[k][1])))
        xs.push_back(k);
    for (const auto& row : obs.rows) {
      actors::observation_event e;
      e.agent = static_cast<std::int32_t>(integer(row[a]));
      e.iteration = static_cast<std::int32_t>(integer(row[i]));
      e.time = number(row[t]);
      for (std::size_t k : xs) e.x.push_back(number(row[k]));
      e.y = number(row[y]);
      e.f = number(row[f]);
      e.simple_regret = number(row[r]);
      e.best_y = number(row[b]);
      records.push_back({e.time, e.iteration, 1,
                         [e](const actors::RunObserver& o) { o.observation(e); }});
    }
  }

  if (fs::exists(dir / "events.jsonl")) {
    std::ifstream in(dir / "events.jsonl");
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const nlohmann::json j = nlohmann::json::parse(line);
      actors::network_event e;
      e.kind = j.value("event", "");
      if (e.kind == "send" || e.kind == "deliver") continue;
      e.time = j.value("time", 0.0);
      e.from = j.value("from", 0);
      e.to = j.value("to", 0);
      e.payload = j.value("payload", "");
      e.round = j.value("round", -1);
      e.bytes = j.value("bytes", std::uint64_t{0});
      e.reason = j.value("reason", "");
      records.push_back({e.time, e.round, 3, [e](const actors::RunObserver& o) { o.event(e); }});
    }
  }

  if (fed_pne && fs::exists(dir / "phases.csv")) {
    const fs::path file = dir / "phases.csv";
    const Table phases = read_table(file);
    auto col = [&](const char* name) { return phases.column(name, file); };
    const auto p = col("phase"), t = col("time"), d = col("depth"), n = col("nodes"),
               ppn = col("pulls_per_node"), rep = col("reporters"), ex = col("excluded"),
               late = col("late"), rej = col("rejected"), alive = col("alive"),
               surv = col("survivors"), bm = col("best_mean"), cw = col("confidence_width");
    for (const auto& row : phases.rows) {
      actors::phase_event e{integer(row[p]), number(row[t]),
                            static_cast<std::int32_t>(integer(row[d])), integer(row[n]),
                            integer(row[ppn]), static_cast<std::int32_t>(integer(row[rep])),
                            static_cast<std::int32_t>(integer(row[ex])),
                            static_cast<std::int32_t>(integer(row[late])),
                            static_cast<std::int32_t>(integer(row[rej])),
                            static_cast<std::int32_t>(integer(row[alive])), integer(row[surv]),
                            number(row[bm]), number(row[cw])};
      records.push_back({e.time, e.phase, 5, [e](const actors::RunObserver& o) { o.phase(e); }});
    }
  } else if (!fed_pne && fs::exists(dir / "rounds.csv")) {  // the loop driver writes none
    const fs::path file = dir / "rounds.csv";
    const Table rounds = read_table(file);
    auto col = [&](const char* name) { return rounds.column(name, file); };
    const auto r = col("round"), t = col("time"), part = col("participants"), sel = col("selected"),
               late = col("late"), drop = col("dropped"), rej = col("rejected"),
               clip = col("clipped"), alive = col("alive"), noise = col("noise_std"),
               eps = col("epsilon"), rel = col("released"), norm = col("aggregate_norm"),
               rdp = col("epsilon_rdp"), pld = col("epsilon_pld"), filt = col("filtered");
    auto i32 = [](const std::string& c) { return static_cast<std::int32_t>(integer(c)); };
    for (const auto& row : rounds.rows) {
      actors::round_event e{i32(row[r]),     number(row[t]),    i32(row[part]),
                            i32(row[sel]),   i32(row[late]),    i32(row[drop]),
                            i32(row[rej]),   i32(row[clip]),    i32(row[alive]),
                            number(row[noise]), number(row[eps]), integer(row[rel]) != 0,
                            number(row[norm]), number(row[rdp]), number(row[pld]),
                            i32(row[filt])};
      // A round closes after its iteration's observations: ranked at its round + 1.
      records.push_back({e.time, e.round + 1, 4, [e](const actors::RunObserver& o) { o.round(e); }});
    }
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
  const auto folder = runs.column("folder", file);
  std::vector<std::string> lines;
  for (const auto& row : runs.rows) {
    const std::string run = row[folder];
    const fs::path run_dir = dir / run;
    if (!fs::exists(run_dir / "summary.json"))
      throw std::runtime_error(file.string() + ": run " + scenario::quote(run) +
                               " has no summary.json (an unfinished sweep?)");
    for (const auto& line : replay_run(run_dir)) {
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
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
