#pragma once
/// What a private run's per-agent epsilon rests on (docs/privacy.md, "Per-agent privacy"):
/// whether an agent's participation count can depend on its data or on earlier releases
/// (adaptive participation), which per-agent filter therefore prices its releases, and why.
///
/// Participation is adaptive when fedsim cannot rule out that the set of releases an agent's
/// report reaches depends on its data:
///  - wall-clock time (`run.time = "wall"`): compute and delivery times are real;
///  - agents served in other processes (`fedsim serve`): their failures are real;
///  - an external objective (`command`, `tcp`): its costs and failures can depend on the point;
///  - a tuning objective charging `cost_per_sample > 0`: compute time grows with the agent's
///    own data;
///  - an objective of an embedding program (RunOptions::objective): its costs may depend on the
///    query.
/// Then a PLD (or best-order RDP) filter on the agent's count has no guarantee (Tran, Räisä,
/// Koskela, Honkela 2026, arXiv 2602.06756), and `privacy.filter = "pld"` is refused unless
/// `privacy.assume_nonadaptive = true` says the user knows better; the default (`auto`) filters
/// with the Rényi filter at a fixed order (engine/dp/rdp_filter.hpp), valid under full
/// adaptivity. Without `privacy.agent_budget` nothing is filtered, and `auto` reports each
/// agent's epsilon of its count, saying it is not a guarantee there.
#include <optional>
#include <string>
#include <vector>

#include "actors/run_config.hpp"
#include "engine/dp/rdp_filter.hpp"

namespace fedsim::actors {

/// What the scenario file does not say about a run: how it is hosted.
struct ParticipationContext {
  bool served = false;         ///< agents in other processes (fedsim serve)
  bool own_objective = false;  ///< RunOptions::objective, an embedding program's
  /// The plain loop (--driver loop): every agent's report is in every release, whatever the
  /// objective costs, so participation is never adaptive there.
  bool loop = false;
};

struct PrivacyBasis {
  bool adaptive = false;             ///< fedsim finds participation adaptive
  std::vector<std::string> reasons;  ///< why (empty when it is not)
  bool assumed_nonadaptive = false;  ///< privacy.assume_nonadaptive, when it acted
  /// The filter that prices agents' releases (pld or rdp; automatic resolved: rdp where
  /// participation is adaptive and privacy.agent_budget filters, else pld); the per-agent
  /// epsilon is reported by it, filtering or not.
  scenario::PrivacyConfig::Filter filter = scenario::PrivacyConfig::Filter::pld;
  /// rdp: the filter, its order fixed from the configuration (q, z, agent_budget, delta,
  /// iterations). Without an agent budget the order is the one best for the run's planned
  /// releases (what the per-agent epsilon is reported at).
  std::optional<dp::RdpFilter> rdp;
  /// Whether each agent's reported epsilon is a guarantee for it: true where participation is
  /// not adaptive (or assumed not to be), and for rdp with an agent budget (the budget is the
  /// guarantee); false otherwise, where only epsilon_guarantee is.
  bool per_agent_guarantee = true;
};

/// Why participation in `config`'s run is adaptive (empty: it is not).
std::vector<std::string> adaptive_reasons(const scenario::ScenarioConfig& config,
                                          const ParticipationContext& context);

/// The filter `config`'s run takes given why participation is adaptive (`reasons`, empty when
/// it is not): automatic resolved; throws std::invalid_argument "key 'privacy.filter': ..."
/// naming the first reason when filter = pld meets adaptive participation without
/// assume_nonadaptive. (What the loader checks, without choosing the Rényi filter's order.)
scenario::PrivacyConfig::Filter resolved_filter(const scenario::ScenarioConfig& config,
                                                const std::vector<std::string>& reasons);

/// The basis of a private FBO run. Throws std::invalid_argument "key 'privacy.filter': ..."
/// naming the reason when filter = pld meets adaptive participation without
/// assume_nonadaptive.
PrivacyBasis privacy_basis(const scenario::ScenarioConfig& config, const ParticipationContext& context);

/// The run's epsilon that holds in every mode, for summary.json: where participation is not
/// adaptive (or assumed not to be), the run's own `run_epsilon` (which rounds release depends
/// on the network model alone, so the count priced is fixed independently of the data);
/// where it is adaptive, `budget` (privacy.budget: the server releases nothing past it, so at
/// most the fixed count the budget allows is composed, some releases left out adaptively),
/// and NaN without one -- no count of releases is fixed before the run (rounds follow time
/// and arrivals, and time-outs open rounds beyond the iterations).
double epsilon_guarantee(const PrivacyBasis& basis, double run_epsilon, double budget);

/// One sentence for summary.json: what each agent's reported epsilon is, and whether it is a
/// guarantee for it.
std::string per_agent_meaning(const PrivacyBasis& basis);

}  // namespace fedsim::actors
