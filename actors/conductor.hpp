#pragma once
/// The conductor: one actor per run that starts the network, asks the members for the run's
/// results once the network is done, stops every member and then tells run_federation's thread
/// (the driver) that the run is over, once. Every other hand-over of the run happens between
/// actors on the scheduler's threads, where a message costs under a microsecond; a hand-over
/// between the driver's thread and a worker costs a wake-up of a sleeping thread, about 80 us
/// a round trip on the 2-core machines of issue 15, which is most of what a short run costs
/// (a Fed-PNE run at M = 5 lasts about 1 ms). The driver waits for the conductor alone, and
/// takes the checkpoints the network asks for (the conductor passes the requests on).
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "actors/network.hpp"

namespace fedsim::actors {

/// What a run ended with, filled by the conductor before it tells the driver.
struct ConductedRun {
  NetworkTotals network;
  finish_summary summary;                 ///< the recorder's
  std::string reason;                     ///< the server's: why the run could not finish
  /// The network's: why it stopped the run before it finished (NetworkState::stopped_why).
  std::string stopped;
  std::optional<privacy_status> spent;    ///< the accountant's, if there is one
  std::optional<agent_privacy> per_agent;
  /// Empty when the run ended and every result came; else the run's failure, naming the member
  /// (the first one: the run's own, or the first of the results asked in the order above).
  std::string failure;
};

/// Who takes part in a run and what the recorder is asked at its end.
struct ConductorSetup {
  caf::actor network, server, recorder, accountant;  ///< accountant: none for most runs
  std::vector<caf::actor> agents;
  caf::actor driver;  ///< gets (checkpoint_atom, ...) passed on, and ok_atom at the end
  std::string out_dir;
  bool events = false;
  std::int32_t learners = 0, iterations = 0, dimension = 0;
  std::shared_ptr<ConductedRun> out;  ///< read by the driver only after ok_atom
};

/// Stops every member of a run: the agents with the run's failure if there is one (agents in
/// other processes, actors/remote/, then learn that the run failed, not that it ended), the
/// others as at a normal end.
template <class Self>
void stop_members(Self* self, const std::vector<caf::actor>& agents,
                  std::initializer_list<caf::actor> others, const std::string& failure) {
  const caf::error stop =
      failure.empty() ? caf::error{caf::exit_reason::user_shutdown}
                      : caf::make_error(caf::sec::runtime_error, "the run failed: " + failure);
  for (const auto& a : agents) self->send_exit(a, stop);
  for (const auto& a : others)
    if (a) self->send_exit(a, caf::exit_reason::user_shutdown);
}

struct ConductorState {
  ConductorSetup setup;
  bool network_done = false;
  int pending = 0;  ///< results asked and not answered yet
  /// The results' failures, in the order they are taken (recorder, server, accountant twice):
  /// the first one is the run's; a receiver that was down is named by its down message.
  std::vector<caf::error> errors = std::vector<caf::error>(4);
  std::vector<caf::actor_addr> askee = std::vector<caf::actor_addr>(4);
  std::vector<std::pair<caf::actor_addr, caf::error>> down;  ///< members seen to die
  bool waiting_for_down = false;  ///< for a down message that names a failed result
  bool timed_out = false;         ///< waited 10 s for it in vain
  static inline const char* name = "conductor";
};

/// Sends (run_atom) to the network at once; ends by ok_atom to setup.driver after stopping
/// every member, or earlier, the same way, when a member fails.
caf::behavior conductor_actor(caf::stateful_actor<ConductorState>* self, ConductorSetup setup);

}  // namespace fedsim::actors
