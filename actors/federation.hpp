#pragma once
/// Spawns and wires one federation run from a validated scenario configuration and runs it in
/// virtual time to completion: the entry point of `fedsim run`, and the embedding API for a
/// program that wants a federation inside its own code.
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/agent.hpp"
#include "actors/checkpoint/checkpoint.hpp"
#include "actors/network.hpp"
#include "actors/privacy_basis.hpp"
#include "actors/recorder.hpp"
#include "actors/remote/remote_stats.hpp"
#include "actors/run_config.hpp"
#include "actors/server_host.hpp"
#include "engine/objectives/federated_objective.hpp"

namespace fedsim::actors {

/// What an agent host needs to stand in agents for a run (RunOptions::agent_host).
struct AgentSlots {
  caf::actor network;
  caf::actor recorder;
  int agents = 0;      ///< N: ids 0 .. N-1
  int features = 0;    ///< a report's vector length
  int dimension = 0;   ///< the objective's
};

struct RunOptions {
  std::string out_dir = "out/run";  ///< observations.csv, rounds.csv, events.jsonl go here
  /// false: the run writes no files (out_dir is neither created nor touched; an external
  /// objective still keeps its own files there) and its recorder keeps only what RunResult
  /// needs, which is the same, bit for bit. For a program that takes a run's results from
  /// RunResult and `observer`: many runs in a row cost no filesystem time.
  bool write_files = true;
  int threads = 0;                  ///< CAF scheduler threads (0: CAF's default)
  /// The function every agent evaluates (FBO family): an embedding program's own black box
  /// (engine/objectives/federated_objective.hpp). Null: the scenario's synthetic objective
  /// (world.objective). The scenario's world.agents agents query it.
  std::shared_ptr<const FederatedObjective> objective;
  /// Live records (rounds, observations, events, phases, pulls) while the run goes: progress
  /// output, or an embedding program's own view (actors/recorder.hpp).
  RunObserver observer;
  /// Rows of each output file the recorder holds in memory before it spills sorted chunks
  /// to hidden files in out_dir (merged at the end): bounds a long run's memory.
  std::size_t recorder_rows = default_recorder_rows;
  /// Where the agents live (FBO family). Null: spawned in this actor system, each evaluating
  /// `objective`. Set: called once the network and the recorder exist, it returns one actor
  /// per agent id for the network to deliver to (fedsim serve: stand-ins for agents in other
  /// processes, actors/remote/serve.hpp); the run builds no objective then. It may block
  /// (waiting for agents to join) and throw, which ends the run before it starts.
  std::function<std::vector<caf::actor>(const AgentSlots&)> agent_host;
  /// Where the server lives (FBO family). Null: fedsim's server (actors/server.hpp). Set:
  /// called once the network and the recorder exist, it returns the actor that plays the
  /// server, which speaks the protocol of actors/server_host.hpp (examples/own-server). Not with
  /// a private algorithm (no accountant is involved) nor with checkpoints; throws
  /// std::invalid_argument then, or when it returns no actor.
  std::function<caf::actor(const ServerSlots&)> server_host;

