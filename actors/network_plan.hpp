#pragma once
/// The network's link and failure model resolved per agent from a scenario: which link model
/// each agent has, when it crashes and recovers, when it is cut off or unavailable. Pure data,
/// built once before a run (no actors here).
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "actors/faults/loss_model.hpp"
#include "actors/run_config.hpp"

namespace fedsim::actors {

struct Interval {
  double start = 0.0;
  double end = std::numeric_limits<double>::infinity();
  bool contains(double t) const { return t >= start && t < end; }
};

struct CrashPlan {
  double time = 0.0;
  double recover = std::numeric_limits<double>::infinity();
  bool keep_state = true;
};

struct AgentPlan {
  scenario::LinkModel link;
  /// Nothing on its link is random: no loss (the Bernoulli shorthand at 0), constant latencies,
  /// no duplicates, and no corruption in the run. Its messages need no random stream: what
  /// they would draw could change nothing (each message's stream is its own).
  bool certain = false;
  std::vector<CrashPlan> crashes;        ///< sorted by time
  std::vector<Interval> partitions;      ///< cut off from the server during these
  std::vector<Interval> available;       ///< up-intervals; empty = always available
  /// Down (crashed, or outside its availability) at time t.
  bool down(double t) const;
  /// Crashed at time t.
  bool crashed(double t) const;
  /// The first time >= t at which the agent is available again (infinity if never).
  double next_available(double t) const;
  /// Cut off from the server at time t.
  bool partitioned(double t) const;
};

/// The run's clock (the scenario's [run], docs/wall-clock.md): virtual time, or wall-clock time
/// at time_scale wall seconds per model second.
struct ClockPlan {
  bool wall = false;
  double time_scale = 1.0;        ///< wall: wall seconds per model second
  bool injected_compute = false;  ///< wall: agents' self-timers also held for modelled compute
  /// wall: real seconds; a next event further away while nothing is outstanding ends the run
  /// as not completed (run.wall_horizon)
  double horizon = std::numeric_limits<double>::infinity();
};

struct NetworkPlan {
  std::uint64_t seed = 1;
  std::vector<AgentPlan> agents;
  scenario::MalformedInjection malformed;
  double detection_delay = std::numeric_limits<double>::infinity();
  ClockPlan clock;
};

/// The agents a selection names: explicit ids, or the first ceil(fraction * N) of a shuffle
/// keyed by (seed, purpose, index). Sorted, distinct.
std::vector<int> select_agents(const std::vector<int>& ids, double fraction, int num_agents,
                               std::uint64_t seed, const std::string& purpose, int index);

/// A fresh loss-model state for one direction of a link: its `loss` model, or Bernoulli with
/// probability `drop` (the shorthand) when no model is named.
std::unique_ptr<faults::LossModel> make_loss_model(const scenario::LinkModel& link);

/// Resolves the clock, groups, crashes, partitions and the availability file (actors/network_availability:
/// CSV agent,start,end). Throws std::invalid_argument naming the file, line and column on a
/// bad CSV.
NetworkPlan make_network_plan(const scenario::ScenarioConfig& config);

}  // namespace fedsim::actors
