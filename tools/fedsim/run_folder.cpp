#include "tools/fedsim/run_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "scenarios/echo.hpp"
#include "scenarios/loader.hpp"
#include "tools/fedsim/commands.hpp"

namespace fedsim::cli {
namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

constexpr const char* kLockName = ".fedsim.lock";

/// The resolved configuration without its comment lines.
std::string config_body(const std::string& toml) {
  std::istringstream in(toml);
  std::string line, body;
  while (std::getline(in, line))
    if (line.empty() || line[0] != '#') body += line + "\n";
  return body;
}

std::string& command_store() {
  static std::string command = "fedsim";
  return command;
}

}  // namespace

namespace {
/// "fnv1a64:" and the 16 hex digits of `text`'s FNV-1a hash (64 bits).
std::string text_hash(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}
}  // namespace

std::string config_hash(const scenario::ScenarioConfig& config) {
  return text_hash(config_body(scenario::to_toml(config)));
}

std::optional<std::string> folder_config_hash(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / "summary.json", ec)) {
    const auto summary =
        nlohmann::json::parse(read_text(dir / "summary.json"), nullptr, /*allow_exceptions=*/false);
    const bool has = summary.is_object() && summary.contains("config_hash") &&
                     summary["config_hash"].is_string();
    return has ? summary["config_hash"].get<std::string>() : std::string();
  }
  if (!fs::exists(dir / "config.resolved.toml", ec)) return std::nullopt;
  return text_hash(config_body(read_text(dir / "config.resolved.toml")));
}

std::string command_line(int argc, char** argv) {
  std::string out = "fedsim";
  for (int i = 1; i < argc; ++i) out += std::string(" ") + argv[i];
  return out;
}

void set_command_line(std::string command) { command_store() = std::move(command); }
const std::string& current_command_line() { return command_store(); }

FolderLock::FolderLock(const fs::path& dir, const std::string& command) : file_(dir / kLockName) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw UsageError("--out " + scenario::quote(dir.string()) + ": cannot create the folder (" +
                     (ec ? ec.message() : std::string("a file is in the way")) + ")");
  for (int attempt = 0; attempt < 10; ++attempt) {
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw UsageError("--out " + scenario::quote(dir.string()) + ": cannot write there (" +
                       std::strerror(errno) + ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      std::string holder = read_text(file_);
      while (!holder.empty() && holder.back() == '\n') holder.pop_back();
      ::close(fd_);
      fd_ = -1;
      throw UsageError("--out " + scenario::quote(dir.string()) + " is in use by " +
                       (holder.empty() ? std::string("another fedsim process")
                                       : scenario::quote(holder, 300)) +
                       "; wait for it to finish or choose another --out");
    }
    // The holder before us may have removed the file between our open and our lock: lock the
    // file that is at the path now.
    struct stat at_fd {}, at_path {};
    if (::fstat(fd_, &at_fd) == 0 && ::stat(file_.c_str(), &at_path) == 0 &&
        at_fd.st_ino == at_path.st_ino && at_fd.st_dev == at_path.st_dev)
      break;
    ::close(fd_);
    fd_ = -1;
  }
  if (fd_ < 0) throw std::runtime_error("cannot lock " + file_.string());
  const std::string text = "pid " + std::to_string(::getpid()) + ": " + command + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::write(fd_, text.data(), text.size()) < 0) {
    // The lock holds without its description.
  }
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  ::unlink(file_.c_str());  // while still holding the lock; see the constructor's check
  ::close(fd_);
}

FolderState folder_state(const fs::path& dir, const scenario::ScenarioConfig& config) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return FolderState::absent;
  bool empty = true;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name != kLockName) empty = false;
  }
  if (empty) return FolderState::empty;
  const bool has_summary = fs::exists(dir / "summary.json", ec);
  const bool has_config = fs::exists(dir / "config.resolved.toml", ec);
  if (!has_summary && !has_config) return FolderState::not_a_run;
  if (has_summary) {
    const auto summary =
        nlohmann::json::parse(read_text(dir / "summary.json"), nullptr, /*allow_exceptions=*/false);
    const bool same = summary.is_object() && summary.contains("config_hash") &&
                      summary["config_hash"] == config_hash(config);
    return same ? FolderState::same_run : FolderState::other_run;
  }
  return config_body(read_text(dir / "config.resolved.toml")) ==
                 config_body(scenario::to_toml(config))
             ? FolderState::same_run
             : FolderState::other_run;
}

namespace {
/// `dir` absolute, without "." or ".." and without a trailing '/', so it has a parent and a name.
fs::path normal(const fs::path& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}
}  // namespace

StagingFolder::StagingFolder(const fs::path& dir)
    : dir_(normal(dir)),
      path_(dir_.parent_path() /
            ("." + dir_.filename().string() + ".tmp-" + std::to_string(::getpid()))) {
  fs::remove_all(path_);
  fs::create_directories(path_);
}

StagingFolder::~StagingFolder() {
  if (published_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void StagingFolder::publish() {
  fs::create_directories(dir_);
  fs::remove(dir_ / "summary.json");  // first: the folder is incomplete from here on
  for (const auto& entry : fs::directory_iterator(dir_))
    if (entry.path().filename() != kLockName && !entry.is_directory()) fs::remove(entry.path());
  for (const auto& entry : fs::directory_iterator(path_)) {
    const fs::path target = dir_ / entry.path().filename();
    if (entry.path().filename() == "summary.json") continue;
    fs::remove_all(target);
    fs::rename(entry.path(), target);
  }
  if (fs::exists(path_ / "summary.json")) fs::rename(path_ / "summary.json", dir_ / "summary.json");
  fs::remove_all(path_);
  published_ = true;
}

}  // namespace fedsim::cli
