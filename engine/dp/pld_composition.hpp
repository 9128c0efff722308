#pragma once
/// Composition of discrete privacy loss distributions: the PLD of a sequence of independent
/// mechanisms is the convolution of their PLDs, computed here with one FFT per distinct
/// mechanism and integer powers in the Fourier domain.
#include <vector>

#include "engine/dp/pld.hpp"

namespace fedsim::dp {

/// One factor of a composition: a PLD applied `times` times.
struct PldFactor {
  const DiscretePld* pld;
  long times;
};

/// Grid indices [lo, hi] (loss = index * interval) outside which the composed finite mass is
/// at most tail_bound on each side, by a Chernoff bound on the exact moment generating
/// function of each discrete factor, clipped to the composition's support.
struct GridWindow {
  long lo;
  long hi;
  long bins() const { return hi - lo + 1; }
};
GridWindow composition_window(const std::vector<PldFactor>& factors, double tail_bound);

/// The composed PLD on a power-of-two grid covering composition_window. The FFT's circular
/// wrap-around only adds mass inside the window and the mass outside it is at most
/// 2 tail_bound, so 2 tail_bound is added to infinity_mass: the result still dominates.
/// All factors must share one interval; throws std::invalid_argument otherwise.
DiscretePld compose(const std::vector<PldFactor>& factors, double tail_bound);
/// The same on a window computed beforehand with the same tail_bound.
DiscretePld compose(const std::vector<PldFactor>& factors, const GridWindow& window,
                    double tail_bound);

}  // namespace fedsim::dp
