/// Federated Thompson sampling: agents relay sampled random-feature weights through the server;
/// with probability 1 - p_t an agent maximises a peer's sampled function instead of its own.
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind fts() {
  return fbo_kind("fts", fbo::Algorithm::fts,
                  "federated Thompson sampling: each agent's sampled weights relayed to the others; "
                  "with probability 1 - p_t a peer's sampled function is maximised",
                  "FTS (Dai et al. 2020), Algorithm 1");
}

}  // namespace fedsim::actors::algorithms
