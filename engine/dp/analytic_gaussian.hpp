#pragma once
/// The exact privacy profile of the Gaussian mechanism (Balle and Wang 2018, "analytic
/// Gaussian mechanism"). With sensitivity 1 and noise sd sigma,
///   delta(eps) = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma).
/// T releases with noise multiplier z compose to one Gaussian mechanism with sigma = z / sqrt(T).
namespace fedsim::dp {

/// delta(eps) for sigma > 0 and eps >= 0; evaluated with erfc and logs, so it stays accurate
/// far into the tails.
double gaussian_delta(double epsilon, double sigma);

/// The smallest eps >= 0 with gaussian_delta(eps, sigma) <= delta, by bisection to a relative
/// 1e-13. Throws std::invalid_argument unless sigma > 0 and delta in (0, 1).
double gaussian_epsilon(double delta, double sigma);

}  // namespace fedsim::dp
