#pragma once
/// A Python observer of a run (issue 36, part 4): fedsim.run(..., observer=obs) gets the run's
/// live stream (tools/fedsim/live_run.hpp, the lines `fedsim run --stream FILE` writes, in
/// their deterministic order) as a LineSink that hands each line to a Python function, with the
/// GIL taken only around the call. The function (python/fedsim/__init__.py's `_observer`) turns
/// the line into a dict and calls the user's callable or method.
///
/// In virtual time the lines come from the recorder actor (one thread at a time, once their
/// wave is complete), and the start and end lines from the thread that runs the run. When the
/// function raises, its exception is kept (raised_error()), no further line is handed to it,
/// and the write throws std::runtime_error: the recorder fails, which fails the run.
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <pybind11/pybind11.h>

#include "tools/fedsim/live_run.hpp"

namespace fedsim::python {

class PythonObserver {
 public:
  /// `deliver`: a callable taking one line (str); `types`: the record types it takes (the
  /// lines of other types are skipped without taking the GIL), or every type when empty. Call
  /// with the GIL held.
  PythonObserver(pybind11::object deliver, std::set<std::string> types);
  /// Takes the GIL to let go of the function (the last owner may be an actor's thread).
  ~PythonObserver();
  PythonObserver(const PythonObserver&) = delete;
  PythonObserver& operator=(const PythonObserver&) = delete;

  /// Calls deliver(line) with the GIL held (nothing once it has raised, or for a line of a
  /// type not taken).
  void write(const std::string& line);

  /// The exception deliver raised, if it did (GIL held).
  std::optional<pybind11::error_already_set> raised_error() const;

 private:
  pybind11::object deliver_;
  std::set<std::string> types_;
  mutable std::mutex mutex_;
  std::optional<pybind11::error_already_set> error_;
};

/// A sink of the live stream writing to `observer` (which it keeps alive).
cli::LineSink observer_sink(std::shared_ptr<PythonObserver> observer);

}  // namespace fedsim::python
