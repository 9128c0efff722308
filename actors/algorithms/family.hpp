#pragma once
/// The run families: what members a run spawns and what loop drives it. Every algorithm
/// belongs to one (algorithm_kind.hpp); a round policy says which it serves (policy/).
#include <string>

namespace fedsim::actors::algorithms {

/// FBO: agents and a server exchanging sampled functions each iteration. X-armed: clients and a
/// server in phases over a partition tree (or a centralised tree search).
enum class Family { fbo, xarmed };
std::string to_string(Family family);

}  // namespace fedsim::actors::algorithms
