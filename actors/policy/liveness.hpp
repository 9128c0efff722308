#pragma once
/// Configurations that can be seen, before a run, never to aggregate:
///  - a policy whose rounds wait for every agent (or a quorum) with no finite timeout or
///    deadline, while an agent crashes for good or is cut off forever and the network never
///    tells the server (detection_delay = inf): the run ends with "completed": false;
///  - a policy whose rounds close only on a count of arrivals (fedbuff's buffer_size) larger
///    than the reports the agents can send in the whole run: the run completes with no
///    aggregated round (rounds.csv empty; each agent learns from its own observations only).
/// These warnings say so up front, naming the keys (actors/policy/keys.hpp).
#include <string>
#include <vector>

#include "actors/run_config.hpp"

namespace fedsim::actors::policy {

/// One line per predictable stall, naming the keys involved (empty: none foreseen).
std::vector<std::string> liveness_warnings(const scenario::ScenarioConfig& config);

/// The most reports the agents of an FBO run can send in the whole run: one after the initial
/// design and one after every iteration but the last from each learner, one message from each
/// of FTS's peers; 0 when the algorithm sends none (ts), and for the X-armed family.
long long max_reports(const scenario::ScenarioConfig& config);

}  // namespace fedsim::actors::policy
