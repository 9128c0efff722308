#include "engine/objectives/seir.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim {
namespace {

void require(bool ok, const char* field, const char* rule) {
  if (!ok) throw std::invalid_argument(std::string("SeirRegion: ") + field + " must be " + rule);
}

double log_uniform(RandomStream& rng, double lo, double hi) {
  return std::exp(rng.uniform(std::log(lo), std::log(hi)));
}

struct State {
  double s, e, i, c;
};

}  // namespace

void SeirRegion::validate() const {
  require(std::isfinite(population) && population >= 1.0, "population", ">= 1");
  require(initial_infectious > 0.0 && initial_infectious < population, "initial_infectious",
          "in (0, population)");
  require(std::isfinite(r0) && r0 > 0.0, "r0", "> 0");
  require(std::isfinite(incubation_days) && incubation_days > 0.0, "incubation_days", "> 0");
  require(std::isfinite(infectious_days) && infectious_days > 0.0, "infectious_days", "> 0");
  require(std::isfinite(doses_per_day) && doses_per_day >= 0.0, "doses_per_day", ">= 0");
  require(std::isfinite(capacity_per_day) && capacity_per_day >= 0.0, "capacity_per_day", ">= 0");
  require(efficacy >= 0.0 && efficacy <= 1.0, "efficacy", "in [0, 1]");
  require(std::isfinite(horizon_days) && horizon_days > 0.0, "horizon_days", "> 0");
  require(step_days > 0.0 && step_days <= horizon_days, "step_days", "in (0, horizon_days]");
}

SeirRegion SeirRegion::draw(RandomStream& rng) {
  SeirRegion r;
  r.population = log_uniform(rng, 1e5, 1e7);
  r.initial_infectious = log_uniform(rng, 10.0, 1000.0);
  r.r0 = rng.uniform(1.5, 3.0);
  r.incubation_days = rng.uniform(4.0, 6.0);
  r.infectious_days = rng.uniform(5.0, 9.0);
  r.doses_per_day = r.population * rng.uniform(0.002, 0.006);
  r.capacity_per_day = r.doses_per_day * rng.uniform(1.0, 1.4);
  return r;
}

double seir_relative_efficacy(double x) {
  const double q = 1.0 - 4.0 * (1.0 - x) * (1.0 - x);
  return q > 0.0 ? q : 0.0;
}

double seir_immunisation_rate(const SeirRegion& r, double x) {
  const double alpha = r.efficacy * seir_relative_efficacy(x);
  if (alpha <= 0.0) return 0.0;  // also covers x = 0, where doses / x is infinite
  return alpha * std::min(r.doses_per_day / x, r.capacity_per_day) / r.population;
}

double seir_attack_rate(const SeirRegion& r, double x) {
  const double gamma = 1.0 / r.infectious_days;
  const double beta = r.r0 * gamma;
  const double sigma = 1.0 / r.incubation_days;
  const double v = seir_immunisation_rate(r, x);
  const double i0 = r.initial_infectious / r.population;
  const auto rhs = [&](const State& y) {
    const double infection = beta * y.s * y.i;
    return State{-infection - v * y.s, infection - sigma * y.e, sigma * y.e - gamma * y.i,
                 infection};
  };
  const auto axpy = [](const State& y, double h, const State& k) {
    return State{y.s + h * k.s, y.e + h * k.e, y.i + h * k.i, y.c + h * k.c};
  };
  State y{1.0 - i0, 0.0, i0, 0.0};
  // Fixed steps; the last one is shortened so the horizon is hit exactly.
  for (double t = 0.0; t < r.horizon_days;) {
    const double h = std::min(r.step_days, r.horizon_days - t);
    const State k1 = rhs(y);
    const State k2 = rhs(axpy(y, h / 2, k1));
    const State k3 = rhs(axpy(y, h / 2, k2));
    const State k4 = rhs(axpy(y, h, k3));
    y.s += h / 6 * (k1.s + 2 * k2.s + 2 * k3.s + k4.s);
    y.e += h / 6 * (k1.e + 2 * k2.e + 2 * k3.e + k4.e);
    y.i += h / 6 * (k1.i + 2 * k2.i + 2 * k3.i + k4.i);
    y.c += h / 6 * (k1.c + 2 * k2.c + 2 * k3.c + k4.c);
    t = (h == r.step_days) ? t + h : r.horizon_days;
  }
  return i0 + y.c;
}

SeirObjective::SeirObjective(std::vector<SeirRegion> regions) : regions_(std::move(regions)) {
  if (regions_.empty()) throw std::invalid_argument("SeirObjective: no regions");
  for (const auto& r : regions_) r.validate();
  // Numerical optimum: grid, then golden section inside the best cell's neighbourhood.
  constexpr int n = 501;
  int best = 0;
  best_value_ = -INFINITY;
  for (int j = 0; j < n; ++j) {
    const double v = value_at(static_cast<double>(j) / (n - 1));
    if (v > best_value_) best_value_ = v, best = j;
  }
  best_x_ = static_cast<double>(best) / (n - 1);
  double lo = std::max(0, best - 1) / double(n - 1), hi = std::min(n - 1, best + 1) / double(n - 1);
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  double fa = value_at(a), fb = value_at(b);
  for (int it = 0; it < 60; ++it) {
    if (fa >= fb) {
      hi = b, b = a, fb = fa, a = hi - g * (hi - lo), fa = value_at(a);
    } else {
      lo = a, a = b, fa = fb, b = lo + g * (hi - lo), fb = value_at(b);
    }
  }
  for (const double x : {a, b})
    if (const double v = value_at(x); v > best_value_) best_value_ = v, best_x_ = x;
}

double SeirObjective::value_at(double x) const {
  double sum = 0.0;
  for (const auto& r : regions_) sum += seir_attack_rate(r, x);
  return -sum / static_cast<double>(regions_.size());
}

double SeirObjective::value(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  return value_at(std::clamp(x(0), 0.0, 1.0));
}

Eigen::VectorXd SeirObjective::optimum_location() const {
  return Eigen::VectorXd::Constant(1, best_x_);
}

}  // namespace fedsim