  /// Checkpoints (actors/checkpoint/checkpoint.hpp): none unless checkpoint_dir is set. Each
  /// new checkpoint replaces the folder's previous one.
  std::string checkpoint_dir;
  /// After every this many rounds (Fed-PNE: phases) closed; 0: only on an interrupt.
  std::int64_t checkpoint_every = 0;
  /// Set to a non-zero value (a signal number) from anywhere, a signal handler included: the
  /// run takes a checkpoint at its next quiet moment and stops with RunInterrupted.
  const std::atomic<int>* interrupt = nullptr;
  /// Stored in every checkpoint, for the caller (fedsim run: the resolved configuration).
  std::string checkpoint_header;
  /// Continue the run this checkpoint was taken of (same configuration) instead of starting.
  const Checkpoint* resume = nullptr;
  /// For tests: stop with RunInterrupted (signal 0) after writing this many checkpoints.
  int stop_after_checkpoints = 0;
  /// Virtual time: agents settle their timers that cost nothing at once where the network
  /// gives leave (virtual_time::settle in actors/messages.hpp). false delivers every timer
  /// through its agent's mailbox: the same outputs, slower (tests compare the two).
  bool settle_timers = true;
};

struct RunResult {
  /// After iterations 0 .. T, mean over the learners that observed anything (empty if none).
  std::vector<double> mean_simple_regret;
  double final_simple_regret = 0.0;
  double epsilon = 0.0;        ///< privacy spent (0 for non-private algorithms)
  /// FBO: the same releases priced by the moments and by the tight accountant (dp::Ledger).
  double epsilon_rdp = 0.0;
  double epsilon_pld = 0.0;
  /// FBO, private: per agent, the releases its report took part in, its epsilon by
  /// privacy.accountant over them, and the reports the per-agent filter left out (empty
  /// otherwise; docs/privacy.md, "Per-agent privacy").
  std::vector<std::int64_t> agent_releases;
  std::vector<double> agent_epsilon;
  std::vector<std::int64_t> agent_filtered;
  double delta = 0.0;
  std::int64_t releases = 0;   ///< private releases charged to the accountant
  std::vector<double> client_regret;   ///< Fed-PNE: each client's cumulative regret
  double average_cumulative_regret = 0.0;  ///< Fed-PNE: R(T) / clients that pulled
  /// Learners (FBO) or clients (Fed-PNE) that never observed anything (crashed at t = 0,
  /// partitioned for the whole run): left out of the means above, counted here.
  std::int32_t agents_without_observations = 0;
  /// FBO: mean over the learners that observed anything of the largest y each observed (a
  /// metric that needs no known optimum); NaN for none, and for Fed-PNE.
  double mean_best_observed = std::numeric_limits<double>::quiet_NaN();
  /// Evaluations that failed and were skipped (external objectives; events.jsonl says why).
  std::int64_t failed_evaluations = 0;
  NetworkTotals network;        ///< network.final_time: the last event (timers included)
  double last_query_time = 0.0;  ///< virtual time of the last query: when optimisation ended
  double wall_time = 0.0;      ///< seconds
  /// false when the run ended without being able to finish (a round that never closed, no
  /// agent past its initial design); `reason` says why (empty when completed).
  bool completed = true;
  std::string reason;
  /// fedsim serve (actors/remote/serve.hpp): joins, refusals, dropped remote messages and lost
  /// agents; absent for a run in one process.
  std::optional<remote::RemoteCounts> remote;
  /// FBO, private: what the per-agent epsilon rests on (adaptive participation, the filter).
  std::optional<PrivacyBasis> privacy_basis;
};

/// What every agent of an FBO run shares (actors/agent.hpp), for the scenario `config`: the
/// engine context of the objective's domain, the algorithm, the policy's waiting rule, the
/// network and the recorder the agents send to (fedsim agents: the stand-ins in the server's
/// process).
std::shared_ptr<AgentShared> make_agent_shared(const scenario::ScenarioConfig& config,
                                               std::shared_ptr<const FederatedObjective> objective,
                                               caf::actor network, caf::actor recorder);

/// Registers fedsim's message types: call on the config of an actor system that will host a
/// federation.
void add_fedsim_types(caf::actor_system_config& cfg);

/// The scheduler fedsim's own actor systems use: `threads` workers (0: CAF's default, one per
/// core) sharing one job queue (CAF's "sharing" policy) rather than stealing work (one worker
/// keeps CAF's work stealing, which costs it less, but waits on its condition variable as soon
/// as a short spin finds nothing, instead of sleeping 50 us between looks at its queue). A
/// federation's work comes in waves (every agent of an instant, then the network alone), and
/// with work stealing the idle worker spins and steals in between: at N = 10,000 two threads
/// took 1.3x the wall time of one (and 2x its CPU time); with a shared queue they take 0.7x
/// (tools/bench/actor_scaling.cpp; the closing note of issue 15).
void configure_scheduler(caf::actor_system_config& cfg, int threads);

/// An actor system set up as run_federation's own (add_fedsim_types, configure_scheduler with
/// `threads`), for a caller that runs federations one after another in it: a `fedsim sweep`
/// worker saves each run the start and stop of a system (about 0.25 ms; a Fed-PNE run at
/// M = 5 lasts about 1.5 ms).
class FederationSystem {
 public:
  explicit FederationSystem(int threads);
  caf::actor_system& get() { return *system_; }

 private:
  caf::actor_system_config config_;  // the system holds a reference to it: declared first
  std::unique_ptr<caf::actor_system> system_;
};

/// Runs the federation described by `config` (already validated) in its own actor system with
/// options.threads threads. Throws on a setup error, RunFailure (actors/failure.hpp), naming
/// the actor, when a member of the federation failed during the run, and RunInterrupted
/// (actors/checkpoint/checkpoint.hpp) when it stopped at a checkpoint.
RunResult run_federation(const scenario::ScenarioConfig& config, const RunOptions& options);

/// The same inside the caller's actor system (its config must have had add_fedsim_types);
/// the federation's actors are stopped when the run is over. options.threads is ignored.
RunResult run_federation(caf::actor_system& system, const scenario::ScenarioConfig& config,
                         const RunOptions& options);

}  // namespace fedsim::actors
