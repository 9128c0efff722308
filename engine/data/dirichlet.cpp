#include "engine/data/dirichlet.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::data {

namespace {

/// log of a Gamma(shape) variate, shape > 0: for shape < 1, log Gamma(shape + 1) + log(U) / shape,
/// which stays finite where the variate itself underflows.
double log_gamma_variate(RandomStream& rng, double shape) {
  if (!(shape > 0) || !std::isfinite(shape))
    throw std::invalid_argument("gamma variate: the shape must be a finite number > 0");
  if (shape < 1.0) {
    double u = rng.uniform();
    while (u <= 0.0) u = rng.uniform();
    return log_gamma_variate(rng, shape + 1.0) + std::log(u) / shape;
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = rng.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return std::log(d * v);
    if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return std::log(d * v);
  }
}

}  // namespace

double gamma_variate(RandomStream& rng, double shape) {
  return std::exp(log_gamma_variate(rng, shape));
}

Eigen::VectorXd dirichlet_variate(RandomStream& rng, const Eigen::Ref<const Eigen::VectorXd>& alpha) {
  if (alpha.size() < 1) throw std::invalid_argument("dirichlet variate: no component");
  Eigen::VectorXd logs(alpha.size());
  for (Eigen::Index i = 0; i < alpha.size(); ++i) logs(i) = log_gamma_variate(rng, alpha(i));
  // Normalised in log space: exp(log g_i - max) / sum, exact where the g_i underflow.
  const double top = logs.maxCoeff();
  Eigen::VectorXd p = (logs.array() - top).exp().matrix();
  return p / p.sum();
}

}  // namespace fedsim::data
