#include "tools/fedsim/run_checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "scenarios/echo.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/version.hpp"

namespace fedsim::cli {
namespace fs = std::filesystem;
namespace {

std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_interrupt(int signal) { g_interrupt.store(signal); }

}  // namespace

fs::path checkpoint_folder(const fs::path& run_dir) { return run_dir / "checkpoint"; }

bool has_checkpoint(const fs::path& run_dir) {
  std::error_code ec;
  const fs::path c = checkpoint_folder(run_dir);
  return fs::exists(c, ec) || fs::exists(c.string() + ".old", ec);
}

void remove_checkpoint(const fs::path& run_dir) {
  const fs::path c = checkpoint_folder(run_dir);
  fs::remove_all(c);
  fs::remove_all(c.string() + ".old");
  fs::remove_all(run_dir / ".checkpoint.new");
}

std::string checkpoint_header(const scenario::ScenarioConfig& config, const std::string& replaces) {
  nlohmann::json header{{"writer", "fedsim run"},
                        {"fedsim_version", fedsim_version()},
                        {"fedsim_build", fedsim_build()},
                        {"config_hash", config_hash(config)},
                        {"source", config.source_file},
                        {"config", scenario::to_toml(config)}};
  if (!replaces.empty()) header["replaces"] = replaces;
  return header.dump();
}

namespace {

/// The header's object, or UsageError when it is not fedsim run's.
nlohmann::json parse_header(const actors::Checkpoint& checkpoint) {
  const auto header = nlohmann::json::parse(checkpoint.header, nullptr, false);
  if (!header.is_object() || header.value("writer", "") != "fedsim run" ||
      !header.contains("config") || !header["config"].is_string())
    throw UsageError("checkpoint " + checkpoint.location.string() + ": not written by fedsim run");
  return header;
}

/// A header's string field, "" when absent or of another type.
std::string text_of(const nlohmann::json& header, const char* key) {
  const auto it = header.find(key);
  return it != header.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

scenario::ScenarioConfig checkpoint_config(const actors::Checkpoint& checkpoint, bool any_build) {
  const std::string where = "checkpoint " + checkpoint.location.string();
  const nlohmann::json header = parse_header(checkpoint);
  const std::string version = text_of(header, "fedsim_version");
  if (version != fedsim_version())
    throw UsageError(where + ": written by fedsim " + version + ", this is fedsim " +
                     fedsim_version() + " (a run continued by another version could differ)");
  const std::string build = text_of(header, "fedsim_build");
  if (!any_build && build != fedsim_build())
    throw UsageError(where + ": written by the build of commit " +
                     (build.empty() ? std::string("(none recorded)") : build) +
                     ", this is the build of " + fedsim_build() +
                     " (a run continued by another build could differ); give --resume-any-build "
                     "to continue it anyway");
  scenario::ScenarioConfig config;
  try {
    // Loaded under its first source's name (summary.json's "source"); every path in a
    // resolved configuration is absolute.
    config = scenario::load_scenario_text(header["config"].get<std::string>(),
                                          text_of(header, "source").empty()
                                              ? std::string("checkpoint")
                                              : text_of(header, "source"))
                 .config;
  } catch (const std::exception& e) {
    throw UsageError(where + ": its configuration no longer loads: " + e.what());
  }
  if (config_hash(config) != text_of(header, "config_hash"))
    throw UsageError(where + ": its configuration loads to another hash than it was run with");
  return config;
}

std::string checkpoint_replaces(const actors::Checkpoint& checkpoint) {
  return text_of(parse_header(checkpoint), "replaces");
}

void check_resume_folder(const fs::path& run_dir, const actors::Checkpoint& checkpoint,
                         const scenario::ScenarioConfig& config) {
  const std::optional<std::string> held = folder_config_hash(run_dir);
  if (!held || *held == config_hash(config)) return;  // no run yet, or this one's
  if (*held == text_of(parse_header(checkpoint), "replaces")) return;  // started with --force
  throw UsageError("--resume " + scenario::quote(run_dir.string()) +
                   ": the folder holds a run of another configuration (" + *held +
                   ") than its checkpoint's (" + config_hash(config) +
                   "); the checkpoint belongs to another folder: give it its own");
}

InterruptGuard::InterruptGuard(fs::path run_dir)
    : run_dir_(std::move(run_dir)), grace_(interrupt_grace_seconds) {
  if (const char* v = std::getenv("FEDSIM_DEBUG_INTERRUPT_GRACE"); v && *v)
    grace_ = std::max(0.0, std::atof(v));
  g_interrupt.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal is not caught: it ends the process
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  watchdog_ = std::thread([this] { watch(); });
}

void InterruptGuard::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  // A signal handler can only set the flag: it is looked at every 100 ms.
  while (!done_ && g_interrupt.load() == 0) ended_.wait_for(lock, std::chrono::milliseconds(100));
  if (done_) return;
  const int signal = g_interrupt.load();
  const auto grace = std::chrono::duration<double>(grace_);
  for (;;) {
    if (ended_.wait_for(lock, grace, [this] { return done_; })) return;
    std::error_code ec;
    if (!fs::exists(run_dir_ / ".checkpoint.new", ec)) break;  // else one is being written
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", grace_);
  const std::string line = "fedsim: interrupted: " + signal_name(signal) +
                           ": the run reached no quiet moment to save a checkpoint within " +
                           seconds + " s (its members wait for something that does not come); "
                           "stopped without one\n";
  (void)!::write(2, line.data(), line.size());
  std::_Exit(128 + signal);
}

InterruptGuard::~InterruptGuard() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  ended_.notify_all();
  watchdog_.join();
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

const std::atomic<int>& InterruptGuard::flag() { return g_interrupt; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace fedsim::cli
