#pragma once
/// Composition of discrete privacy loss distributions: the PLD of a sequence of independent
/// mechanisms is the convolution of their PLDs, computed here with one FFT per distinct
/// mechanism and integer powers in the Fourier domain.
#include <array>
#include <complex>
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

// ---- Pieces for a composition repeated as steps are added (PldAccountant): what depends on
// one factor alone is computed once and kept; what depends on the step counts is cheap.

/// The Chernoff grid: lambda = 2^k for k = kChernoffMin .. kChernoffMax (and their negatives).
constexpr int kChernoffMin = -12, kChernoffMax = 16;
constexpr int kChernoffPoints = kChernoffMax - kChernoffMin + 1;

/// One factor's log moment generating function of its finite masses at the Chernoff grid,
/// log M(+lambda) in `up` and log M(-lambda) in `down`, computed on groups of bins with each
/// group's mass at its top edge (for +lambda) or bottom edge (-lambda): never below the exact
/// value, so a window from it is a valid Chernoff window, a little wider than the exact one.
struct ChernoffProfile {
  std::array<double, kChernoffPoints> up{}, down{};
  double interval = 0.0;                ///< the PLD's grid spacing
  long support_lo = 0, support_hi = 0;  ///< grid indices of the first and last bin
};
ChernoffProfile chernoff_profile(const DiscretePld& pld);

/// composition_window from profiles: `times` copies of each; the best grid lambda per side.
GridWindow composition_window(const std::vector<std::pair<const ChernoffProfile*, long>>& factors,
                              double tail_bound);

/// The half spectrum (n / 2 + 1 values) of a PLD's finite masses folded modulo n (a power of
/// two >= 16): its FFT, for compose_spectra.
std::vector<std::complex<double>> pld_spectrum(const DiscretePld& pld, long n);

/// A factor given by its spectrum at one size n, with what compose needs besides.
struct SpectralFactor {
  const std::vector<std::complex<double>>* spectrum;  ///< pld_spectrum(pld, n)
  long offset;                                        ///< the PLD's offset
  double infinity_mass;                               ///< the PLD's infinity mass
  long times;
};

/// compose() from spectra at size n (a power of two >= window.bins()), on grid `interval`.
DiscretePld compose_spectra(const std::vector<SpectralFactor>& factors, long n, double interval,
                            const GridWindow& window, double tail_bound);

/// The FFT size compose uses for a window: the smallest power of two >= max(16, bins).
long fft_size(const GridWindow& window);

}  // namespace fedsim::dp
