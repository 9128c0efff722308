// `fedsim sweep`: the cross product of grid values and seeds of one scenario, each run in its
// own folder, in parallel, resumable, aggregated into sweep.csv.
//
// Runs execute in-process on J worker threads, each with a CAF actor system of its own that
// its runs use one after another (the run_federation of `fedsim run`, without a system's start
// and stop per run), rather than as child processes: the configurations
// validated up front are exactly the ones run (no re-parsing of a command line), a failing run
// is an exception reported with its folder, and nothing depends on finding the binary again.
// A crash of the whole process loses nothing finished, since the sweep resumes.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/resources.hpp"
#include "scenarios/schema.hpp"  // number_text
#include "scenarios/work.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/fresh_run.hpp"
#include "tools/fedsim/loop_driver.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/run_outputs.hpp"
#include "tools/fedsim/seed_option.hpp"
#include "tools/fedsim/sweep.hpp"

namespace fedsim::cli {
namespace {

namespace fs = std::filesystem;

/// One --grid option: a scenario key and the values it takes.
struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

/// One run of the sweep: a grid point (one value per axis) and a seed.
struct SweepRun {
  std::size_t point = 0;            ///< index of the grid point
  std::vector<std::string> values;  ///< one per axis
  long long seed = 0;
  fs::path folder;                  ///< relative to the sweep folder
  std::string label;                ///< "algorithm.q=0.5 seed=2", for progress lines
  scenario::ScenarioConfig config;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// Splits "v1,v2,..." at the commas outside brackets, braces and quotes, so that TOML arrays
/// and inline tables can be grid values.
std::vector<std::string> split_values(const std::string& list) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (const char c : list) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  parts.push_back(trim(cur));
  return parts;
}

GridAxis parse_grid(const std::string& arg) {
  const auto eq = arg.find('=');
  const auto bad = [&arg](const std::string& what) {
    return UsageError("--grid '" + arg + "': " + what +
                      "; expected key=v1,v2,... (e.g. --grid algorithm.q=0.25,0.5)");
  };
  if (eq == std::string::npos) throw bad("missing '='");
  GridAxis axis{trim(arg.substr(0, eq)), split_values(arg.substr(eq + 1))};
  if (axis.key.empty()) throw bad("missing the key");
  if (axis.key == "seed") throw UsageError("--grid: key 'seed' is not a grid key; use --seeds K or --seed-list");
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    if (axis.values[i].empty()) throw bad("empty value");
    for (std::size_t j = 0; j < i; ++j)
      if (axis.values[j] == axis.values[i])
        throw UsageError("--grid " + axis.key + ": value '" + axis.values[i] + "' given twice");
  }
  return axis;
}

/// A value as part of a folder name: readable, but '/', '%', spaces and other characters a
/// shell or a file system would trip on become %XX (so different values stay different).
std::string folder_value(const std::string& value) {
  static const std::string safe = "._-+()[]^*=:@";
  std::string out;
  for (const unsigned char c : value) {
    if (std::isalnum(c) || safe.find(static_cast<char>(c)) != std::string::npos) {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

/// Every (grid point, seed) with its configuration loaded and validated: a bad grid value
/// fails here, before anything runs. The loader's warnings, once each, go to `warnings`: the
/// caller prints them once every check has passed (a refused sweep prints its error alone).
std::vector<SweepRun> plan_runs(const SweepOptions& o, const std::vector<GridAxis>& axes,
                                const std::vector<long long>& seeds,
                                std::vector<std::string>& warnings) {
  std::size_t points = 1;
  for (const auto& a : axes) points *= a.values.size();
  std::vector<SweepRun> runs;
  std::set<std::string> warned;
  for (std::size_t p = 0; p < points; ++p) {
    // The last axis varies fastest, as in the order the values were given.
    std::vector<std::string> values(axes.size());
    std::size_t rest = p;
    for (std::size_t k = axes.size(); k-- > 0;) {
      values[k] = axes[k].values[rest % axes[k].values.size()];
      rest /= axes[k].values.size();
    }
    for (const long long seed : seeds) {
      SweepRun run;
      run.point = p;
      run.values = values;
      run.seed = seed;
      auto overrides = o.overrides;
      std::vector<std::string> grid_overrides;
      for (std::size_t k = 0; k < axes.size(); ++k) {
        grid_overrides.push_back(axes[k].key + "=" + values[k]);
        run.folder /= axes[k].key + "=" + folder_value(values[k]);
        run.label += axes[k].key + "=" + values[k] + " ";
      }
      overrides.insert(overrides.end(), grid_overrides.begin(), grid_overrides.end());
      overrides.push_back("seed=" + std::to_string(seed));
      run.folder /= "seed=" + std::to_string(seed);
      run.label += "seed=" + std::to_string(seed);
      try {
        scenario::LoadedScenario loaded =
            o.scenario_text ? scenario::load_scenario_text(*o.scenario_text, o.scenario, overrides)
                            : scenario::load_scenario_file(o.scenario, overrides);
        for (const std::string& w : loaded.warnings)  // once per sweep, not once per run
          if (warned.insert(w).second) warnings.push_back(w);
        run.config = std::move(loaded.config);
      } catch (const std::invalid_argument& e) {
        // The loader names overrides "--set"; say which came from --grid.
        std::string what = e.what();
        for (const auto& g : grid_overrides) {
          const std::string from = "(from --set " + g + ")";
          const auto at = what.find(from);
          if (at != std::string::npos) what.replace(at, from.size(), "(from --grid " + g + ")");
        }
        throw UsageError(what);
      }
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

/// What one planned run holds (its SweepRun: the configuration, its folder and label, and its
/// estimate), twice what was measured: 10,000 runs of tiny.toml planned in 40 MiB, 4 KiB a run.
constexpr double plan_entry_bytes = 8 * 1024.0;

/// Refuses a sweep whose plan and `jobs` largest runs at once (scenarios/resources.hpp) do not
/// fit `limit`.
void check_sweep_memory(const std::vector<SweepRun>& runs, const scenario::ResourcePart& plan,
                        int jobs, const scenario::MemoryLimit& limit) {
  std::size_t largest = 0;
  std::vector<scenario::ResourceEstimate> estimates;
  for (const SweepRun& run : runs) {
    estimates.push_back(scenario::estimate(run.config));
    if (estimates.back().bytes() > estimates[largest].bytes()) largest = estimates.size() - 1;
  }
  const double at_once = static_cast<double>(std::min<std::size_t>(jobs, runs.size()));
  scenario::ResourceEstimate needed;
  needed.sizes = estimates[largest].sizes;
  for (scenario::ResourcePart part : estimates[largest].parts) {
    if (part.key.empty()) {  // the process: once
      needed.parts.push_back(part);
      continue;
    }
    if (at_once > 1) {
      part.what = scenario::schema::number_text(at_once) + " runs at once (--jobs) x " + part.what;
      part.bytes *= at_once;
    }
    needed.parts.push_back(part);
  }
  needed.parts.push_back(plan);
  const std::string why = scenario::memory_refusal(
      "the sweep (at " + runs[largest].label + ")", needed, limit, "--max-memory");
  if (!why.empty()) throw UsageError(why);
}

/// The CPU work of the sweep's runs (scenarios/work.hpp), summed part by part over the runs:
/// each part named by its key, described as in the run where it weighs most. Refused (one
/// line) above `limit`.
scenario::WorkEstimate check_sweep_work(const std::vector<SweepRun>& runs,
                                        const scenario::WorkLimit& limit) {
  scenario::WorkEstimate total;
  std::vector<double> most;  // per part of total, the most one run gave it
  std::size_t largest = 0;
  double largest_seconds = -1;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const scenario::WorkEstimate e = scenario::estimate_work(runs[r].config);
    if (e.seconds() > largest_seconds) {
      largest_seconds = e.seconds();
      largest = r;
      total.sizes = e.sizes;
    }
    for (const scenario::WorkPart& part : e.parts) {
      std::size_t i = 0;
      while (i < total.parts.size() && total.parts[i].key != part.key) ++i;
      if (i == total.parts.size()) {
        total.parts.push_back({part.key, part.what, 0});
        most.push_back(-1);
      }
      total.parts[i].seconds += part.seconds;
      if (part.seconds > most[i]) {
        most[i] = part.seconds;
        total.parts[i].what = part.what;
      }
    }
  }
  for (scenario::WorkPart& part : total.parts)
    part.what = "over the " + scenario::schema::number_text(static_cast<double>(runs.size())) +
                " runs, " + part.what;
  total.sizes = "the largest run at " + runs[largest].label + ": " + total.sizes;
  const std::string why = scenario::work_refusal("the sweep", total, limit, "--max-work");
  if (!why.empty()) throw UsageError(why);
  return total;
}

enum class RunState { complete, missing, changed };

/// Complete: summary.json (moved in last) is there, records this configuration's hash and was
/// made by this driver; a folder from a sweep with other settings or the other driver, or from
/// an older fedsim, is run again.
RunState run_state(const fs::path& dir, const scenario::ScenarioConfig& config, Driver driver) {
  const auto summary = read_summary(dir);
  if (!summary) return RunState::missing;
  if (summary->value("config_hash", std::string()) != config_hash(config)) return RunState::changed;
  if (summary->value("driver", std::string()) != to_string(driver)) return RunState::changed;
  return RunState::complete;
}

/// Serialises progress lines from the worker threads and numbers them.
class Progress {
 public:
  Progress(std::size_t total, bool quiet) : total_(total), quiet_(quiet) {}

  /// Prints "[k/n] label what".
  void report(const std::string& label, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    if (!quiet_) std::fprintf(stderr, "[%zu/%zu] %s %s\n", done_, total_, label.c_str(), what.c_str());
  }

 private:
  std::mutex mutex_;
  std::size_t done_ = 0;
  std::size_t total_;
  bool quiet_;
};

/// Runs `todo` (indices into runs) on `jobs` worker threads; returns the failures' messages.
/// Once `interrupt` is set, no further run starts.
std::vector<std::string> execute(const std::vector<SweepRun>& runs, const std::vector<std::size_t>& todo,
                                 const fs::path& root, int jobs, int threads, Driver driver,
                                 Progress& progress, const std::atomic<int>* interrupt) {
  std::atomic<std::size_t> next{0};
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  auto worker = [&] {
    std::optional<actors::FederationSystem> system;  // started by the worker's first actors run
    for (std::size_t i; (i = next++) < todo.size();) {
      if (interrupt && interrupt->load() != 0) return;  // the runs not started stay to do
      const SweepRun& run = runs[todo[i]];
      const fs::path dir = root / run.folder;
      const auto start = std::chrono::steady_clock::now();
      try {
        // The run's folder is this sweep's while it runs: `fedsim run --out` into it is refused.
        const FolderLock run_lock(dir, current_command_line());
        // Written aside and moved in when complete: a failed rerun leaves the old run whole.
        StagingFolder staging(dir);
        write_resolved_config(staging.path(), run.config);
        actors::RunOptions options;
        options.out_dir = staging.path().string();
        options.threads = threads;
        if (driver == Driver::actors && !system) system.emplace(threads);
        const DriverResult result =
            run_with_driver(run.config, options, driver, system ? &*system : nullptr);
        write_summary(staging.path(), run.config, result, driver);
        staging.publish();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        char buf[64];
        std::snprintf(buf, sizeof buf, "done in %.2fs", s);
        progress.report(run.label, buf);
      } catch (const std::exception& e) {
        progress.report(run.label, std::string("FAILED: ") + e.what());
        std::lock_guard<std::mutex> lock(failures_mutex);
        failures.push_back(run.folder.generic_string() + ": " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  const int n = std::max(1, std::min<int>(jobs, static_cast<int>(todo.size())));
  for (int k = 0; k < n; ++k) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return failures;
}

/// One run's numbers, as read back from its summary.json.
struct RunMetrics {
  double final_regret, regret_area, cumulative_regret, epsilon, delta, sent, dropped,
      virtual_time, wall_time, rounds, nodes_sent, nodes_received, best_observed;
};

/// A number of summary.json, NaN (an empty cell) for null: JSON writes an infinite or NaN
/// double as null, e.g. the virtual time of a run that never released its last round.
double number_or_nan(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : std::nan("");
}

/// FBO runs have a simple-regret curve; Fed-PNE runs an average cumulative regret per client
/// (HCT: its cumulative regret) and, from the loop driver, the communication counts. A metric
/// a run does not have is NaN (an empty cell).
RunMetrics metrics_of(const nlohmann::json& s) {
  const nlohmann::json none;
  const auto& comm = s.value("communication", nlohmann::json::object());
  const auto& curve = s.value("mean_simple_regret_by_iteration", nlohmann::json::array());
  // No known optimum (a tuning objective, a black box): the curve is nulls, no area.
  double area = 0.0;
  for (const auto& v : curve) area += number_or_nan(v);
  area = curve.empty() ? std::nan("") : area / static_cast<double>(curve.size());
  return {number_or_nan(s.value("mean_final_simple_regret", none)),
          area,
          number_or_nan(s.value("average_cumulative_regret_per_client", none)),
          number_or_nan(s.at("epsilon")),
          number_or_nan(s.at("delta")),
          number_or_nan(s.at("messages").at("sent")),
          number_or_nan(s.at("messages").at("dropped")),
          number_or_nan(s.at("virtual_time")),  // null when infinite (JSON has no inf)
          number_or_nan(s.at("wall_time_s")),
          number_or_nan(comm.value("rounds", none)),
          number_or_nan(comm.value("nodes_sent_per_client", none)),
          number_or_nan(comm.value("nodes_received_per_client", none)),
          number_or_nan(s.value("mean_best_observed", none))};
}

/// A double as pandas reads it back exactly (shortest round trip); empty for NaN.
std::string num(double v) { return std::isfinite(v) ? nlohmann::json(v).dump() : ""; }

/// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// Mean and standard error (sample standard deviation / sqrt(n)); se is NaN for n < 2.
std::pair<double, double> mean_se(const std::vector<double>& xs) {
  double mean = 0.0;
  for (const double x : xs) mean += x;
  mean /= static_cast<double>(xs.size());
  if (xs.size() < 2) return {mean, std::nan("")};
  double ss = 0.0;
  for (const double x : xs) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / static_cast<double>(xs.size() - 1) / static_cast<double>(xs.size()))};
}

/// Writes `text` to `file` through a temporary file, so a reader never sees half of it.
void write_atomically(const fs::path& file, const std::string& text) {
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, file);
}

/// sweep_runs.csv (one row per run) and sweep.csv (one row per grid point, mean and standard
/// error over seeds), from the runs' summary.json files.
void write_tables(const fs::path& root, const std::vector<GridAxis>& axes,
                  const std::vector<SweepRun>& runs) {
  static const char* metric_names[] = {"mean_final_simple_regret", "regret_area",
                                       "cumulative_regret", "epsilon", "messages_sent",
                                       "messages_dropped", "virtual_time",
                                       "communication_rounds", "nodes_sent_per_client",
                                       "nodes_received_per_client", "mean_best_observed"};
  std::ostringstream per_run, per_point;
  for (const auto& a : axes) {
    per_run << field(a.key) << ",";
    per_point << field(a.key) << ",";
  }
  per_run << "seed,folder,mean_final_simple_regret,regret_area,cumulative_regret,epsilon,delta,"
             "messages_sent,messages_dropped,virtual_time,wall_time_s,communication_rounds,"
             "nodes_sent_per_client,nodes_received_per_client,mean_best_observed\n";
  per_point << "runs";
  for (const char* m : metric_names) per_point << "," << m << "_mean," << m << "_se";
  per_point << "\n";

  std::vector<RunMetrics> metrics;
  for (const auto& run : runs) {
    const auto summary = read_summary(root / run.folder);
    if (!summary) throw std::runtime_error((root / run.folder / "summary.json").string() + " is missing");
    // Another command may have replaced a finished run (its folder is locked only while the
    // sweep runs it): a table never mixes in another configuration's numbers.
    if (summary->value("config_hash", std::string()) != config_hash(run.config))
      throw UsageError((root / run.folder).string() +
                       " holds a run of another configuration (replaced while the sweep ran); "
                       "run the same sweep command again to run it again");
    metrics.push_back(metrics_of(*summary));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& m = metrics[i];
    for (const auto& v : runs[i].values) per_run << field(v) << ",";
    per_run << runs[i].seed << "," << field(runs[i].folder.generic_string()) << ","
            << num(m.final_regret) << "," << num(m.regret_area) << ","
            << num(m.cumulative_regret) << "," << num(m.epsilon) << ","
            << num(m.delta) << "," << num(m.sent) << "," << num(m.dropped) << ","
            << num(m.virtual_time) << "," << num(m.wall_time) << "," << num(m.rounds) << ","
            << num(m.nodes_sent) << "," << num(m.nodes_received) << ","
            << num(m.best_observed) << "\n";
  }
  // Runs of a grid point are consecutive (plan_runs puts the seeds innermost).
  for (std::size_t begin = 0; begin < runs.size();) {
    std::size_t end = begin;
    while (end < runs.size() && runs[end].point == runs[begin].point) ++end;
    for (const auto& v : runs[begin].values) per_point << field(v) << ",";
    per_point << end - begin;
    const auto column = [&](double RunMetrics::*member) {
      std::vector<double> xs;
      for (std::size_t i = begin; i < end; ++i) xs.push_back(metrics[i].*member);
      const auto [mean, se] = mean_se(xs);
      per_point << "," << num(mean) << "," << num(se);
    };
    column(&RunMetrics::final_regret);
    column(&RunMetrics::regret_area);
    column(&RunMetrics::cumulative_regret);
    column(&RunMetrics::epsilon);
    column(&RunMetrics::sent);
    column(&RunMetrics::dropped);
    column(&RunMetrics::virtual_time);
    column(&RunMetrics::rounds);
    column(&RunMetrics::nodes_sent);
    column(&RunMetrics::nodes_received);
    column(&RunMetrics::best_observed);
    per_point << "\n";
    begin = end;
  }
  write_atomically(root / "sweep_runs.csv", per_run.str());
  write_atomically(root / "sweep.csv", per_point.str());
}

}  // namespace

void run_sweep(const SweepOptions& o) {
  if (o.jobs < 1) throw UsageError("--jobs must be >= 1, got " + std::to_string(o.jobs));
  if (o.threads < 0) throw UsageError("--threads must be >= 0, got " + std::to_string(o.threads));
  std::vector<long long> seeds = o.seed_list;
  if (seeds.empty()) {
    if (o.seeds < 1) throw UsageError("--seeds must be >= 1, got " + std::to_string(o.seeds));
    for (int s = 1; s <= o.seeds; ++s) seeds.push_back(s);
  }
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    if (std::find(seeds.begin(), seeds.begin() + i, seeds[i]) != seeds.begin() + i)
      throw UsageError("--seed-list: seed " + std::to_string(seeds[i]) + " given twice");
  }
  std::vector<GridAxis> axes;
  for (const auto& g : o.grid) {
    axes.push_back(parse_grid(g));
    for (std::size_t k = 0; k + 1 < axes.size(); ++k)
      if (axes[k].key == axes.back().key)
        throw UsageError("--grid: key '" + axes.back().key + "' given twice; list its values in one --grid");
  }

  const auto start = std::chrono::steady_clock::now();
  scenario::MemoryLimit limit;
  scenario::WorkLimit work_limit;
  try {
    limit = scenario::memory_limit(o.max_memory, "--max-memory");
    work_limit = scenario::work_limit(o.max_work, "--max-work");
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // The plan's own size, before it is made: every run's configuration is loaded and held.
  double planned = static_cast<double>(seeds.size());
  for (const auto& a : axes) planned *= static_cast<double>(a.values.size());
  const scenario::ResourcePart plan{
      "--grid", "the sweep's plan (" + scenario::schema::number_text(planned) + " runs x " +
                    scenario::memory_text(plan_entry_bytes) + " of configuration each)",
      planned * plan_entry_bytes};
  {
    scenario::ResourceEstimate before;
    before.parts = {{"", "the process itself", scenario::process_base_bytes}, plan};
    const std::string why = scenario::memory_refusal("the sweep", before, limit, "--max-memory");
    if (!why.empty()) throw UsageError(why);
  }
  if (planned > 10000 && !o.quiet)  // loading them takes a while (about 3 s per 10,000)
    std::fprintf(stderr, "fedsim sweep: planning %s runs (about %s)\n",
                 scenario::schema::number_text(planned).c_str(),
                 scenario::memory_text(plan.bytes).c_str());
  std::vector<std::string> warnings;
  const std::vector<SweepRun> runs = plan_runs(o, axes, seeds, warnings);
  check_sweep_memory(runs, plan, o.jobs, limit);
  const scenario::WorkEstimate work = check_sweep_work(runs, work_limit);
  const Driver driver = parse_driver(o.driver);
  for (const SweepRun& run : runs) check_driver(run.config, driver);
  const fs::path root = o.out.empty() ? "out/sweep-" + runs.front().config.name : o.out;
  const FolderLock lock(root, current_command_line());  // creates the folder
  for (const std::string& w : warnings) std::fprintf(stderr, "fedsim: warning: %s\n", w.c_str());
  if (!o.quiet) print_work_estimate("the sweep", work);

  Progress progress(runs.size(), o.quiet);
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    switch (run_state(root / runs[i].folder, runs[i].config, driver)) {
      case RunState::complete: progress.report(runs[i].label, "skipped (complete)"); break;
      case RunState::changed:
        if (!o.quiet)
          std::fprintf(stderr, "%s: configuration changed since it ran; running it again\n",
                       runs[i].label.c_str());
        todo.push_back(i);
        break;
      case RunState::missing: todo.push_back(i); break;
    }
  }
  const auto failures = execute(runs, todo, root, o.jobs, o.threads, driver, progress, o.interrupt);
  if (o.interrupt && o.interrupt->load() != 0)
    throw SweepInterrupted("the sweep stopped before all its runs; the finished ones in " +
                           root.string() + " are kept, and the same sweep skips them");
  if (!failures.empty())
    throw std::runtime_error(std::to_string(failures.size()) + " of " + std::to_string(runs.size()) +
                             " runs failed (first: " + failures.front() +
                             "); run the same command again to retry them");
  write_tables(root, axes, runs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t points = runs.size() / seeds.size();
  if (!o.result_line) return;
  std::printf("sweep %s: %zu runs (%zu run, %zu skipped), %zu grid point%s x %zu seed%s, wall %.2fs -> %s\n",
              runs.front().config.name.c_str(), runs.size(), todo.size(), runs.size() - todo.size(),
              points, points == 1 ? "" : "s", seeds.size(), seeds.size() == 1 ? "" : "s", wall,
              (root / "sweep.csv").string().c_str());
}

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a scenario over a grid of values and seeds, in parallel and resumable");
  cmd->add_option("scenario", o->scenario, "scenario file (TOML, see scenarios/README.md)")
      ->required();
  cmd->add_option("--grid", o->grid,
                  "key=v1,v2,...: a scenario key (as in --set) and its values; repeatable, the "
                  "runs are the cross product")
      ->allow_extra_args(false);  // one key=values per --grid, so the scenario may follow
  auto* seeds = cmd->add_option("--seeds", o->seeds, "seeds 1..K for every grid point")
                    ->capture_default_str();
  cmd->add_option("--seed-list", o->seed_list, "explicit seeds instead of --seeds: 3,5,9")
      ->delimiter(',')
      ->check(seed_check(9223372036854775807ULL))
      ->allow_extra_args(false)
      ->excludes(seeds);
  cmd->add_option("--jobs", o->jobs, "runs in parallel (worker threads)")->capture_default_str();
  cmd->add_option("--out", o->out, "sweep folder (default: out/sweep-<scenario name>)");
  cmd->add_option("--set", o->overrides,
                  "override a key in every run: --set world.agents=24 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--threads", o->threads, "actor scheduler threads per run (0: CAF's default)")
      ->capture_default_str();
  cmd->add_option("--driver", o->driver, "actors | loop, as `fedsim run --driver`")
      ->capture_default_str();
  cmd->add_option("--max-memory", o->max_memory,
                  "refuse the sweep when its plan and its --jobs largest runs at once are "
                  "estimated to need more than SIZE (8G, 512M; units K, M, G, T of 1024); "
                  "default: the machine's physical memory; none: no check");
  cmd->add_option("--max-work", o->max_work,
                  "refuse the sweep when its runs' estimated CPU work, summed, exceeds TIME (24h, "
                  "90m, 2d, 3600; units s, m, h, d; runs already complete count too); default: "
                  "24h; none: no check");
  cmd->add_flag("--quiet", o->quiet, "no progress lines");
  cmd->callback([o] { run_sweep(*o); });
}

}  // namespace fedsim::cli
