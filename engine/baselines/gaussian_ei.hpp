#pragma once
/// Expected improvement of a Gaussian prediction over an incumbent, for maximisation:
/// EI = (mu - y*) Phi(z) + sd phi(z), z = (mu - y*) / sd (Jones et al. 1998), with its partial
/// derivatives for gradient-based refinement on a box. The acquisition RGPE maximises on its
/// ensemble and TAF weights for the target model (engine/baselines/rgpe.hpp, taf.hpp).
namespace fedsim::baselines {

struct ExpectedImprovement {
  double value = 0.0;
  double d_mean = 0.0;      ///< dEI / dmu = Phi(z)
  double d_variance = 0.0;  ///< dEI / dvar = phi(z) / (2 sd) (0 when sd = 0)
};

/// variance <= 0 (a noiseless, certain prediction) gives max(mu - y*, 0) and d_mean = 1 or 0.
ExpectedImprovement expected_improvement(double mean, double variance, double incumbent);

}  // namespace fedsim::baselines
