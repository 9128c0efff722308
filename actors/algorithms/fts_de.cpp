/// FTS with distributed exploration: P sub-regions, the server's weighted aggregate per
/// sub-region broadcast to every agent; no privacy.
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind fts_de() {
  return fbo_kind("fts-de", fbo::Algorithm::fts_de,
                  "FTS with distributed exploration: P sub-regions, the server's weighted "
                  "aggregate per sub-region, without privacy",
                  "DP-FTS-DE (Dai et al. 2021), Algorithm 2 with q = 1 and no noise");
}

}  // namespace fedsim::actors::algorithms
