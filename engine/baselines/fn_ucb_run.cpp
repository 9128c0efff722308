#include "engine/baselines/fn_ucb_run.hpp"

#include <stdexcept>

namespace fedsim::baselines {

BanditPull run_fn_ucb_client_round(FnUcbClient& client, std::int64_t t,
                                   const xarmed::FederatedProblem& problem, const FnUcbModel& model,
                                   std::uint64_t seed) {
  const int i = client.id();
  const std::int64_t arm = client.choose(t);
  const Eigen::VectorXd x = model.mesh.points.row(arm).transpose();
  RandomStream rng(seed, "fnucb.client", static_cast<std::uint64_t>(i),
                   static_cast<std::uint64_t>(t));
  const double reward = problem.locals.at(static_cast<std::size_t>(i))->value(x) +
                        rng.uniform(-problem.noise, problem.noise);
  client.observe(t, arm, reward);
  return BanditPull{i, t, arm, reward, problem.global->optimum_value() - problem.global->value(x)};
}

FnUcbRunResult run_fn_ucb(const FnUcbRunConfig& config, const xarmed::FederatedProblem& problem) {
  FnUcbParams params = config.params;
  params.clients = problem.clients();
  params.validate();
  if (!problem.global || problem.clients() < 1)
    throw std::invalid_argument("fn-ucb: the problem needs a global objective and clients");
  if (problem.global->dim() != problem.domain.dim())
    throw std::invalid_argument("fn-ucb: the domain's dimension differs from the objective's");
  const std::uint64_t seed = config.seed;
  RandomStream mesh_rng(seed, "baselines.mesh"), init_rng(seed, "fnucb.init");
  auto model = std::make_shared<const FnUcbModel>(
      make_fn_ucb_model(problem.domain, params, mesh_rng, init_rng));
  FnUcbServer server(params, *model);
  std::vector<FnUcbClient> clients;
  for (int i = 0; i < params.clients; ++i) clients.emplace_back(i, params, model);

  FnUcbRunResult result;
  result.model = model;
  result.client_regret.assign(clients.size(), 0.0);
  result.average_regret_curve.reserve(static_cast<std::size_t>(params.budget));
  double cumulative = 0.0;
  for (std::int64_t t = 1; t <= params.budget; ++t) {
    bool sync = false;
    for (FnUcbClient& c : clients) {
      const BanditPull pull = run_fn_ucb_client_round(c, t, problem, *model, seed);
      result.client_regret[static_cast<std::size_t>(c.id())] += pull.regret;
      cumulative += pull.regret;
      if (config.record_pulls) result.pulls.push_back(pull);
      sync = sync || c.wants_sync();
    }
    result.average_regret_curve.push_back(cumulative / params.clients);
    if (sync && t < params.budget) {  // nothing after T could use a synchronisation
      server.begin_sync(t);
      for (FnUcbClient& c : clients) {
        const std::vector<double> report = c.sync_report(t);
        result.numbers_sent_per_client += static_cast<std::int64_t>(report.size());
        const std::string why = server.receive(c.id(), report);
        if (!why.empty()) throw std::logic_error("fn-ucb: the server refused a report: " + why);
      }
      const std::vector<double> broadcast = server.close_sync();
      for (FnUcbClient& c : clients) c.apply_broadcast(broadcast, t);
      result.numbers_received_per_client += static_cast<std::int64_t>(broadcast.size());
      result.sync_rounds.push_back(t);
    }
    if (config.on_round)
      config.on_round(t, result.client_regret, static_cast<std::int64_t>(result.sync_rounds.size()));
  }
  result.numbers_sent_per_client /= params.clients;
  result.average_regret = cumulative / params.clients;
  return result;
}

}  // namespace fedsim::baselines
