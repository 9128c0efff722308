#include "actors/checkpoint/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "actors/checkpoint/state_archive.hpp"

namespace fedsim::actors {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[8] = {'F', 'E', 'D', 'S', 'I', 'M', 'C', 'K'};

std::uint64_t fnv1a64(const char* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t k = 0; k < n; ++k) {
    h ^= static_cast<unsigned char>(data[k]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

template <class A>
void checkpoint_fields(A& a, Checkpoint& c) {
  a(c.header, c.rounds, c.time, c.network, c.server, c.recorder, c.accountant, c.members);
}

void put_u64(std::vector<char>& out, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return v;
}

/// Writes and flushes a file: a checkpoint that says it is complete must be on disk.
void write_synced(const fs::path& file, const std::vector<char>& bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("checkpoint: cannot write " + file.string() + " (" + std::strerror(errno) + ")");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw std::runtime_error("checkpoint: cannot write " + file.string() + " (" + why + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) throw std::runtime_error("checkpoint: cannot flush " + file.string() + " to disk");
}

fs::path old_twin(const fs::path& folder) { return fs::path(folder.string() + ".old"); }

}  // namespace

void write_checkpoint_state(const fs::path& folder, Checkpoint& checkpoint) {
  fs::create_directories(folder);
  const std::vector<char> body =
      save_state(nullptr, [&](auto& a) { checkpoint_fields(a, checkpoint); });
  write_synced(folder / checkpoint_state_file, seal_checkpoint_body(body));
}

void publish_checkpoint(const fs::path& staged, const fs::path& target) {
  const fs::path old = old_twin(target);
  fs::remove_all(old);
  if (fs::exists(target)) fs::rename(target, old);
  fs::rename(staged, target);
  fs::remove_all(old);
}

fs::path checkpoint_location(const fs::path& folder) {
  if (fs::exists(folder / checkpoint_state_file)) return folder;
  if (fs::exists(old_twin(folder) / checkpoint_state_file)) return old_twin(folder);
  return folder;
}

Checkpoint parse_checkpoint(const std::vector<char>& bytes, const std::string& name) {
  auto fail = [&](const std::string& what) -> CheckpointRefused {
    return CheckpointRefused("checkpoint " + name + ": " + what);
  };
  if (bytes.size() < 8 + 4 + 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw fail("not a fedsim checkpoint");
  std::uint32_t version = 0;
  for (int k = 0; k < 4; ++k)
    version |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
  if (version != Checkpoint::format_version)
    throw fail("format version " + std::to_string(version) + ", this fedsim reads version " +
               std::to_string(Checkpoint::format_version));
  const std::size_t body_end = bytes.size() - 8;
  if (get_u64(bytes.data() + body_end) != fnv1a64(bytes.data(), body_end))
    throw fail("checksum mismatch (the file is truncated or was altered)");
  const std::vector<char> body(bytes.begin() + 12, bytes.begin() + static_cast<std::ptrdiff_t>(body_end));
  Checkpoint c;
  try {
    load_state(nullptr, body, "state", [&](auto& a) { checkpoint_fields(a, c); });
  } catch (const std::runtime_error& e) {
    throw fail(e.what());
  }
  if (c.rounds < 0) throw fail("state: rounds closed " + std::to_string(c.rounds) + " < 0");
  if (!(c.time >= 0.0 && c.time <= std::numeric_limits<double>::max()))
    throw fail("state: virtual time " + std::to_string(c.time) + " is not finite and >= 0");
  return c;
}

std::vector<char> seal_checkpoint_body(const std::vector<char>& body) {
  std::vector<char> bytes(kMagic, kMagic + 8);
  const std::uint32_t version = Checkpoint::format_version;
  for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<char>((version >> (8 * k)) & 0xFF));
  bytes.insert(bytes.end(), body.begin(), body.end());
  put_u64(bytes, fnv1a64(bytes.data(), bytes.size()));
  return bytes;
}

Checkpoint read_checkpoint(const fs::path& folder) {
  const fs::path file = checkpoint_location(folder) / checkpoint_state_file;
  std::error_code ec;
  if (!fs::exists(file, ec))
    throw CheckpointRefused("checkpoint " + file.string() + ": not found (no checkpoint was written there)");
  if (!fs::is_regular_file(file, ec))
    throw CheckpointRefused("checkpoint " + file.string() + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    throw CheckpointRefused("checkpoint " + file.string() + ": cannot be read");
  Checkpoint c = parse_checkpoint(bytes, file.string());
  c.location = file.parent_path();
  return c;
}

RunInterrupted::RunInterrupted(int signal_, std::int64_t rounds_, double time_, std::string folder_)
    : std::runtime_error("run interrupted at a checkpoint"),
      signal(signal_), rounds(rounds_), time(time_), folder(std::move(folder_)) {}

}  // namespace fedsim::actors
