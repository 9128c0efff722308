/// DP-FTS: the server subsamples the agents, clips their vectors and adds Gaussian noise to
/// the aggregate (one region); every release charged to the accountant.
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind dp_fts() {
  return fbo_kind("dp-fts", fbo::Algorithm::dp_fts,
                  "differentially private FTS: subsampled, clipped, noised aggregation (P = 1)",
                  "DP-FTS-DE (Dai et al. 2021), section 3.1 (Algorithms 1 and 2 with P = 1)");
}

}  // namespace fedsim::actors::algorithms
