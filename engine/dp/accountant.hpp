#pragma once
/// A privacy accountant: records the mechanisms released so far and answers "what is epsilon
/// for this delta". Copy one with clone() to ask what epsilon would be after one more step
/// before taking it (budget enforcement).
#include <memory>
#include <string>
#include <string_view>

namespace fedsim::dp {

class Accountant {
 public:
  virtual ~Accountant() = default;

  /// Records `steps` releases of the Poisson-subsampled Gaussian mechanism with sampling
  /// probability q in (0, 1] and noise multiplier z > 0 (noise sd / L2 sensitivity).
  /// Throws std::invalid_argument on q, z or steps < 0 out of range.
  virtual void add_subsampled_gaussian(double q, double z, long steps = 1) = 0;
  /// Records `steps` releases of the plain Gaussian mechanism (q = 1).
  void add_gaussian(double noise_multiplier, long steps = 1) {
    add_subsampled_gaussian(1.0, noise_multiplier, steps);
  }
  /// The epsilon of everything recorded so far at this delta in (0, 1), valid for both
  /// adding and removing one member; 0 before anything is recorded.
  virtual double epsilon(double delta) const = 0;
  virtual std::unique_ptr<Accountant> clone() const = 0;
  /// "moments" or "tight".
  virtual std::string name() const = 0;
};

/// "moments": RdpAccountant with the default (modern) convention; "moments-paper": the
/// convention that reproduces DP-FTS-DE's published losses; "tight": PldAccountant with
/// default options. Throws std::invalid_argument naming the allowed values otherwise.
std::unique_ptr<Accountant> make_accountant(std::string_view name);

}  // namespace fedsim::dp
