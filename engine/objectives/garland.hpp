#pragma once
/// The Garland function of the X-armed bandit literature (Azar et al. 2014; Fed-PNE appendix
/// E.2), maximised on [0, 1]: f(x) = x (1 - x) (4 - sqrt|sin 60x|).
#include <Eigen/Dense>

#include "engine/objectives/objective.hpp"

namespace fedsim {

/// Garland on [0, 1]. Many local maxima; sqrt|sin 60x| has an infinite slope at each zero of
/// sin 60x, so every local maximum sits exactly on one of those zeros, x = n pi / 60. The best is
/// n = 10, x* = pi / 6, where f = 4 (pi/6)(1 - pi/6) = 0.997770... (the zero n = 9 gives 0.99667).
class Garland final : public Objective {
 public:
  int dim() const override { return 1; }
  double value(const Eigen::Ref<const Eigen::VectorXd>& x) const override;
  /// The supremum 4 (pi/6)(1 - pi/6), reached at the real number pi/6. At the double nearest
  /// pi/6, sin(60x) rounds to about 1e-15 and value() falls short of it by about 1e-8.
  double optimum_value() const override;
  /// pi / 6.
  Eigen::VectorXd optimum_location() const override;
};

}  // namespace fedsim
