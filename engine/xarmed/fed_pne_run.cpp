#include "engine/xarmed/fed_pne_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/rng.hpp"
#include "engine/xarmed/fed_pne_client.hpp"
#include "engine/xarmed/fed_pne_server.hpp"

namespace fedsim::xarmed {

void FedPneConfig::validate() const {
  problem.validate();
  params.validate(problem.clients, budget);
  if (k < 2) throw std::invalid_argument("fed-pne: arity k must be >= 2");
  if (!(std::isfinite(dp_epsilon) && dp_epsilon >= 0.0))
    throw std::invalid_argument("fed-pne: dp epsilon must be >= 0 (0: no DP)");
  if (is_private()) dp_fed_pne_guarantee(dp_epsilon, dp_delta, problem.clients);
}

double run_client_phase(FedPneClient& client, const PhaseBroadcast& b, std::int64_t steps,
                        const FederatedProblem& problem, std::uint64_t seed,
                        double* step_regret) {
  const int m = client.id();
  const Objective& local = *problem.locals[static_cast<std::size_t>(m)];
  const Objective& global = *problem.global;
  const double f_star = global.optimum_value();
  const auto p = static_cast<std::uint64_t>(b.phase);
  client.start_phase(b);
  RandomStream rng(seed, "fedpne.client", static_cast<std::uint64_t>(m), p);
  RandomStream dp_rng(seed, "fedpne.dp", static_cast<std::uint64_t>(m), p);
  // With the centre rule each node is evaluated at one point: evaluate it once per phase
  // (expensive objectives such as SEIR) instead of once per pull.
  const bool centre = client.point_rule() == PointRule::centre;
  constexpr double unset = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> node_value(b.size(), unset), node_regret(b.size(), unset);
  double regret_sum = 0.0;
  for (std::int64_t s = 0; s < steps; ++s) {
    const std::size_t slot = client.next_slot();
    const Eigen::VectorXd& x = client.propose(rng);
    double f_m, regret;
    if (centre) {
      if (std::isnan(node_value[slot])) node_value[slot] = local.value(x);
      if (std::isnan(node_regret[slot])) node_regret[slot] = f_star - global.value(x);
      f_m = node_value[slot];
      regret = node_regret[slot];
    } else {
      f_m = local.value(x);
      regret = f_star - global.value(x);
    }
    client.observe(f_m + rng.uniform(-problem.noise, problem.noise), dp_rng);
    regret_sum += regret;
    if (step_regret) step_regret[s] += regret;
  }
  return regret_sum;
}

FedPneResult run_fed_pne(const FedPneConfig& config) {
  config.validate();
  return run_fed_pne(config, make_problem(config.problem));
}

FedPneResult run_fed_pne(const FedPneConfig& cfg, const FederatedProblem& problem) {
  FedPneConfig config = cfg;
  config.problem.clients = problem.clients();
  config.validate();
  const int m_count = problem.clients();
  const std::int64_t budget = config.budget;
  const std::uint64_t seed = config.problem.seed;

  FedPneResult result;
  double dp_std = 0.0;
  if (config.is_private()) {
    result.privacy = dp_fed_pne_guarantee(config.dp_epsilon, config.dp_delta, m_count);
    dp_std = result.privacy->noise_std;
  }
  const PartitionTree tree(problem.domain, config.k, config.split, seed);
  FedPneServer server(tree, config.params, m_count, budget);
  std::vector<FedPneClient> clients;
  clients.reserve(static_cast<std::size_t>(m_count));
  for (int m = 0; m < m_count; ++m) clients.emplace_back(m, tree, config.point, dp_std);

  result.client_regret.assign(static_cast<std::size_t>(m_count), 0.0);
  std::vector<double> step_regret;  // summed over clients, per step
  if (config.record_curve) step_regret.assign(static_cast<std::size_t>(budget), 0.0);

  std::int64_t t = 0;
  while (t < budget) {
    const PhaseBroadcast& b = server.broadcast();
    const std::int64_t steps = std::min(b.length(), budget - t);
    PhaseRecord rec;
    rec.phase = b.phase;
    rec.depth = b.depth;
    rec.nodes = b.size();
    rec.pulls_per_node = b.pulls_per_node;
    rec.start = t;
    rec.steps = steps;
    ++result.rounds;
    result.nodes_received_per_client += static_cast<std::int64_t>(b.size());

    for (int m = 0; m < m_count; ++m)
      result.client_regret[static_cast<std::size_t>(m)] += run_client_phase(
          clients[static_cast<std::size_t>(m)], b, steps, problem, seed,
          config.record_curve ? &step_regret[static_cast<std::size_t>(t)] : nullptr);
    t += steps;
    rec.client_regret = result.client_regret;

    if (steps == b.length()) {  // a phase cut by the budget is never reported
      for (const FedPneClient& client : clients)
        if (server.receive(client.report()) != ReportStatus::accepted)
          throw std::logic_error("fed-pne: the server refused a well-formed report");
      const PhaseOutcome out = server.close_phase();
      rec.completed = true;
      rec.survivors = out.elimination.survivors;
      rec.best_mean = out.global_means[out.elimination.best];
      rec.confidence_width = out.confidence_width;
      ++result.completed_phases;
      result.nodes_sent_per_client += static_cast<std::int64_t>(rec.nodes);
    }
    result.phases.push_back(rec);
  }

  double total = 0.0;
  for (const double r : result.client_regret) total += r;
  result.average_regret = total / m_count;
  if (config.record_curve) {
    double sum = 0.0;
    result.average_regret_curve.resize(step_regret.size());
    for (std::size_t s = 0; s < step_regret.size(); ++s)
      result.average_regret_curve[s] = (sum += step_regret[s]) / m_count;
  }
  return result;
}

}  // namespace fedsim::xarmed
