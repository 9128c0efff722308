/// DP-FTS-DE: DP-FTS with distributed exploration over P sub-regions.
#include "actors/algorithms/algorithm_kind.hpp"

namespace fedsim::actors::algorithms {

AlgorithmKind dp_fts_de() {
  return fbo_kind("dp-fts-de", fbo::Algorithm::dp_fts_de,
                  "DP-FTS with distributed exploration over P sub-regions",
                  "DP-FTS-DE (Dai et al. 2021), Algorithms 1 and 2");
}

}  // namespace fedsim::actors::algorithms
