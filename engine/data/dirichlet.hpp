#pragma once
/// Gamma and Dirichlet variates from a keyed stream (engine/rng.hpp), for the federated data
/// splits (engine/data/federated_split.hpp): Marsaglia and Tsang's method (2000) for shape >= 1,
/// and Gamma(a) = Gamma(a + 1) U^(1/a) for shape < 1.
#include <Eigen/Dense>

#include "engine/rng.hpp"

namespace fedsim::data {

/// One Gamma(shape, 1) variate; shape > 0 and finite, else std::invalid_argument.
double gamma_variate(RandomStream& rng, double shape);

/// One Dirichlet(alpha) variate (alpha: k > 0 finite concentrations): k non-negative values
/// summing to 1. When every gamma draw underflows to 0 (tiny alphas), all the mass goes to the
/// component whose log-gamma draw is largest, as the limit of the distribution does.
Eigen::VectorXd dirichlet_variate(RandomStream& rng, const Eigen::Ref<const Eigen::VectorXd>& alpha);

}  // namespace fedsim::data
