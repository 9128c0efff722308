#include "engine/dp/rdp_filter.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/dp/checks.hpp"
#include "engine/dp/rdp.hpp"

namespace fedsim::dp {
namespace {

/// The part of the improved conversion that does not depend on the RDP: ε = ρ + offset(α).
double conversion_offset(double order, double delta) {
  return std::log1p(-1.0 / order) - (std::log(delta) + std::log(order)) / (order - 1.0);
}

}  // namespace

RdpFilter RdpFilter::choose(double q, double z, double epsilon_budget, double delta,
                            std::int64_t planned_releases, const std::vector<double>& orders) {
  if (!(q > 0.0 && q <= 1.0)) throw std::invalid_argument("rdp filter: q must be in (0, 1]");
  if (!(z > 0.0) || !std::isfinite(z)) throw std::invalid_argument("rdp filter: z must be > 0");
  if (!(epsilon_budget > 0.0) || !std::isfinite(epsilon_budget))
    throw std::invalid_argument("rdp filter: the budget must be a finite epsilon > 0");
  check_delta(delta);
  if (planned_releases < 1) throw std::invalid_argument("rdp filter: planned releases must be >= 1");
  if (orders.empty()) throw std::invalid_argument("rdp filter: no orders");
  RdpFilter best;
  std::int64_t best_count = -1;
  double best_epsilon = std::numeric_limits<double>::infinity();
  for (const double order : orders) {
    if (!(order > 1.0)) throw std::invalid_argument("rdp filter: orders must be > 1");
    RdpFilter f;
    f.order = order;
    f.step_rdp = rdp_subsampled_gaussian(q, z, order);
    f.rdp_budget = epsilon_budget - conversion_offset(order, delta);
    const std::int64_t count = std::min(f.admitted_releases(), planned_releases);
    const double eps = f.epsilon(count, delta);
    if (count > best_count || (count == best_count && eps < best_epsilon)) {
      best = f;
      best_count = count;
      best_epsilon = eps;
    }
  }
  return best;
}

std::int64_t RdpFilter::admitted_releases() const {
  if (!(rdp_budget >= 0.0)) return 0;
  if (!(step_rdp > 0.0)) return std::numeric_limits<std::int64_t>::max();  // no RDP per release
  const double k = std::floor(rdp_budget / step_rdp);
  if (k >= 9.0e18) return std::numeric_limits<std::int64_t>::max();
  // floor may land one above when the division rounds up: keep the exact rule of admits().
  auto n = static_cast<std::int64_t>(k);
  while (n > 0 && static_cast<double>(n) * step_rdp > rdp_budget) --n;
  return n;
}

bool RdpFilter::admits(std::int64_t releases) const {
  return static_cast<double>(releases + 1) * step_rdp <= rdp_budget;
}

double RdpFilter::epsilon(std::int64_t releases, double delta) const {
  if (releases <= 0) return 0.0;
  return std::max(0.0, static_cast<double>(releases) * step_rdp + conversion_offset(order, delta));
}

}  // namespace fedsim::dp
