#pragma once
/// `--stream FILE` (or `-`): where a run's live stream (live_run.hpp) goes.
#include <filesystem>
#include <string>

#include "tools/fedsim/live_run.hpp"

namespace fedsim::cli {

/// Opens (truncates) FILE, or takes standard output for "-", and returns its sink: a line per
/// call, flushed when the run asks (after each round and at the end). Throws UsageError (exit
/// 2, one line) for a file that cannot be created, or one inside `out_dir`, the run's folder,
/// whose files the run replaces when it ends.
LineSink open_stream_file(const std::string& file, const std::filesystem::path& out_dir);

}  // namespace fedsim::cli
