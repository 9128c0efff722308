#pragma once
/// The tight accountant: privacy loss distributions of the Poisson-subsampled Gaussian,
/// discretised pessimistically and composed by FFT, for both neighbouring relations.
/// Every epsilon it reports is an upper bound on the exact one (up to rounding), and at most
/// error_bound above it.
#include <memory>
#include <string>
#include <vector>

#include "engine/dp/accountant.hpp"
#include "engine/dp/pld.hpp"

namespace fedsim::dp {

struct PldOptions {
  /// Grid spacing of the losses. It is coarsened automatically when the composed PLD would
  /// need more than max_bins grid points.
  double interval = 1e-4;
  Discretisation discretisation = Discretisation::connect_the_dots;
  /// Mass allowed outside the computed window, per tail; it is added to delta.
  double tail_bound = 1e-15;
  long max_bins = 1L << 21;
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
  double direction_epsilon(PldDirection direction, double delta, double& interval) const;

  PldOptions options_;
  std::vector<Event> events_;
  long steps_ = 0;
};

}  // namespace fedsim::dp
