#pragma once
/// `fedsim run`'s side of checkpoints (actors/checkpoint/checkpoint.hpp): where a run folder
/// keeps its checkpoint, what the CLI stores in one (the header), and the SIGINT/SIGTERM
/// handlers that turn a signal into a checkpoint.
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "actors/checkpoint/checkpoint.hpp"
#include "actors/run_config.hpp"

namespace fedsim::cli {

/// DIR/checkpoint: the run folder's checkpoint (replaced by each new one, removed when the
/// run completes).
std::filesystem::path checkpoint_folder(const std::filesystem::path& run_dir);

/// Whether DIR holds a checkpoint (or the remains of one being replaced).
bool has_checkpoint(const std::filesystem::path& run_dir);

/// Removes DIR's checkpoint and anything a checkpoint being written left behind.
void remove_checkpoint(const std::filesystem::path& run_dir);

/// The header fedsim run stores in a checkpoint: fedsim's version and build (its commit), the
/// configuration's hash, the scenario file it came from and the resolved configuration itself
/// (JSON). `replaces`: the configuration hash of another run the folder held when this one
/// started with --force (the one run a resume may replace besides its own), or "".
std::string checkpoint_header(const scenario::ScenarioConfig& config, const std::string& replaces = "");

/// The configuration of a checkpoint's run, from its header. Throws UsageError when the header
/// is not fedsim run's, was written by another fedsim version or, unless `any_build`, by another
/// build (whose run may differ), or its configuration no longer loads to the same hash.
scenario::ScenarioConfig checkpoint_config(const actors::Checkpoint& checkpoint, bool any_build = false);

/// Refuses (UsageError) to resume `checkpoint` (of `config`) in `run_dir` when the folder holds a
/// run of another configuration that the checkpoint's run was not started to replace: a
/// checkpoint copied from another folder must not overwrite the run there.
void check_resume_folder(const std::filesystem::path& run_dir, const actors::Checkpoint& checkpoint,
                         const scenario::ScenarioConfig& config);

/// The header's `replaces` (checkpoint_header), "" when none: a resumed run's next checkpoint
/// keeps it.
std::string checkpoint_replaces(const actors::Checkpoint& checkpoint);

/// While alive, SIGINT and SIGTERM set `flag()` to the signal's number instead of killing the
/// process (a second one kills it: the handlers reset themselves). The previous handlers come
/// back with the destructor.
///
/// A signal is never ignored: the run saves its checkpoint at its next quiet moment, and a run
/// that reaches none within the grace period (interrupt_grace_seconds, or
/// FEDSIM_DEBUG_INTERRUPT_GRACE seconds for tests) and is not writing one (run_dir's
/// .checkpoint.new) ends the process with one line ("fedsim: interrupted: SIGTERM: ...") and
/// exit 128 + the signal, without a checkpoint: every member may be waiting for something that
/// never comes.
class InterruptGuard {
 public:
  static constexpr double interrupt_grace_seconds = 10.0;
  explicit InterruptGuard(std::filesystem::path run_dir);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static const std::atomic<int>& flag();

 private:
  void watch();
  struct sigaction old_int_ {}, old_term_ {};
  std::filesystem::path run_dir_;
  double grace_;
  std::mutex mutex_;
  std::condition_variable ended_;
  bool done_ = false;
  std::thread watchdog_;
};

/// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal);

}  // namespace fedsim::cli
