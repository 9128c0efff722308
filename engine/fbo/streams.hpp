#pragma once
/// The purposes of the random streams an FBO run draws from: RandomStream(seed, purpose, ids).
/// Named once here, so the reference loop and the actors draw from the same streams by
/// construction, not by two equal string literals.
#include <string_view>

namespace fedsim::fbo::streams {

inline constexpr std::string_view features = "features";          ///< (): the shared RFF seed
inline constexpr std::string_view agent_init = "agent.init";      ///< (agent): initial design
inline constexpr std::string_view agent_choose = "agent.choose";  ///< (agent, t): iteration t
inline constexpr std::string_view agent_noise = "agent.noise";    ///< (agent): observation noise
inline constexpr std::string_view agent_message = "agent.message";  ///< (agent, t): omega_{n,t}
/// (agent, count): the restarts of the hyperparameter refit after the count-th observation
inline constexpr std::string_view agent_refit = "agent.refit";
inline constexpr std::string_view server_round = "server.round";  ///< (round): subsampling, noise

}  // namespace fedsim::fbo::streams
