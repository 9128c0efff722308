// fedsim.run and fedsim.sweep's C++ half (the Python half, python/fedsim/__init__.py, makes the
// folders and reads the tables): a run or sweep exactly as `fedsim run` / `fedsim sweep` make
// it (tools/fedsim/fresh_run.hpp, sweep.hpp), on a thread of its own that Ctrl-C stops.
#include <atomic>
#include <csignal>
#include <limits>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "actors/checkpoint/checkpoint.hpp"
#include "errors.hpp"
#include "interruptible.hpp"
#include "python_objective.hpp"
#include "python_observer.hpp"
#include "scenario.hpp"
#include "toml_text.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/fresh_run.hpp"
#include "tools/fedsim/live_run.hpp"
#include "tools/fedsim/run_checkpoint.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/sweep.hpp"

namespace fedsim::python {
namespace py = pybind11;

namespace {

/// Runs `work` with run_interruptible; its exceptions become Python's: a bad argument
/// (cli::UsageError) a ValueError, a scenario the loader refused fedsim.ScenarioError, anything
/// else fedsim.RunError, each with fedsim's message.
void call(std::atomic<int>& interrupt, const std::function<void()>& work) {
  try {
    run_interruptible(interrupt, work);
  } catch (const py::error_already_set&) {
    throw;
  } catch (const cli::UsageError& e) {
    raise(PyExc_ValueError, e.what());
  } catch (const scenario::ScenarioError& e) {
    raise(scenario_error, e.what());
  } catch (const std::exception& e) {
    raise(run_error, e.what());
  }
}

/// The `threads` argument, refused as `fedsim run --threads` refuses it.
void check_threads(int threads) {
  if (threads < 0) raise(PyExc_ValueError, "threads must be >= 0 (0: CAF's default, one per core)");
}

/// The Python objective of a run (null for None), refused (ValueError) where fedsim cannot use
/// one: with the loop driver, which evaluates the scenario's world.objective, and in the
/// X-armed family (Fed-PNE, HCT, ...), whose clients pull the scenario's problem.
std::shared_ptr<const PythonObjective> python_objective(const py::object& object,
                                                        const scenario::ScenarioConfig& config,
                                                        const std::string& driver) {
  if (object.is_none()) return nullptr;
  if (driver == cli::to_string(cli::Driver::loop))  // another name is refused as fedsim run refuses it
    raise(PyExc_ValueError, "objective: a Python objective runs with driver=\"actors\" (the loop "
                            "driver evaluates the scenario's world.objective)");
  if (config.xarmed.enabled)
    raise(PyExc_ValueError, "objective: a Python objective serves the FBO family; algorithm.name = \"" +
                                scenario::algorithm_kind(config).name +
                                "\" pulls the scenario's own X-armed problem");
  auto objective = std::make_shared<const PythonObjective>(object);
  try {
    check_fbo_objective(*objective, config.world.agents);
  } catch (const std::invalid_argument& e) {
    raise(PyExc_ValueError, std::string("objective: ") + e.what());
  }
  return objective;
}

/// The Python observer of a run (null for None): `deliver` takes each line of the run's live
/// stream whose type is in `types` (every line when empty). Refused (ValueError) with the loop driver, as `fedsim run --stream` refuses it.
std::shared_ptr<PythonObserver> python_observer(const py::object& deliver, std::set<std::string> types,
                                                const std::string& driver) {
  if (deliver.is_none()) return nullptr;
  if (driver == cli::to_string(cli::Driver::loop))
    raise(PyExc_ValueError, "observer: the loop driver has no live records (it writes its files at "
                            "the end); use driver=\"actors\"");
  return std::make_shared<PythonObserver>(deliver, std::move(types));
}

/// A run of `s` into `dir`, as `fedsim run SCENARIO --out DIR [--force] --threads T --driver D
/// [--stream ...]` writes it. Returns (completed, reason). An actors run in virtual time
/// stopped by Ctrl-C saves its checkpoint in DIR (as fedsim run does on SIGINT), which `fedsim
/// run --resume DIR` continues, and raises KeyboardInterrupt saying so. With an observer, the
/// lines of the run's live stream go to `observer` (a function of one str) as the run goes; an
/// exception it raises stops the run (nothing is written in DIR) and is raised again here.
py::tuple run_into(const Scenario& s, const std::string& dir, int threads, const std::string& driver_name,
                   bool force, py::object objective_object, py::object observer_object,
                   std::set<std::string> observer_types) {
  check_threads(threads);
  const scenario::ScenarioConfig& config = s.loaded.config;
  const std::shared_ptr<const PythonObjective> objective = python_objective(objective_object, config, driver_name);
  const std::shared_ptr<PythonObserver> observer = python_observer(observer_object, std::move(observer_types), driver_name);
  std::atomic<int> interrupt{0};
  cli::DriverResult result;
  std::optional<actors::RunInterrupted> stopped;
  try {
    call(interrupt, [&] {
      // The order of fedsim run's checks: memory, work, driver name, folder lock, folder and
      // driver.
      cli::check_run_memory(config, "");
      cli::check_run_work(config, "");
      const cli::Driver driver = cli::parse_driver(driver_name);
      const cli::FolderLock lock(dir, cli::current_command_line());
      const std::string replaces = cli::check_fresh_run(config, dir, driver, 0, force);
      try {
        result = cli::run_staged(config, dir, driver, {}, [&](actors::RunOptions& options) {
          options.threads = threads;
          options.objective = objective;
          if (driver == cli::Driver::actors && !config.run.wall()) {
            options.interrupt = &interrupt;
            options.checkpoint_dir = cli::checkpoint_folder(dir).string();
            options.checkpoint_header = cli::checkpoint_header(config, replaces);
          }
          if (!observer) return cli::run_with_driver(config, options, driver);
          // As fedsim run --stream: the live view's lines, its start and end lines around the
          // run (an end line saying why when the run fails or stops).
          cli::LiveRun live(config, false, false);
          live.add_sink(observer_sink(observer));
          live.attach(options.observer);
          return live.around(threads, [&] { return cli::run_with_driver(config, options, driver); });
        });
      } catch (const actors::RunInterrupted& e) {
        stopped.emplace(e);
      }
    });
  } catch (py::error_already_set& e) {
    if (stopped && e.matches(PyExc_KeyboardInterrupt)) {
      char when[96];
      std::snprintf(when, sizeof when, "after %lld rounds (virtual time %.3f)",
                    static_cast<long long>(stopped->rounds), stopped->time);
      raise(PyExc_KeyboardInterrupt, std::string("interrupted ") + when + ": checkpoint saved in " +
                                         stopped->folder + "; continue with: fedsim run --resume " + dir);
    }
    // A failure the Python observer raised: its exception, as it raised it (with its traceback).
    if (observer && e.matches(run_error))
      if (std::optional<py::error_already_set> raised = observer->raised_error()) throw *raised;
    // A failure the Python objective raised: the RunError's cause is its exception (with its
    // traceback).
    if (objective && e.matches(run_error))
      if (std::optional<py::error_already_set> cause = objective->raised_error()) {
        const std::string message = py::str(e.value()).cast<std::string>();
        py::raise_from(*cause, run_error, message.c_str());
        throw py::error_already_set();
      }
    throw;
  }
  const actors::RunResult& r = result.run;
  return py::make_tuple(r.completed, r.reason);
}

/// `fedsim sweep` of `s` into `out` (--quiet, no result line): grid maps keys to lists of values.
void sweep_into(const Scenario& s, py::dict grid, py::object seeds, int jobs, const std::string& out,
                int threads, const std::string& driver) {
  check_threads(threads);
  cli::SweepOptions o;
  o.scenario = s.source;
  o.scenario_text = s.text;
  o.overrides = s.overrides;
  for (const auto& [k, values] : grid) {
    if (!py::isinstance<py::str>(k))
      raise(PyExc_ValueError, "grid: a key must be a scenario key (str), got " + std::string(py::repr(k)));
    const std::string key = k.cast<std::string>();
    if (!py::isinstance<py::list>(values) && !py::isinstance<py::tuple>(values))
      raise(PyExc_ValueError, "grid['" + key + "']: give a list of values, got " + std::string(py::repr(values)));
    std::string axis = key + "=";
    std::size_t n = 0;
    for (const py::handle v : values) axis += (n++ ? "," : "") + toml_value(v, key, "grid");
    o.grid.push_back(axis);
  }
  if (py::isinstance<py::int_>(seeds) && !py::isinstance<py::bool_>(seeds)) {
    if (seeds > py::int_(std::numeric_limits<int>::max()))
      raise(PyExc_ValueError, "seeds: at most " + std::to_string(std::numeric_limits<int>::max()));
    o.seeds = seeds.cast<int>();
  } else if (py::isinstance<py::list>(seeds) || py::isinstance<py::tuple>(seeds)) {
    for (const py::handle seed : seeds) {
      if (!py::isinstance<py::int_>(seed) || py::isinstance<py::bool_>(seed) || seed.cast<py::int_>() < py::int_(0))
        raise(PyExc_ValueError, "seeds: " + std::string(py::repr(seed)) +
                                    " is not a seed (an integer in [0, 9223372036854775807])");
      o.seed_list.push_back(seed.cast<long long>());
    }
    if (o.seed_list.empty()) raise(PyExc_ValueError, "seeds: give at least one seed");
  } else {
    raise(PyExc_ValueError, "seeds: give a count (seeds 1..K) or a list of seeds, got " +
                                std::string(py::repr(seeds)));
  }
  o.jobs = jobs;
  o.out = out;
  o.threads = threads;
  o.quiet = true;
  o.result_line = false;
  o.driver = driver;
  std::atomic<int> interrupt{0};
  o.interrupt = &interrupt;
  try {
    call(interrupt, [&] { cli::run_sweep(o); });
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_KeyboardInterrupt))
      raise(PyExc_KeyboardInterrupt, "sweep interrupted: the runs under way finished, the others did not "
                                     "start; the finished ones in " + out + " are kept, and the same "
                                     "sweep into the same out skips them");
    throw;
  }
}

}  // namespace

void add_runs(py::module_& m) {
  m.def("_run_into", &run_into, py::arg("scenario"), py::arg("out"), py::arg("threads"),
        py::arg("driver"), py::arg("force"), py::arg("objective") = py::none(), py::arg("observer") = py::none(),
        py::arg("observer_types") = std::set<std::string>());
  m.def("_sweep_into", &sweep_into, py::arg("scenario"), py::arg("grid"), py::arg("seeds"),
        py::arg("jobs"), py::arg("out"), py::arg("threads"), py::arg("driver"));
}

}  // namespace fedsim::python
