#pragma once
/// Expected improvement for maximisation (Jones et al. 1998), as GPyOpt's EI (which minimises)
/// computes it on the mirrored problem: with s = max(sd, 1e-10) and u = (mean - best - xi) / s,
/// EI = s (u Phi(u) + phi(u)), dEI = Phi(u) dmean + phi(u) dsd.
namespace fedsim::baselines {

/// Standard normal density and distribution function.
double normal_pdf(double z);
double normal_cdf(double z);
/// ln Phi(z), accurate for every z (an asymptotic series below -30, where Phi underflows);
/// d ln Phi / dz = phi(z) / Phi(z) into `derivative` when non-null.
double log_normal_cdf(double z, double* derivative = nullptr);

struct ExpectedImprovement {
  double value;   ///< EI
  double d_mean;  ///< dEI / dmean = Phi(u)
  double d_sd;    ///< dEI / dsd = phi(u) (0 where sd is floored)
};

/// EI of a Gaussian N(mean, sd^2) over `best` + xi. sd >= 0 (floored at 1e-10, as GPyOpt).
ExpectedImprovement expected_improvement(double mean, double sd, double best, double xi);

/// The same EI without floor or xi, by variance: EI = (mu - y*) Phi(z) + sd phi(z),
/// z = (mu - y*) / sd, with the derivatives a box refinement needs; variance <= 0 (a certain
/// prediction) gives max(mu - y*, 0) and d_mean 1 or 0. What RGPE maximises on its ensemble and
/// TAF weights for the target model (rgpe.hpp, taf.hpp).
struct VarianceExpectedImprovement {
  double value = 0.0;
  double d_mean = 0.0;      ///< dEI / dmu = Phi(z)
  double d_variance = 0.0;  ///< dEI / dvar = phi(z) / (2 sd) (0 when sd = 0)
};
VarianceExpectedImprovement expected_improvement_of_variance(double mean, double variance,
                                                             double incumbent);

}  // namespace fedsim::baselines
