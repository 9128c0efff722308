#pragma once
/// The live view of a run (`fedsim run --stream`, `--dashboard`, and the progress line): every
/// record the run's observer sees (actors::RunObserver) becomes one JSON object on a line, with
/// a start line before the run and an end line after it. The schema, version 1, is in
/// docs/stream.md.
///
/// In virtual time the lines of one virtual instant are held until the clock moves on, then
/// written in an order that never depends on thread timing (records of one instant arrive in
/// any order), so a stream is the same for any thread count but for its `wall` fields; the
/// running figures a round line carries (regret so far) count every observation of the round's
/// instant. In wall-clock time each record is written as it arrives.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/federation.hpp"

namespace fedsim::cli {

/// Where lines go: `write` gets each line without its newline; `flush` is called after each
/// round (phase) and at the end.
struct LineSink {
  std::function<void(const std::string& line)> write;
  std::function<void()> flush;
};

class LiveRun {
 public:
  /// `progress`: print the progress line to stderr (`tty`: in place; otherwise a plain line
  /// every tenth of the run for FBO, every phase for Fed-PNE).
  LiveRun(const scenario::ScenarioConfig& config, bool progress, bool tty);
  ~LiveRun();
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  void add_sink(LineSink sink);
  /// The records come from a finished run's files (run_replay.hpp): every `wall` is null.
  void replaying();
  /// Sets the observer's callbacks (those already set are called first). Call before the run,
  /// after add_sink: without a sink only the progress line is kept, from records taken as
  /// they arrive, and the network is not asked for state changes and waves.
  void attach(actors::RunObserver& observer);
  /// The start line, to every sink added so far (add sinks first).
  void start(int threads);
  /// The lines still held, then the end line; ends the progress line.
  void end(const actors::RunResult& result);
  /// The run failed or stopped: the lines still held, then an end line with the reason (a
  /// sink that fails here is ignored: the run's error is the one to report).
  void abort(const std::string& reason);
  /// start(threads), then `run` (returning a result whose `run` is the RunResult) and end with
  /// it; when `run` throws, an abort saying why ("interrupted: checkpoint saved in F" for a
  /// stop at a checkpoint, else the error), and the exception goes on to the caller.
  template <class Run>
  auto around(int threads, Run&& run) -> decltype(run()) {
    start(threads);
    try {
      auto ran = run();
      end(ran.run);
      return ran;
    } catch (const actors::RunInterrupted& e) {
      abort("interrupted: checkpoint saved in " + e.folder);
      throw;
    } catch (const std::exception& e) {
      abort(e.what());
      throw;
    }
  }

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace fedsim::cli
