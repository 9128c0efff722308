#include "engine/baselines/fed1_ucb_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/rng.hpp"

namespace fedsim::baselines {

double run_fed1_ucb_client_phase(Fed1UcbClient& client, const Fed1UcbBroadcast& b,
                                 std::int64_t steps, const xarmed::FederatedProblem& problem,
                                 const ArmMesh& mesh, std::uint64_t seed, double* step_regret,
                                 std::vector<BanditPull>* pulls) {
  const int m = client.id();
  const Objective& local = *problem.locals.at(static_cast<std::size_t>(m));
  const Objective& global = *problem.global;
  const double f_star = global.optimum_value();
  client.start_phase(b);
  if (steps < 0 || steps > client.phase_pulls())
    throw std::invalid_argument("fed1-ucb: steps outside the phase");
  RandomStream rng(seed, "fed1ucb.client", static_cast<std::uint64_t>(m),
                   static_cast<std::uint64_t>(b.phase));
  // Each arm is one point: evaluate it once per phase, not once per pull.
  constexpr double unset = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> value(b.active.size(), unset), regret_of(b.active.size(), unset);
  double regret_sum = 0.0;
  for (std::int64_t s = 0; s < steps; ++s) {
    const auto slot = static_cast<std::size_t>(client.pulls_done() / b.pulls_per_arm);
    const std::int64_t arm = client.next_arm();
    if (std::isnan(value[slot])) {
      const Eigen::VectorXd x = mesh.points.row(arm).transpose();
      value[slot] = local.value(x);
      regret_of[slot] = f_star - global.value(x);
    }
    const double reward = value[slot] + rng.uniform(-problem.noise, problem.noise);
    const std::int64_t step_before = client.pulls_done();
    client.observe(reward);
    regret_sum += regret_of[slot];
    if (step_regret) step_regret[s] += regret_of[slot];
    if (pulls) pulls->push_back(BanditPull{m, step_before, arm, reward, regret_of[slot]});
  }
  return regret_sum;
}

Fed1UcbRunResult run_fed1_ucb(const Fed1UcbRunConfig& config,
                              const xarmed::FederatedProblem& problem) {
  Fed1UcbParams params = config.params;
  params.clients = problem.clients();
  params.validate();
  if (!problem.global || problem.clients() < 1)
    throw std::invalid_argument("fed1-ucb: the problem needs a global objective and clients");
  if (problem.global->dim() != problem.domain.dim())
    throw std::invalid_argument("fed1-ucb: the domain's dimension differs from the objective's");
  const std::uint64_t seed = config.seed;
  const int m_count = params.clients;
  const std::int64_t budget = params.budget;

  Fed1UcbRunResult result;
  RandomStream mesh_rng(seed, "baselines.mesh");
  result.mesh = make_arm_mesh(problem.domain, params.arms_per_dim, mesh_rng);
  Fed1UcbServer server(params, result.mesh.arms());
  std::vector<Fed1UcbClient> clients;
  for (int m = 0; m < m_count; ++m) clients.emplace_back(m, result.mesh.arms());

  result.client_regret.assign(static_cast<std::size_t>(m_count), 0.0);
  std::vector<double> step_regret(static_cast<std::size_t>(budget), 0.0);
  std::int64_t t = 0;
  while (t < budget) {
    const Fed1UcbBroadcast b = server.broadcast();
    const auto n = static_cast<std::int64_t>(b.active.size());
    const std::int64_t length = n * b.pulls_per_arm;
    const std::int64_t steps = std::min(length, budget - t);
    Fed1UcbPhaseRecord rec{b.phase, b.active.size(), b.pulls_per_arm, t, steps};
    ++result.rounds;
    result.numbers_received_per_client +=
        static_cast<std::int64_t>(fed1_ucb_broadcast_length(b.active.size()));
    std::vector<BanditPull> phase_pulls;
    for (int m = 0; m < m_count; ++m) {
      const std::size_t first = phase_pulls.size();
      result.client_regret[static_cast<std::size_t>(m)] += run_fed1_ucb_client_phase(
          clients[static_cast<std::size_t>(m)], b, steps, problem, result.mesh, seed,
          &step_regret[static_cast<std::size_t>(t)], config.record_pulls ? &phase_pulls : nullptr);
      for (std::size_t i = first; i < phase_pulls.size(); ++i) phase_pulls[i].step += t + 1;
    }
    rec.client_regret = result.client_regret;
    std::stable_sort(phase_pulls.begin(), phase_pulls.end(),
                     [](const BanditPull& a, const BanditPull& c) { return a.step < c.step; });
    result.pulls.insert(result.pulls.end(), phase_pulls.begin(), phase_pulls.end());
    t += steps;
    if (!server.committed() && steps == length) {
      for (int m = 0; m < m_count; ++m) {
        const std::string why = server.receive(m, clients[static_cast<std::size_t>(m)].report());
        if (!why.empty()) throw std::logic_error("fed1-ucb: the server refused a report: " + why);
      }
      result.numbers_sent_per_client +=
          static_cast<std::int64_t>(fed1_ucb_report_length(b.active.size()));
      const Fed1UcbPhaseOutcome out = server.close_phase();
      rec.completed = true;
      rec.survivors = out.survivors.size();
      rec.confidence_width = out.confidence_width;
    }
    result.phases.push_back(rec);
  }
  double total = 0.0;
  for (const double r : result.client_regret) total += r;
  result.average_regret = total / m_count;
  result.average_regret_curve.resize(step_regret.size());
  double sum = 0.0;
  for (std::size_t s = 0; s < step_regret.size(); ++s)
    result.average_regret_curve[s] = (sum += step_regret[s]) / m_count;
  return result;
}

}  // namespace fedsim::baselines
