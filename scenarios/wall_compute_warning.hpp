#pragma once
/// The warning for a wall-clock run that leaves the scenario's compute model unused: with
/// run.time = "wall" an agent's compute time is the real time its evaluations take, and the
/// modelled one (world.network.compute x speed_factor, a tuning objective's cost_per_sample)
/// is charged only with run.injected_compute = true (docs/wall-clock.md).
#include <string>

#include "actors/run_config.hpp"

namespace fedsim::scenario {

/// "run.time = wall ignores the modelled compute time of KEYS ..." naming each key whose value
/// would charge compute time in virtual time, or "" when there is none, the clock is virtual or
/// injected_compute is on.
std::string unused_compute_model_warning(const ScenarioConfig& config);

}  // namespace fedsim::scenario
