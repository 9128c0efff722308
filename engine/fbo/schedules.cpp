#include "engine/fbo/schedules.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedsim::fbo {

double p_local(PSchedule schedule, int t, bool p1_equals_p2) {
  if (t < 1) throw std::invalid_argument("p_t is defined for t >= 1");
  if (p1_equals_p2 && t == 1) t = 2;
  switch (schedule) {
    case PSchedule::inv_sqrt: return 1.0 - 1.0 / std::sqrt(static_cast<double>(t));
    case PSchedule::inv: return 1.0 - 1.0 / t;
    case PSchedule::inv_square: return 1.0 - 1.0 / (static_cast<double>(t) * t);
    case PSchedule::always_local: return 1.0;
  }
  return 1.0;
}

PSchedule parse_p_schedule(const std::string& name) {
  if (name == "1/sqrt(t)") return PSchedule::inv_sqrt;
  if (name == "1/t") return PSchedule::inv;
  if (name == "1/t^2") return PSchedule::inv_square;
  if (name == "local") return PSchedule::always_local;
  throw std::invalid_argument("unknown p_t schedule '" + name +
                              "': allowed 1/sqrt(t), 1/t, 1/t^2, local");
}

std::string to_string(PSchedule schedule) {
  switch (schedule) {
    case PSchedule::inv_sqrt: return "1/sqrt(t)";
    case PSchedule::inv: return "1/t";
    case PSchedule::inv_square: return "1/t^2";
    case PSchedule::always_local: return "local";
  }
  throw std::logic_error("to_string: not a PSchedule value");
}

namespace {
/// a_t: a+1 for t <= hold, then linear down to 1 over `decay` rounds, then 1.
double a_t(int t, double a, int hold, int decay) {
  if (t <= hold) return a + 1;
  if (t >= hold + decay) return 1.0;
  return (a + 1) - a * (t - hold - 1) / (decay - 1.0);
}
}  // namespace

double temperature(TemperatureSchedule schedule, int t, double a) {
  double at = 1.0;
  switch (schedule) {
    case TemperatureSchedule::synthetic: at = a_t(t, a, 5, 5); break;
    case TemperatureSchedule::real_world: at = a_t(t, a, 10, 30); break;
    case TemperatureSchedule::fixed: return 1.0;
    case TemperatureSchedule::uniform: return infinite_temperature;
  }
  return at <= 1.0 ? infinite_temperature : a / (at - 1.0);
}

TemperatureSchedule parse_temperature_schedule(const std::string& name) {
  if (name == "synthetic") return TemperatureSchedule::synthetic;
  if (name == "real-world") return TemperatureSchedule::real_world;
  if (name == "fixed") return TemperatureSchedule::fixed;
  if (name == "uniform") return TemperatureSchedule::uniform;
  throw std::invalid_argument("unknown temperature schedule '" + name +
                              "': allowed synthetic, real-world, fixed, uniform");
}

std::string to_string(TemperatureSchedule schedule) {
  switch (schedule) {
    case TemperatureSchedule::synthetic: return "synthetic";
    case TemperatureSchedule::real_world: return "real-world";
    case TemperatureSchedule::fixed: return "fixed";
    case TemperatureSchedule::uniform: return "uniform";
  }
  throw std::logic_error("to_string: not a TemperatureSchedule value");
}

}  // namespace fedsim::fbo
