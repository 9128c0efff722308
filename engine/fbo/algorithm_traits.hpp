#pragma once
/// What each FBO algorithm is, read in one place: whether agents send messages, what the
/// server does with them, whether releases are private, whether agents explore sub-regions.
/// A new algorithm is one more case here; the switch has no default, so the compiler
/// (-Werror=switch) names every place a case is missing.
#include <stdexcept>

#include "engine/fbo/algorithms.hpp"

namespace fedsim::fbo {

/// What the server does with the agents' messages.
enum class ServerKind {
  none,   ///< no server: agents never talk to it (standard TS)
  relay,  ///< passes every message on to every agent (FTS)
  de,     ///< fbo::DeServer: subsampling, clipping, weights, noise (FTS-DE, DP-FTS, DP-FTS-DE)
};

struct AlgorithmTraits {
  bool sends_messages;  ///< agents report a sampled omega after each iteration
  ServerKind server;
  bool is_private;      ///< releases are Gaussian mechanisms charged to an accountant
  bool regional;        ///< distributed exploration over P sub-regions
};

constexpr AlgorithmTraits traits(Algorithm a) {
  switch (a) {
    case Algorithm::ts: return {false, ServerKind::none, false, false};
    case Algorithm::fts: return {true, ServerKind::relay, false, false};
    case Algorithm::fts_de: return {true, ServerKind::de, false, true};
    case Algorithm::dp_fts: return {true, ServerKind::de, true, false};
    case Algorithm::dp_fts_de: return {true, ServerKind::de, true, true};
  }
  throw std::logic_error("traits: not an fbo::Algorithm value");
}

}  // namespace fedsim::fbo
