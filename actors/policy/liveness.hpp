#pragma once
/// Configurations that can be seen, before a run, never to finish: a policy whose rounds wait
/// for every agent (or a quorum) with no finite timeout or deadline, while an agent crashes for
/// good or is cut off forever and the network never tells the server (detection_delay = inf).
/// The run then ends with "completed": false; these warnings say so up front.
#include <string>
#include <vector>

#include "actors/run_config.hpp"

namespace fedsim::actors::policy {

/// One line per predictable stall, naming the keys involved (empty: none foreseen).
std::vector<std::string> liveness_warnings(const scenario::ScenarioConfig& config);

}  // namespace fedsim::actors::policy
