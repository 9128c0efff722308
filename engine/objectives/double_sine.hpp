#pragma once
/// The DoubleSine function of the X-armed bandit literature (Grill et al. 2015, POO; PyXAB),
/// maximised on [0, 1]. Fed-PNE appendix E.2 prints a garbled version (its last term uses rho_1,
/// which would make the function positive near 0.5); this is the standard definition.
#include <Eigen/Dense>

#include "engine/objectives/objective.hpp"

namespace fedsim {

/// With u = 2|x - 1/2|, a = -log2(rho_2), b = -log2(rho_1) and s(z) = (sin(2 pi z) + 1) / 2:
///   f(x) = s(log2(u) / 2) (u^a - u^b) - u^a,   f(1/2) = 0.
/// For rho_1 < rho_2 < 1 the function oscillates between the envelopes -u^a <= f <= -u^b <= 0,
/// so its maximum is 0 at x = 1/2 (the only zero), and f(0) = f(1) = -1 (u = 1, s(0) = 1/2).
/// Defaults rho_1 = 0.3, rho_2 = 0.8 (the paper's).
class DoubleSine final : public Objective {
 public:
  /// Throws std::invalid_argument unless 0 < rho_1 < rho_2 < 1.
  explicit DoubleSine(double rho1 = 0.3, double rho2 = 0.8);
  int dim() const override { return 1; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  double optimum_value() const override { return 0.0; }
  Eigen::VectorXd optimum_location() const override;

 private:
  double a_;  ///< -log2(rho_2): exponent of the lower envelope
  double b_;  ///< -log2(rho_1): exponent of the upper envelope
};

}  // namespace fedsim
