#pragma once
/// The schedules of the FBO algorithms: the probability p_t of local TS (FTS section 3.1,
/// DP-FTS-DE section 5.1) and the softmax temperature of DE's weights (DP-FTS-DE appendix B).
#include <limits>
#include <string>

namespace fedsim::fbo {

/// 1 - p_t = 1/sqrt(t), 1/t or 1/t^2; `always_local` (p_t = 1) turns every agent into TS.
enum class PSchedule { inv_sqrt, inv, inv_square, always_local };

/// p_t for t >= 1. With p1_equals_p2 (FTS section 5.1), p_1 = p_2 so that p_1 > 0.
double p_local(PSchedule schedule, int t, bool p1_equals_p2);

PSchedule parse_p_schedule(const std::string& name);  ///< "1/sqrt(t)", "1/t", "1/t^2", "local"
std::string to_string(PSchedule schedule);

/// How DE's weights phi_n^(i) evolve with the round t (DP-FTS-DE appendix B):
/// synthetic: a_t = a+1 for t <= 5, linear to 1 over t = 6..10, then 1;
/// real_world: a_t = a+1 for t <= 10, linear to 1 over t = 11..40, then 1;
/// fixed: temperature 1 forever (appendix B.2.5's non-adaptive weights);
/// uniform: equal weights for every sub-region (appendix B.1.2's ablation, orange curve).
/// Temperature T_t = a / (a_t - 1); a_t = 1 gives T = +inf, i.e. uniform weights.
enum class TemperatureSchedule { synthetic, real_world, fixed, uniform };

double temperature(TemperatureSchedule schedule, int t, double a);
TemperatureSchedule parse_temperature_schedule(const std::string& name);
std::string to_string(TemperatureSchedule schedule);

constexpr double infinite_temperature = std::numeric_limits<double>::infinity();

}  // namespace fedsim::fbo
