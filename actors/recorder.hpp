#pragma once
/// The recorder actor: collects observation, round and network events during a run and, on
/// (finish_atom, folder), writes observations.csv, rounds.csv and events.jsonl there. Events
/// arrive in whatever order threads ran; they are sorted by keys that never depend on it, so
/// the files are byte-identical for any thread count.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/spill_sorter.hpp"

namespace fedsim::actors {

/// What an embedding program sees of a run while it goes: each callback (any may be empty)
/// is called on the recorder's thread for every record as it arrives, before the files are
/// written at the end. Arrival order: records of one virtual time may come in another order
/// on another thread count (the files are sorted and never do). A callback that throws fails
/// the run, naming the recorder.
struct RunObserver {
  std::function<void(const round_event&)> round;              ///< a round closed (FBO)
  std::function<void(const observation_event&)> observation;  ///< an agent's query (FBO)
  std::function<void(const network_event&)> event;            ///< an events.jsonl line
  std::function<void(const phase_event&)> phase;              ///< a phase closed (Fed-PNE)
  std::function<void(const pull_event&)> pull;                ///< a client's pulls (Fed-PNE)
  /// An agent's (client's) state changed (agent_state_event: crashed, partitioned, presumed
  /// dead, ...); the network and the server send these only when this is set.
  std::function<void(const agent_state_event&)> agent;
  /// Virtual time: the network is about to deliver the next wave of events at `time`; every
  /// record sent while handling the waves before has arrived (the records of one wave come in
  /// any order; between two calls they are one wave). Sent only when this is set.
  std::function<void(double time)> wave;
};

/// The order of each file's rows (a total order, so the files never depend on thread timing).
struct ObservationOrder {  ///< (agent, iteration)
  bool operator()(const observation_event& a, const observation_event& b) const;
};
struct EventOrder {  ///< (time, network before server, seq, then every other field)
  bool operator()(const network_event& a, const network_event& b) const;
};
struct PullOrder {  ///< (client, steps)
  bool operator()(const pull_event& a, const pull_event& b) const;
};
using ObservationRows = SpillSorter<observation_event, ObservationOrder>;
using EventRows = SpillSorter<network_event, EventOrder>;
using PullRows = SpillSorter<pull_event, PullOrder>;

/// Rows a recorder keeps in memory per file before it spills a sorted chunk to disk.
constexpr std::size_t default_recorder_rows = std::size_t{1} << 17;

/// What a run that writes no files (RunOptions::write_files) keeps of its observations: what
/// the mean regret curve needs, per agent its simple regret after each iteration it ran and the
/// best y of its row with the largest iteration. `replay` gives rows back in observations.csv's
/// (agent, iteration) order with those values, so the curve built from them is the one a run
/// with files gets, bit for bit: (T + 1) values per agent, not one row per observation.
struct RegretTable {
  std::vector<std::vector<double>> regret;  ///< [agent][iteration]
  std::vector<std::vector<char>> ran;       ///< [agent][iteration]: 1 where regret is set
  std::vector<double> best_y;               ///< [agent]
  std::vector<std::int32_t> last;           ///< [agent]: its largest iteration (-1: no row yet)
  std::vector<char> any;                    ///< [agent]: 1 once it has a row
  void add(const observation_event& o);     ///< ignores a row of a negative agent
  void replay(const std::function<void(const observation_event&)>& each) const;
};

template <class Archive>
void fields(Archive& a, RegretTable& t) {
  a(t.regret, t.ran, t.best_y, t.last, t.any);
}

struct RecorderState {
  bool files = true;  ///< false: no files, only what the results need (RunOptions::write_files)
  ObservationRows observations{default_recorder_rows, ObservationOrder{}};
  RegretTable regrets;  ///< in place of `observations` without files
  std::vector<round_event> rounds;  ///< one per round: small
  EventRows events{default_recorder_rows, EventOrder{}};
  PullRows pulls{default_recorder_rows, PullOrder{}};  ///< Fed-PNE runs
  std::vector<phase_event> phases;                     ///< Fed-PNE runs: one per phase
  std::vector<char> observed;         ///< per agent (client): observed (pulled) at least once
  std::vector<double> client_regret;  ///< Fed-PNE: each client's largest cumulative regret
  bool fed_pne = false;               ///< a pull or a phase came: a Fed-PNE run
  double last_time = 0.0;             ///< of the last observation (pull)
  std::int64_t failed_evaluations = 0;  ///< evaluation_failed events
  bool timed = false;  ///< some observation has a measured wall time (external objectives)
  RunObserver observer;
  static inline const char* name = "recorder";
};

/// (finish_atom, folder, write_events, agents N, iterations T, dimension d) -> finish_summary
/// (the mean simple regret curve (T + 1 values; empty when no agent observed anything), the
/// virtual time of the last query, the number of agents that never observed anything, the
/// mean best observed y, the failed evaluations), once the files are written.
/// Agents without a single observation (crashed at t = 0, partitioned for the whole run) are
/// left out of the mean: they have no regret to average, and a 0 would flatter it.
/// For a Fed-PNE run (pull and phase events) it writes observations.csv (client, phase, step,
/// time, cumulative_regret) and phases.csv instead, and the first value is each client's final
/// cumulative regret (N values; 0 for a client that never pulled).
/// Memory is bounded: at most rows_in_memory rows per file are held; beyond that, sorted
/// chunks go to hidden spill files in spill_folder, merged into the files at the end.
/// With `files` false it writes nothing (the folder of finish_atom is not touched) and keeps
/// only what the summary needs: no events, pulls, rounds or phases (the observer still sees
/// every record), and the observations as a RegretTable; the summary is the same, bit for bit.
/// Checkpoints: (save_atom, folder) -> its state (spill files linked into folder), and
/// (restore_atom, bytes, folder, agents N, dimension d) -> ok, or an error when the state does
/// not fit a run of N agents (clients) in d dimensions (check_recorder_state).
caf::behavior recorder_actor(caf::stateful_actor<RecorderState>* self, RunObserver observer,
                             std::string spill_folder, std::size_t rows_in_memory, bool files);

/// What is wrong with a recorder state restored from a checkpoint (empty if nothing), for a run
/// of `agents` agents (clients) in `dim` dimensions (0: Fed-PNE): rows in memory of an agent
/// that does not exist or of another dimension, row counts below the rows held, per-agent
/// tables of more agents or of uneven lengths, flags that are not 0 or 1, times or regrets that
/// are not finite, or a negative count. (Spilled rows are read back at the end.)
std::string check_recorder_state(const RecorderState& s, int agents, int dim);

/// The recorder's files, one writer per file (the columns are spelled here only): also used by
/// `fedsim run --driver loop` (tools/fedsim/loop_driver.cpp), so both drivers write the same
/// layout. The row writers drain `rows` in their order; `each` sees every observation written.
/// observations.csv has one x column per coordinate (x0 .. x{dim-1}); times_file, when given,
/// receives the measured wall seconds of every observation that has one (external
/// objectives: evaluation_times.csv, the one output that is not reproducible).
void write_observations(const std::string& file, ObservationRows& rows, int dim,
                        const std::function<void(const observation_event&)>& each = {},
                        const std::string& times_file = {});
void write_pulls(const std::string& file, PullRows& rows);
void write_rounds(const std::string& file, const std::vector<round_event>& rounds);
void write_phases(const std::string& file, const std::vector<phase_event>& phases);

/// The mean simple regret after iterations 0 .. T over the agents that observed anything, and
/// how many did not (they are not in the mean; `mean` is empty when none observed).
struct RegretCurve {
  std::vector<double> mean;
  std::int32_t without_observations = 0;
  /// Mean over the agents that observed anything of the best y each observed (NaN if none).
  double mean_best_observed = std::numeric_limits<double>::quiet_NaN();
};
RegretCurve mean_regret_curve(const std::vector<observation_event>& observations, int agents,
                              int iterations);

}  // namespace fedsim::actors
