#pragma once
/// Output folders that two commands cannot mix: a lock per folder in use, runs written into a
/// temporary folder and moved into place when complete, and a configuration hash in
/// summary.json that tells a run of this configuration from a stale one.
#include <filesystem>
#include <optional>
#include <string>

#include "actors/run_config.hpp"

namespace fedsim::cli {

/// Hash of config.resolved.toml's content without its comment lines (which name the file it
/// came from): "fnv1a64:" and 16 hex digits. Equal hashes, equal resolved configurations.
std::string config_hash(const scenario::ScenarioConfig& config);

/// A file's whole content (empty when it cannot be read).
std::string read_text(const std::filesystem::path& p);

/// An exclusive lock on a folder (flock on FOLDER/.fedsim.lock, which holds the holder's pid and
/// command line while it runs). Creates the folder. Throws UsageError when the folder cannot be
/// created or another process holds the lock (naming its pid and command).
class FolderLock {
 public:
  FolderLock(const std::filesystem::path& dir, const std::string& command);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

/// The command line of this process, for lock files ("fedsim run x.toml --out d").
std::string command_line(int argc, char** argv);
/// Set by main(): what FolderLock writes into its lock file.
void set_command_line(std::string command);
const std::string& current_command_line();

/// What an output folder holds.
enum class FolderState { absent, empty, same_run, other_run, not_a_run };

/// absent or empty; a run (config.resolved.toml or summary.json at its top) of the same
/// configuration (summary.json's config_hash, or the resolved configuration when there is no
/// summary) or of another; or other files.
FolderState folder_state(const std::filesystem::path& dir, const scenario::ScenarioConfig& config);

/// The configuration hash of the run `dir` holds: summary.json's config_hash, or that of
/// config.resolved.toml when there is no summary (a run being published); nullopt when it holds
/// neither ("" when its summary.json has no readable config_hash).
std::optional<std::string> folder_config_hash(const std::filesystem::path& dir);

/// A fresh temporary folder next to `dir` (same parent, so moving it into place is a rename):
/// ".NAME.tmp-PID". Removed by the destructor unless published.
class StagingFolder {
 public:
  explicit StagingFolder(const std::filesystem::path& dir);
  ~StagingFolder();
  const std::filesystem::path& path() const { return path_; }
  /// Moves the staged run into `dir_`: removes the files at dir's top (a previous run's; the
  /// lock file stays), moves every staged entry in, summary.json last, so a reader sees either
  /// no summary.json or the complete new run.
  void publish();

 private:
  std::filesystem::path dir_, path_;
  bool published_ = false;
};

}  // namespace fedsim::cli
