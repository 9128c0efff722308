#include "engine/objectives/double_sine.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim {

DoubleSine::DoubleSine(double rho1, double rho2) {
  if (!(rho1 > 0.0 && rho1 < rho2 && rho2 < 1.0))
    throw std::invalid_argument("DoubleSine: need 0 < rho_1 < rho_2 < 1");
  a_ = -std::log2(rho2);
  b_ = -std::log2(rho1);
}

double DoubleSine::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const double u = 2.0 * std::abs(x(0) - 0.5);
  if (u == 0.0) return 0.0;
  const double s = (std::sin(2.0 * M_PI * (std::log2(u) / 2.0)) + 1.0) / 2.0;
  const double lower = std::pow(u, a_);
  return s * (lower - std::pow(u, b_)) - lower;
}

Eigen::VectorXd DoubleSine::optimum_location() const { return Eigen::VectorXd::Constant(1, 0.5); }

}  // namespace fedsim
