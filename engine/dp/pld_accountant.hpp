#pragma once
/// The tight accountant: privacy loss distributions of the Poisson-subsampled Gaussian,
/// discretised pessimistically and composed by FFT, for both neighbouring relations.
/// Every epsilon it reports is an upper bound on the exact one (up to rounding), and at most
/// error_bound above it.
///
/// Built to be asked after every release (a run's accountant): what depends on one mechanism
/// alone (its discretised PLD, its Chernoff profile, its spectrum at the FFT size in use) is
/// computed once and kept, so an evaluation after T releases of one mechanism costs one
/// integer power per frequency (composition by squaring in the Fourier domain), one inverse
/// FFT and one scan per direction. The kept pieces are a cache: the epsilon depends only on the
/// releases recorded (not on which evaluations came before), so a replayed accountant reports
/// the same numbers bit for bit. Not thread-safe: evaluate() fills the cache.
#include <complex>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "engine/dp/accountant.hpp"
#include "engine/dp/pld.hpp"
#include "engine/dp/pld_composition.hpp"

namespace fedsim::dp {

struct PldOptions {
  /// The finest grid spacing of the losses. The spacing used is interval x 2^k for the
  /// smallest k >= 0 with which the composed PLD fits in max_bins grid points.
  double interval = 1e-4;
  Discretisation discretisation = Discretisation::connect_the_dots;
  /// Mass allowed outside the computed window, per tail; it is added to delta.
  double tail_bound = 1e-15;
  /// The largest composed grid (FFT size): the speed and the accuracy of every evaluation.
  /// 2^15 keeps an evaluation at about a millisecond; connect-the-dots' actual error is far
  /// below the a priori bound steps x interval it reports (docs/privacy.md).
  long max_bins = 1L << 15;
  /// Settle the add relation with an upper bound on a grid 16 times smaller when that bound
  /// stays at or below the remove relation's epsilon (always so in the settings tried: removal
  /// is the worse relation for the Poisson-subsampled Gaussian at epsilon >= 0); false composes
  /// it on the full grid every time (a test's check that both ways agree).
  bool settle_add_coarsely = true;
};

/// What one evaluation found.
struct PldEpsilon {
  double epsilon;
  double interval;  ///< grid spacing actually used
  /// Rigorous a priori bound on the discretisation error: reported - exact <= steps * interval.
  double error_bound;
};

class PldAccountant : public Accountant {
 public:
  /// Throws std::invalid_argument on non-positive interval, tail_bound outside (0, 1e-3] or
  /// max_bins < 1024.
  explicit PldAccountant(PldOptions options = {});

  void add_subsampled_gaussian(double q, double z, long steps = 1) override;
  double epsilon(double delta) const override { return evaluate(delta).epsilon; }
  std::unique_ptr<Accountant> clone() const override;
  std::string name() const override { return "tight"; }

  PldEpsilon evaluate(double delta) const;
  const PldOptions& options() const { return options_; }

 private:
  struct Event {
    double q;
    double z;
    long steps;
  };
  /// One mechanism's pieces at one grid spacing. Immutable once made, shared by clones.
  struct Level {
    double interval;
    ChernoffProfile profile;                      ///< decides whether this spacing fits
    std::shared_ptr<const DiscretePld> pld;
    long spectrum_size = 0;                       ///< the FFT size of `spectrum` (0: none)
    std::shared_ptr<const std::vector<std::complex<double>>> spectrum;
  };
  /// One mechanism, one direction, one per-step tail mass: its loss range and its levels.
  struct Mechanism {
    double q, z;
    PldDirection direction;
    double step_tail;
    LossRange range;
    std::list<Level> levels;  ///< a list: references stay valid as levels are added
  };
  /// One relation's epsilon on the finest spacing interval x 2^k (k >= 0, `interval` in and
  /// out) at which the composition fits in bins_allowed grid points.
  double direction_epsilon(PldDirection direction, double delta, double& interval,
                           long bins_allowed) const;
  Mechanism& mechanism(double q, double z, PldDirection direction, double step_tail) const;
  Level& level(Mechanism& m, double interval) const;

  PldOptions options_;
  std::vector<Event> events_;  ///< distinct mechanisms, in the order first seen
  long steps_ = 0;
  /// The pieces of evaluations so far (a cache: evaluate() gives the same numbers without it).
  mutable std::list<Mechanism> cache_;  ///< a list: references stay valid as it grows
};

}  // namespace fedsim::dp
