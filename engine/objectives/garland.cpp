#include "engine/objectives/garland.hpp"

#include <cmath>

namespace fedsim {

double Garland::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const double u = x(0);
  return u * (1.0 - u) * (4.0 - std::sqrt(std::abs(std::sin(60.0 * u))));
}

double Garland::optimum_value() const {
  const double x = M_PI / 6.0;
  return 4.0 * x * (1.0 - x);
}

Eigen::VectorXd Garland::optimum_location() const {
  return Eigen::VectorXd::Constant(1, M_PI / 6.0);
}

}  // namespace fedsim
