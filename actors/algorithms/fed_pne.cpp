/// Fed-PNE: clients pull the active nodes of a shared partition in phases; the server
/// eliminates nodes by confidence bounds on the clients' averaged means and expands the rest.
#include "actors/algorithms/algorithm_kind.hpp"
#include "actors/algorithms/loop_run.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind fed_pne() {
  AlgorithmKind k = xarmed_kind("fed-pne", {true, false},
                     "federated phased node elimination over a hierarchical partition",
                     "Fed-PNE (Li et al. 2023), Algorithms 1 and 2");
  k.loop = fed_pne_loop;
  return k;
}

}  // namespace fedsim::actors::algorithms
