#pragma once
/// The recorder actor: collects observation, round and network events during a run and, on
/// (finish_atom, folder), writes observations.csv, rounds.csv and events.jsonl there. Events
/// arrive in whatever order threads ran; they are sorted by keys that never depend on it, so
/// the files are byte-identical for any thread count.
#include <functional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"

namespace fedsim::actors {

/// Called (on the recorder's thread) for every finished round: progress output.
using RoundCallback = std::function<void(const round_event&)>;

struct RecorderState {
  std::vector<observation_event> observations;
  std::vector<round_event> rounds;
  std::vector<network_event> events;
  std::vector<pull_event> pulls;    ///< Fed-PNE runs
  std::vector<phase_event> phases;  ///< Fed-PNE runs
  RoundCallback on_round;
  static inline const char* name = "recorder";
};

/// (finish_atom, folder, write_events, agents N, iterations T) -> (the mean simple regret
/// curve (T + 1 values; empty when no agent observed anything), the virtual time of the last
/// query, the number of agents that never observed anything), once the files are written.
/// Agents without a single observation (crashed at t = 0, partitioned for the whole run) are
/// left out of the mean: they have no regret to average, and a 0 would flatter it.
/// For a Fed-PNE run (pull and phase events) it writes observations.csv (client, phase, step,
/// time, cumulative_regret) and phases.csv instead, and the first value is each client's final
/// cumulative regret (N values; 0 for a client that never pulled).
caf::behavior recorder_actor(caf::stateful_actor<RecorderState>* self, RoundCallback on_round);

/// Writes the three files (used by the recorder; public for tests).
void write_observations(const std::string& file, std::vector<observation_event> observations);
void write_rounds(const std::string& file, const std::vector<round_event>& rounds);
void write_events(const std::string& file, std::vector<network_event> events);
void write_pulls(const std::string& file, std::vector<pull_event> pulls);
void write_phases(const std::string& file, const std::vector<phase_event>& phases);
/// The mean simple regret after iterations 0 .. T over the agents that observed anything, and
/// how many did not (they are not in the mean; `mean` is empty when none observed).
struct RegretCurve {
  std::vector<double> mean;
  std::int32_t without_observations = 0;
};
RegretCurve mean_regret_curve(const std::vector<observation_event>& observations, int agents,
                              int iterations);

}  // namespace fedsim::actors
