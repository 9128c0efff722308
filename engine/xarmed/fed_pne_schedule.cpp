#include "engine/xarmed/fed_pne_schedule.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim::xarmed {
namespace {
void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("fed-pne: " + message);
}
}  // namespace

void FedPneParams::validate(int clients, std::int64_t budget) const {
  require(clients >= 1, "clients M must be >= 1");
  require(budget >= 1, "budget T must be >= 1");
  require(std::isfinite(nu1) && nu1 > 0.0, "nu1 must be > 0");
  require(rho > 0.0 && rho < 1.0, "rho must be in (0, 1)");
  require(std::isfinite(c) && c > 0.0, "c must be > 0");
  require(std::isfinite(c1) && c1 > 0.0, "c1 must be > 0");
  require(delta >= 0.0 && delta <= 1.0, "delta must be in (0, 1] (0: 1/M)");
  require(std::log(c1 * static_cast<double>(budget) / effective_delta(clients)) > 0.0,
          "log(c1 T / delta) must be > 0 (raise c1 or T, or lower delta)");
}

FedPneSchedule::FedPneSchedule(const FedPneParams& params, int clients, std::int64_t budget)
    : params_(params), clients_(clients), budget_(budget) {
  params_.validate(clients, budget);
  log_term_ = std::log(params_.c1 * static_cast<double>(budget) / params_.effective_delta(clients));
}

double FedPneSchedule::tau(int depth) const {
  const double base = params_.c * params_.c * log_term_ / (params_.nu1 * params_.nu1);
  return std::ceil(base * std::pow(params_.rho, -2.0 * depth));
}

std::int64_t FedPneSchedule::pulls_per_node(int depth) const {
  const double t = std::ceil(tau(depth) / clients_);
  if (!(t <= 9007199254740992.0)) throw std::overflow_error("fed-pne: pull count above 2^53");
  return static_cast<std::int64_t>(t);
}

double FedPneSchedule::confidence_width(std::int64_t total_pulls) const {
  return params_.c * std::sqrt(log_term_ / static_cast<double>(total_pulls));
}

double FedPneSchedule::smoothness(int depth) const {
  return params_.nu1 * std::pow(params_.rho, depth);
}

}  // namespace fedsim::xarmed
