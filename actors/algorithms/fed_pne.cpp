/// Fed-PNE: clients pull the active nodes of a shared partition in phases; the server
/// eliminates nodes by confidence bounds on the clients' averaged means and expands the rest.
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind fed_pne() {
  return xarmed_kind("fed-pne", {true, false},
                     "federated phased node elimination over a hierarchical partition",
                     "Fed-PNE (Li et al. 2023), Algorithms 1 and 2");
}

}  // namespace fedsim::actors::algorithms
