#include "engine/xarmed/dp_fed_pne.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedsim::xarmed {

double dp_fed_pne_noise_std(double epsilon, double delta) {
  if (!(std::isfinite(epsilon) && epsilon > 0.0))
    throw std::invalid_argument("dp-fed-pne: epsilon must be > 0");
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("dp-fed-pne: delta must be in (0, 1)");
  return std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
}

double dp_fed_pne_delta(double delta, int clients) {
  if (clients < 1) throw std::invalid_argument("dp-fed-pne: clients must be >= 1");
  return delta > 0.0 ? delta : std::min(1.0 / clients, max_default_dp_delta);
}

FederatedDpGuarantee dp_fed_pne_guarantee(double epsilon, double delta, int clients) {
  FederatedDpGuarantee g;
  g.epsilon = epsilon;
  g.delta = dp_fed_pne_delta(delta, clients);
  g.clients = clients;
  g.noise_std = dp_fed_pne_noise_std(epsilon, g.delta);
  g.classic_range = epsilon < 1.0;
  return g;
}

}  // namespace fedsim::xarmed
