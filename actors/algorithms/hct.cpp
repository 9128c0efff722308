/// HCT: the centralised X-armed bandit on the global objective (fedsim run --driver loop).
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind hct() {
  return xarmed_kind("hct", {false, false},
                     "high-confidence tree search on the global objective, centralised "
                     "(--driver loop only)",
                     "Azar et al. 2014; Fed-PNE (Li et al. 2023), its centralised baseline");
}

}  // namespace fedsim::actors::algorithms
