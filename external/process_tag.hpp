#pragma once
/// Finding what a worker process started, wherever it went. A worker is started with one more
/// environment variable, its tag (FEDSIM_WORKER_TAG_<fedsim's pid>_<serial>=1), which every
/// process it starts inherits; killing the worker's process group misses a child that called
/// setsid (or setpgid), and a daemon that double-forked is no longer its descendant, but both
/// still carry the tag. kill_tagged finds them in /proc (processes of this user whose
/// environment holds the tag) and kills them. A process that clears its environment escapes.
#include <string>

namespace fedsim::external {

/// A new tag: "FEDSIM_WORKER_TAG_<pid>_<serial>=1", unique in this process.
std::string make_process_tag();

/// SIGKILLs every process whose environment holds `tag`, again until none is left (at most a
/// few rounds: one may fork while it is being looked for); returns how many it killed.
int kill_tagged(const std::string& tag);

}  // namespace fedsim::external
