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
                                   find_script().string(), "--out", out};
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
  cmd->add_option("--label", o->labels, "legend label of each DIR, in order (repeatable)")
      ->allow_extra_args(false);  // one label per --label, so DIRs may follow
  cmd->callback([o] { plot(*o); });
}

}  // namespace fedsim::cli
