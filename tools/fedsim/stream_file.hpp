#pragma once
/// `--stream FILE` (or `-`): where a run's live stream (live_run.hpp) goes.
#include <filesystem>
#include <string>

#include "tools/fedsim/live_run.hpp"

namespace fedsim::cli {

/// Opens FILE (locked against a second run, then truncated), or takes standard output for "-",
/// and returns its sink: a line per call, flushed when the run asks (after each round and at
/// the end); a failed write throws (the run fails naming --stream). Throws UsageError (exit 2,
/// one line) for a file that cannot be created, a FIFO without a reader, a file another run
/// streams to, or one inside `out_dir`, the run's folder, whose files the run replaces.
LineSink open_stream_file(const std::string& file, const std::filesystem::path& out_dir);

}  // namespace fedsim::cli
