#pragma once
/// One pull of a federated multi-armed baseline's reference loop (Fed1-UCB, FN-UCB): which
/// client pulled which arm at which step, what it observed, and the regret on the global
/// objective as Fed-PNE's runs measure it (f* - f(x_arm), f* the global objective's optimum
/// over the whole domain, so the mesh's own gap counts).
#include <cstdint>

namespace fedsim::baselines {

struct BanditPull {
  int client = 0;         ///< m, 0-based
  std::int64_t step = 0;  ///< t = 1..T, the client's pull count after this pull
  std::int64_t arm = 0;   ///< row of the mesh
  double reward = 0.0;    ///< f_m(x) + U[-noise, noise]
  double regret = 0.0;    ///< f* - f(x) on the global objective
};

}  // namespace fedsim::baselines
