#include "engine/dp/clipping.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::dp {

bool clip_to_norm(Eigen::Ref<Eigen::VectorXd> v, double max_norm) {
  if (!(max_norm > 0.0) || !std::isfinite(max_norm))
    throw std::invalid_argument("clipping norm must be a finite number > 0");
  const double norm = v.norm();
  if (norm <= max_norm) return false;
  v *= max_norm / norm;
  return true;
}

}  // namespace fedsim::dp
