#include "tools/fedsim/fresh_run.hpp"

#include <cstdio>

#include "actors/run_keys.hpp"
#include "scenarios/echo.hpp"
#include "scenarios/resources.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/run_checkpoint.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/run_outputs.hpp"

namespace fedsim::cli {

void check_run_memory(const scenario::ScenarioConfig& config, const std::string& max_memory) {
  try {
    const scenario::MemoryLimit limit = scenario::memory_limit(max_memory, "--max-memory");
    const std::string why =
        scenario::memory_refusal("the run", scenario::estimate(config), limit, "--max-memory");
    if (!why.empty()) throw UsageError(why);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

scenario::WorkEstimate check_run_work(const scenario::ScenarioConfig& config,
                                      const std::string& max_work) {
  scenario::WorkLimit limit;
  try {
    limit = scenario::work_limit(max_work, "--max-work");
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const scenario::WorkEstimate work = scenario::estimate_work(config);
  const std::string why = scenario::work_refusal("the run", work, limit, "--max-work");
  if (!why.empty()) throw UsageError(why);
  return work;
}

void print_work_estimate(const std::string& what, const scenario::WorkEstimate& work) {
  if (work.seconds() > 60)
    std::fprintf(stderr, "fedsim: %s's estimated work: about %s (most: %s)\n", what.c_str(),
                 scenario::work_text(work.seconds()).c_str(), work.largest().what.c_str());
}

void check_fresh_folder(const std::filesystem::path& dir, const scenario::ScenarioConfig& config,
                        bool force) {
  if (has_checkpoint(dir)) {
    if (!force)
      throw UsageError("--out " + scenario::quote(dir.string()) +
                       " holds the checkpoint of an interrupted run; continue it with `fedsim run "
                       "--resume " + dir.string() + "`, or give --force to start over");
    remove_checkpoint(dir);
  }
  switch (folder_state(dir, config)) {
    case FolderState::absent:
    case FolderState::empty:
    case FolderState::same_run: return;
    case FolderState::other_run:
      if (force) return;
      throw UsageError("--out " + scenario::quote(dir.string()) +
                       " holds a run of another configuration; give --force to replace it, or "
                       "choose another --out");
    case FolderState::not_a_run:
      throw UsageError("--out " + scenario::quote(dir.string()) +
                       " holds files that are not a run's; choose another --out");
  }
}

std::string check_fresh_run(const scenario::ScenarioConfig& config, const std::filesystem::path& dir,
                            Driver driver, std::int64_t checkpoint_every, bool force) {
  check_driver(config, driver);
  if (driver != Driver::actors && checkpoint_every > 0)
    throw UsageError("--checkpoint-every: the loop driver takes no checkpoints (its runs "
                     "are short and have no network state); use --driver actors");
  if (config.run.wall() && checkpoint_every > 0)
    throw UsageError("--checkpoint-every: key '" + actors::run_keys::full(actors::run_keys::time) +
                     "' is \"wall\", and a run in wall-clock time takes no checkpoints (it "
                     "has no quiet moment to save); use run.time = \"virtual\"");
  std::string replaces;
  if (folder_state(dir, config) == FolderState::other_run)
    replaces = folder_config_hash(dir).value_or("");
  check_fresh_folder(dir, config, force);
  return replaces;
}

DriverResult run_staged(const scenario::ScenarioConfig& config, const std::filesystem::path& dir,
                        Driver driver, actors::RunOptions options,
                        const std::function<DriverResult(actors::RunOptions&)>& run) {
  StagingFolder staging(dir);
  write_resolved_config(staging.path(), config);
  options.out_dir = staging.path().string();
  DriverResult result = run(options);
  write_summary(staging.path(), config, result, driver);
  staging.publish();
  remove_checkpoint(dir);
  return result;
}

}  // namespace fedsim::cli
