#include "engine/baselines/arm_mesh.hpp"

#include <stdexcept>
#include <string>

namespace fedsim::baselines {

ArmMesh make_arm_mesh(const Box& domain, int per_dim, RandomStream& rng) {
  domain.validate();
  const int d = domain.dim();
  if (per_dim < 1)
    throw std::invalid_argument("arms_per_dim must be >= 1 (got " + std::to_string(per_dim) + ")");
  std::int64_t total = 1;
  for (int j = 0; j < d; ++j) {
    total *= per_dim;
    if (total > max_mesh_arms)
      throw std::invalid_argument("arms_per_dim: " + std::to_string(per_dim) + "^" +
                                  std::to_string(d) + " arms exceed " +
                                  std::to_string(max_mesh_arms));
  }
  ArmMesh mesh;
  const double k = per_dim;
  for (int j = 0; j < d; ++j) {
    const double lo = domain.lower(j), hi = domain.upper(j), w = hi - lo;
    std::vector<double> axis(static_cast<std::size_t>(per_dim));
    axis[0] = rng.uniform(lo, lo + w / k);
    // linspace(lo + w/K, hi, K - 1): the last value is hi exactly, as numpy's.
    const double first = lo + w / k;
    for (int i = 1; i < per_dim; ++i) {
      if (per_dim == 2)
        axis[1] = first;
      else if (i == per_dim - 1)
        axis[static_cast<std::size_t>(i)] = hi;
      else
        axis[static_cast<std::size_t>(i)] = first + (hi - first) * (i - 1) / (k - 2.0);
    }
    mesh.axes.push_back(std::move(axis));
  }
  mesh.points.resize(total, d);
  for (std::int64_t a = 0; a < total; ++a) {
    std::int64_t rest = a;
    for (int j = 0; j < d; ++j) {
      mesh.points(a, j) =
          mesh.axes[static_cast<std::size_t>(j)][static_cast<std::size_t>(rest % per_dim)];
      rest /= per_dim;
    }
  }
  return mesh;
}

}  // namespace fedsim::baselines
