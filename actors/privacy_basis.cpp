#include "actors/privacy_basis.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/dp/rdp_conventions.hpp"

namespace fedsim::actors {

using Filter = scenario::PrivacyConfig::Filter;

std::vector<std::string> adaptive_reasons(const scenario::ScenarioConfig& config,
                                          const ParticipationContext& context) {
  std::vector<std::string> why;
  if (context.loop) return why;
  if (config.run.wall())
    why.push_back("run.time = \"wall\": compute and delivery times are real and can depend on "
                  "the points evaluated");
  if (context.served)
    why.push_back("agents served in other processes: their failures are real and can depend "
                  "on their data");
  const auto& o = config.world.objective;
  if (context.own_objective)
    why.push_back("an objective of the embedding program: its costs can depend on the query");
  else if (o.is_external())
    why.push_back("world.objective.kind = \"" + scenario::name_of(o.kind) +
                  "\": an external objective's costs and failures can depend on the point");
  else if (o.is_tuning() && o.cost_per_sample > 0.0)
    why.push_back("world.objective.cost_per_sample > 0: compute time grows with the agent's "
                  "own data");
  return why;
}

scenario::PrivacyConfig::Filter resolved_filter(const scenario::ScenarioConfig& config,
                                                const std::vector<std::string>& reasons) {
  const auto& p = config.privacy;
  const bool counts_valid = reasons.empty() || p.assume_nonadaptive;
  switch (p.filter) {
    // Without an agent budget nothing is filtered: the count's epsilon is the tighter number
    // to report, a guarantee or not as the participation says (per_agent_guarantee).
    case Filter::automatic:
      return counts_valid || !std::isfinite(p.agent_budget) ? Filter::pld : Filter::rdp;
    case Filter::pld:
      if (!counts_valid)
        throw std::invalid_argument(
            "key 'privacy.filter': \"pld\" prices an agent by its count of releases, which has "
            "no guarantee when participation is adaptive (" + reasons.front() +
            "); use \"rdp\" or \"auto\", or set privacy.assume_nonadaptive = true if the count "
            "cannot depend on the agents' data");
      return Filter::pld;
    case Filter::rdp: return Filter::rdp;
  }
  throw std::logic_error("resolved_filter: a filter without a rule");
}

PrivacyBasis privacy_basis(const scenario::ScenarioConfig& config, const ParticipationContext& context) {
  PrivacyBasis b;
  const auto& p = config.privacy;
  b.reasons = adaptive_reasons(config, context);
  b.adaptive = !b.reasons.empty();
  b.assumed_nonadaptive = b.adaptive && p.assume_nonadaptive;
  b.filter = resolved_filter(config, b.reasons);
  const bool counts_valid = !b.adaptive || p.assume_nonadaptive;
  const bool filtering = std::isfinite(p.agent_budget);
  b.per_agent_guarantee = counts_valid;
  if (b.filter == Filter::rdp) {
    // Without an agent budget the filter admits everything: its order is then the one giving
    // the smallest epsilon after the run's planned releases (the largest epsilon 1e6 stands
    // for "no budget" in the choice).
    const fbo::ReferenceConfig algo = scenario::reference_config(config);
    b.rdp = dp::RdpFilter::choose(algo.q, algo.z, filtering ? p.agent_budget : 1e6,
                                  algo.effective_delta(), std::max(1, algo.iterations),
                                  dp::rdp_orders(dp::OrderGrid::fine));
    b.per_agent_guarantee = counts_valid || filtering;
  }
  return b;
}

double epsilon_guarantee(const PrivacyBasis& b, double run_epsilon, double budget) {
  if (!b.adaptive || b.assumed_nonadaptive) return run_epsilon;
  return std::isfinite(budget) ? budget : std::nan("");
}

std::string per_agent_meaning(const PrivacyBasis& b) {
  const bool counts_valid = !b.adaptive || b.assumed_nonadaptive;
  if (b.filter == Filter::pld) {
    if (b.assumed_nonadaptive)
      return "each agent's epsilon of its count of releases by privacy.accountant, a guarantee as "
             "privacy.assume_nonadaptive states the count cannot depend on its data";
    if (counts_valid)
      return "each agent's epsilon of its count of releases by privacy.accountant, a guarantee as "
             "the count does not depend on its data";
    return "each agent's epsilon of its count of releases by privacy.accountant: not a guarantee "
           "under adaptive participation (no privacy.agent_budget filters it); the run's "
           "epsilon_guarantee is (when there is one)";
  }
  if (counts_valid)
    return "each agent's RDP at the filter's order, converted: a guarantee as the count does not "
           "depend on its data";
  return b.per_agent_guarantee
             ? "each agent's RDP at the filter's order, converted; under adaptive participation "
               "the guarantee for every agent is privacy.agent_budget (a Renyi filter)"
             : "each agent's RDP at the filter's order, converted: not a guarantee under adaptive "
               "participation without privacy.agent_budget; the run's epsilon_guarantee is (when there is "
               "one)";
}

}  // namespace fedsim::actors
