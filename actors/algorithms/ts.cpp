/// Standard Thompson sampling: every agent optimises alone, sending nothing (the papers'
/// non-federated baseline).
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind ts() {
  return fbo_kind("ts", fbo::Algorithm::ts,
                  "standard Thompson sampling: each agent alone, with its own GP (random features)",
                  "FTS (Dai et al. 2020) and DP-FTS-DE (Dai et al. 2021): the non-federated baseline");
}

}  // namespace fedsim::actors::algorithms
