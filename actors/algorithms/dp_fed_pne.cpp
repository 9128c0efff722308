/// DP-Fed-PNE: Fed-PNE whose clients add Gaussian noise to every reward before their local means,
/// for (dp_epsilon, dp_delta)-DP.
#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind dp_fed_pne() {
  AlgorithmKind k = xarmed_kind("dp-fed-pne", {true, true},
                     "Fed-PNE with Gaussian noise on every reward before the local means (algorithm.dp_epsilon)",
                     "Fed-PNE (Li et al. 2023), appendix D");
  k.loop = fed_pne_loop;
  return k;
}

}  // namespace fedsim::actors::algorithms
