#include "scenarios/wall_compute_warning.hpp"

#include <vector>

#include "actors/network_keys.hpp"
#include "actors/run_keys.hpp"
#include "scenarios/schema.hpp"

namespace fedsim::scenario {
namespace {

namespace nk = actors::network_keys;
namespace rk = actors::run_keys;

bool zero(const Distribution& d) {
  return d.kind == Distribution::Kind::constant && d.value == 0.0;
}

bool same(const Distribution& a, const Distribution& b) {
  return a.kind == b.kind && a.value == b.value && a.low == b.low && a.high == b.high &&
         a.mean == b.mean && a.mu == b.mu && a.sigma == b.sigma;
}

}  // namespace

std::string unused_compute_model_warning(const ScenarioConfig& c) {
  if (!c.run.wall() || c.run.injected_compute) return "";
  std::vector<std::string> keys;
  // The default link's keys, then each group's that differ from it (a group starts from the
  // default link), each only where it charges time: a speed factor of zero compute is inert.
  const LinkModel& net = c.world.network.link;
  if (!zero(net.compute)) {
    keys.push_back(nk::full(nk::compute));
    if (net.speed_factor != 1.0) keys.push_back(nk::full("speed_factor"));
  }
  for (std::size_t i = 0; i < c.world.network.groups.size(); ++i) {
    const LinkModel& g = c.world.network.groups[i].link;
    const std::string group = nk::full(nk::groups) + "[" + std::to_string(i) + "].";
    if (zero(g.compute)) continue;
    if (!same(g.compute, net.compute)) keys.push_back(group + nk::compute);
    if (g.speed_factor != net.speed_factor) keys.push_back(group + "speed_factor");
  }
  if (c.world.objective.is_tuning() && c.world.objective.cost_per_sample > 0.0)
    keys.push_back("world.objective.cost_per_sample");
  if (keys.empty()) return "";
  return rk::full(rk::time) + " = wall charges the real time of evaluations, not the modelled "
         "compute time of " + schema::join(keys) + ": set " + rk::full(rk::injected_compute) +
         " = true to hold it as well (docs/wall-clock.md)";
}

}  // namespace fedsim::scenario
