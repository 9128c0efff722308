#pragma once
/// Argument checks shared by the mechanisms and accountants: each throws
/// std::invalid_argument naming the parameter, its allowed range and the value given.
namespace fedsim::dp {

/// Sampling probability q in (0, 1].
void check_sampling_probability(double q);
/// Noise multiplier z > 0 (finite).
void check_noise_multiplier(double z);
/// Number of steps >= 0.
void check_steps(long steps);
/// total + steps (both >= 0), saturating at LONG_MAX instead of overflowing.
long add_steps(long total, long steps);
/// delta in (0, 1).
void check_delta(double delta);

}  // namespace fedsim::dp
