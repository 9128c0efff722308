#pragma once
/// A checkpoint: the whole federation's state at a quiet moment of a run in virtual time, from
/// which `run_federation` continues as if it had never stopped (the finished outputs are
/// byte-identical to an uninterrupted run's).
///
/// Quiet moments: the network delivers the events of one virtual time, waits until every
/// recipient has answered, then queues what they sent. Between the two, every member is idle
/// and every message in flight is in the network's queue, so the states of the members plus
/// the queue are the whole federation. A checkpoint is taken there when the server has just
/// closed a round (phase) that is a multiple of `checkpoint_every`, or when an interrupt
/// (SIGINT, SIGTERM) was raised.
///
/// What it holds (format version 5, folder `checkpoint/` with `state.bin`; version 1 had
/// agents on candidate sets only, one x per observation and no pending answers; version 2
/// an accountant with one epsilon, not three; version 3 no timers settled at once; version 4
/// no regret table and no family flag in the recorder):
///  - network: clock, queue of pending deliveries (payloads included, timers settled at once
///    marked, with what their agents sent after them), per-sender counters,
///    each link's loss-model state, totals, event sequence, rounds closed so far;
///  - server: round (phase), open/stopped flags, kept reports, membership, counts, timers armed,
///    the event sequence; Fed-PNE's server also the engine server's phase and reports;
///  - each agent: its noise stream's position, the observations it made since its last
///    reset (the engine agent's posterior is rebuilt by observing them again in order, which
///    reproduces it bit for bit), pending queries with the answers already in, flags, the broadcasts it holds and the FTS
///    pool's weights; each Fed-PNE client its engine client's phase, sums and counts;
///  - accountant: the charges granted (replayed one by one into a fresh accountant), epsilon;
///  - recorder: every row it holds in memory, and its spill files (hard links in the folder),
///    or, in a run without files, its regret table (actors/recorder.hpp);
///  - the caller's header (fedsim's CLI: the resolved configuration, its hash and fedsim's
///    version), so a resume runs the same configuration.
/// state.bin: the 8 bytes "FEDSIMCK", the format version (u32, little-endian), the fields
/// above (actors/checkpoint/exact_serializer.hpp: every double bit for bit), and a 64-bit
/// FNV-1a checksum of everything before it. A state.bin that is short, altered or of another
/// format version is refused with a clear error, never half-loaded.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedsim::actors {

struct Checkpoint {
  static constexpr std::uint32_t format_version = 5;
  std::string header;        ///< the caller's (fedsim run: the resolved configuration)
  std::int64_t rounds = 0;   ///< rounds (Fed-PNE: phases) closed when it was taken
  double time = 0.0;         ///< the network's virtual clock
  std::vector<char> network, server, recorder, accountant;  ///< accountant: empty if none
  std::vector<std::vector<char>> members;  ///< agents (clients) by id
  /// Not saved: the folder read_checkpoint read it from (the recorder's spill files are there).
  std::filesystem::path location;
};

/// A checkpoint refused as it is loaded (bad input, not a bug: fedsim run exits 2 on it): a
/// state.bin that is missing, short, altered or of another format version, or whose decoded
/// state breaks an invariant of its member or does not fit the scenario (a size, a range, a
/// count, an ordering). what(): "checkpoint <where>: <member>: <what is wrong>".
struct CheckpointRefused : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// The checkpoint folder's state file.
inline constexpr const char* checkpoint_state_file = "state.bin";

/// Writes `folder`/state.bin (created; the recorder has already linked its spill files
/// there) and flushes it to disk. (Not const: the archive reads the fields by reference; they
/// are left unchanged.)
void write_checkpoint_state(const std::filesystem::path& folder, Checkpoint& checkpoint);

/// Replaces `target` by the complete checkpoint folder `staged`, so that a crash at any moment
/// leaves either the old or the new checkpoint at `target` (or at `target`.old, which
/// read_checkpoint also tries).
void publish_checkpoint(const std::filesystem::path& staged, const std::filesystem::path& target);

/// Reads a checkpoint folder (or its `.old` twin when a crash interrupted publishing). Throws
/// CheckpointRefused naming the file and what is wrong (missing, not a checkpoint, other
/// format version, truncated or altered).
Checkpoint read_checkpoint(const std::filesystem::path& folder);

/// The same from state.bin's bytes (`name` for messages); location is left empty.
Checkpoint parse_checkpoint(const std::vector<char>& bytes, const std::string& name);

/// state.bin's bytes around a body of checkpoint fields: magic, format version, checksum (for
/// write_checkpoint_state, and for the fuzz target that feeds parse_checkpoint's decoder).
std::vector<char> seal_checkpoint_body(const std::vector<char>& body);

/// Where read_checkpoint found the state: `folder`, or `folder`.old.
std::filesystem::path checkpoint_location(const std::filesystem::path& folder);

/// Thrown by run_federation when a run stopped at a checkpoint instead of finishing: on an
/// interrupt (`signal` is its number) or at RunOptions::stop_after_checkpoints (signal 0).
struct RunInterrupted : std::runtime_error {
  RunInterrupted(int signal, std::int64_t rounds, double time, std::string folder);
  int signal;
  std::int64_t rounds;
  double time;
  std::string folder;  ///< the checkpoint folder
};

}  // namespace fedsim::actors
