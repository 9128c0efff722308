// `fedsim plot`: the plots of run and sweep folders, drawn by tools/plot/fedsim_plot.py with
// matplotlib. C++ checks the arguments (so bad ones exit 2 with one line) and runs the script
// with Debian's Python, which is where tools/setup installs matplotlib and numpy.
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "scenarios/echo.hpp"
#include "tools/fedsim/commands.hpp"

extern char** environ;

namespace fedsim::cli {
namespace {

namespace fs = std::filesystem;

struct PlotOptions {
  std::vector<std::string> dirs;
  std::string out;
  std::vector<std::string> labels;
  std::string format = "png";
  bool log_y = false;
  bool no_title = false;
};

/// The script: next to an installed binary (<prefix>/share/fedsim/plot/), else in the source
/// tree this binary was built from.
fs::path find_script() {
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path() / "../share/fedsim/plot/fedsim_plot.py");
#ifdef FEDSIM_PLOT_SCRIPT
  candidates.push_back(FEDSIM_PLOT_SCRIPT);
#endif
  std::string looked;
  for (const auto& c : candidates) {
    if (fs::is_regular_file(c)) return fs::weakly_canonical(c);
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::runtime_error("cannot find the plot script fedsim_plot.py (looked in " + looked + ")");
}

/// Runs argv[0] with argv, its output going to ours; returns its exit code.
int run_child(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  const int err = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (err != 0)
    throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(err) +
                             " (set FEDSIM_PYTHON to a Python 3 with matplotlib and numpy)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waiting for " + args[0] + ": " + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void plot(const PlotOptions& o) {
  if (!o.labels.empty() && o.labels.size() != o.dirs.size())
    throw UsageError("--label: given " + std::to_string(o.labels.size()) + " times for " +
                     std::to_string(o.dirs.size()) + " folders; give one per DIR, in order, or none");
  if (o.format != "png" && o.format != "pdf" && o.format != "svg")
    throw UsageError("--format " + scenario::quote(o.format) + ": not an image format; give png, pdf or svg");
  for (const auto& d : o.dirs) {
    if (!fs::is_directory(d)) throw UsageError("DIR '" + d + "': no such folder");
    const fs::path dir(d);
    if (!fs::exists(dir / "observations.csv") && !fs::exists(dir / "sweep_runs.csv"))
      throw UsageError("DIR '" + d + "': neither a run folder (observations.csv) nor a sweep "
                       "folder (sweep_runs.csv)");
  }
  const std::string out = !o.out.empty() ? o.out
                          : o.dirs.size() == 1 ? (fs::path(o.dirs.front()) / "plots").string()
                                               : "out/plots";
  // The script would die with a traceback on a file in the way; say it in one line.
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out))
    throw UsageError("--out " + scenario::quote(out) + ": cannot create the folder (" +
                     (ec ? ec.message() : std::string("a file is in the way")) + ")");
  // Debian's interpreter, not `python3` from PATH: a pyenv shim there does not see
  // Debian's matplotlib.
  const char* python = std::getenv("FEDSIM_PYTHON");
  std::vector<std::string> args = {python && *python ? python : "/usr/bin/python3",
                                   find_script().string(), "--out", out, "--format", o.format};
  if (o.log_y) args.push_back("--log-y");
  if (o.no_title) args.push_back("--no-title");
  for (const auto& l : o.labels) {
    args.push_back("--label");
    args.push_back(l);
  }
  args.push_back("--");
  args.insert(args.end(), o.dirs.begin(), o.dirs.end());
  const int code = run_child(args);
  if (code != 0)
    throw std::runtime_error(args[1] + " (run by " + args[0] + ") failed with exit code " +
                             std::to_string(code));
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto o = std::make_shared<PlotOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "Plot regret curves, privacy-utility and straggler views of run or sweep folders");
  cmd->add_option("DIR", o->dirs, "run folders (fedsim run) or sweep folders (fedsim sweep)")
      ->required();
  cmd->add_option("--out", o->out,
                  "folder for the images and plot_data.csv (default: DIR/plots for one DIR, "
                  "out/plots for several)");
  cmd->add_option("--label", o->labels,
                  "legend label of each DIR, in order (repeatable); a sweep's label comes before "
                  "each grid point's values (\"fts-de, q = 0.25\"), \"\" leaves the values alone")
      ->allow_extra_args(false);  // one label per --label, so DIRs may follow
  cmd->add_option("--format", o->format,
                  "image format: png (default), pdf or svg; plot_data.csv and plots.json always");
  cmd->add_flag("--log-y", o->log_y,
                "regret figures (regret, regret_time, cumulative_regret, privacy_utility) on a "
                "logarithmic y axis");
  cmd->add_flag("--no-title", o->no_title,
                "no title (by default the scenarios with their N and T, from summary.json)");
  cmd->footer(
      "Writes into --out, as FORMAT: regret, regret_time (not on a perfect network), "
      "cumulative_regret (Fed-PNE, HCT), privacy_utility (private runs), alive (agents alive "
      "over time; when the count changes), stragglers (late and dropped reports per round; "
      "sync, deadline, quorum runs with any), too_stale (async runs: vectors dropped as too "
      "stale), staleness (rounds late of late reports, from events.jsonl); a figure with "
      "nothing to show is not drawn and says so on stderr. plot_data.csv holds every number "
      "plotted (plot, label, x, y, se, n), plots.json what each figure shows (title, axes, "
      "scale, legend and colours). Labels: grid keys by their value (algorithm.name, "
      "policy.kind) or last part or symbol (world.agents N, algorithm.clip S, ...); a label "
      "keeps its colour in every figure. Bands are +-1 standard error over seeds.");
  cmd->callback([o] { plot(*o); });
}

}  // namespace fedsim::cli
