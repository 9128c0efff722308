#include "engine/fbo/reference_loop.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/dp/accountant.hpp"
#include "engine/dp/ledger.hpp"
#include "engine/fbo/algorithm_traits.hpp"
#include "engine/fbo/streams.hpp"
#include "engine/objectives/synthetic_objective.hpp"

namespace fedsim::fbo {

bool ReferenceConfig::uses_server() const { return traits(algorithm).server == ServerKind::de; }

bool ReferenceConfig::is_private() const { return traits(algorithm).is_private; }

int ReferenceConfig::effective_regions() const {
  return traits(algorithm).regional ? subregions : 1;
}

StepSettings ReferenceConfig::step_settings() const {
  return {algorithm, p_schedule, p1_equals_p2, seed};
}

BoxMaximizerOptions ReferenceConfig::acquisition() const {
  BoxMaximizerOptions o;
  o.num_random = acquisition_candidates;
  o.num_refine = acquisition_refine;
  return o;
}

double ReferenceConfig::effective_delta() const {
  return delta > 0 ? delta
                   : std::min(1.0 / std::pow(static_cast<double>(agents), 1.1), max_default_delta);
}

DeServerConfig ReferenceConfig::server_config() const {
  DeServerConfig s;
  s.num_regions = effective_regions();
  s.privatise = is_private();
  s.q = is_private() ? q : 1.0;
  s.z = z;
  s.clip = clip;
  s.a = weight_a;
  s.temperature = temperature;
  return s;
}

namespace {
void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}
}  // namespace

void ReferenceConfig::validate() const {
  require(agents >= 1, "agents must be >= 1");
  require(algorithm == Algorithm::ts || agents >= 2 || uses_server(),
          "FTS needs at least 2 agents");
  require(iterations >= 1, "iterations must be >= 1");
  require(n_init >= 1, "n_init (initial points per agent) must be >= 1");
  require(features >= 1, "features M must be >= 1");
  require(subregions >= 1, "subregions P must be >= 1");
  require(!objective.is_grid() || subregions <= objective.grid_size,
          "subregions P must not exceed the grid size");
  require(acquisition_candidates >= 1, "acquisition_candidates must be >= 1");
  require(acquisition_refine >= 0, "acquisition_refine must be >= 0");
  require(q > 0 && q <= 1, "q must be in (0, 1]");
  require(z > 0 && std::isfinite(z), "z must be a finite number > 0");
  require(clip > 0 && std::isfinite(clip), "clip S must be a finite number > 0");
  require(lambda > 0 && std::isfinite(lambda), "lambda must be a finite number > 0");
  require(noise_variance >= 0 && std::isfinite(noise_variance), "noise variance must be >= 0");
  require(kernel_lengthscale > 0, "kernel lengthscale must be > 0");
  require(beta > 0, "beta must be > 0");
  require(delta >= 0 && delta < 1, "delta must be in (0, 1), or 0 for 1/N^1.1");
  require(peer_observations >= 0, "peer observations t_n must be >= 0");
  if (has_peers()) {
    require(agents >= 2, "the target-agent setting (peer observations > 0) needs N >= 2: "
                         "the target and at least one peer");
    require(algorithm == Algorithm::ts || algorithm == Algorithm::fts,
            "the target-agent setting (peer observations > 0) runs ts or fts only");
    require(algorithm == Algorithm::ts || fts_one_shot,
            "the target-agent setting (peer observations > 0) needs fts_one_shot = true: "
            "peers send one message before the start");
  }
  refit.validate();
  if (local_sampler == LocalSampler::refit_rff || local_sampler == LocalSampler::refit_rff_bounded) {
    refit_rff.validate();
    require(!refit.enabled(), "refit_every must be 0 with local_sampler = " +
                                  to_string(local_sampler) +
                                  ": it refits on its own period, local_refit_every");
  }
  objective.validate();
  server_config().validate();
  if (is_private()) dp::make_accountant(accountant);  // throws on an unknown name
}

std::shared_ptr<const AgentContext> make_agent_context(const ReferenceConfig& config,
                                                       const SearchDomain& domain) {
  const int d = domain.dim();
  const std::uint64_t feature_seed = RandomStream(config.seed, streams::features).key();
  RefitRffConfig refit_rff = config.refit_rff;
  refit_rff.first = config.n_init;  // the authors refit at iterations, never during init
  return std::make_shared<const AgentContext>(
      domain.candidates ? *domain.candidates : Grid{Eigen::MatrixXd(0, d)},
      RandomFourierFeatures(d, config.features, SeKernel{config.kernel_lengthscale, 1.0},
                            feature_seed),
      Partition(Box::unit(d), config.effective_regions()), config.lambda, config.beta,
      config.local_sampler, config.refit, config.seed, config.acquisition(), refit_rff,
      config.posterior_memory);
}

std::shared_ptr<const AgentContext> make_agent_context(const ReferenceConfig& config,
                                                       const Grid& candidates) {
  SearchDomain domain;
  domain.box = Box::unit(candidates.dim());
  domain.candidates = std::make_shared<const Grid>(candidates);
  return make_agent_context(config, domain);
}

std::vector<int> assign_regions(int agents, int regions) {
  std::vector<int> out(agents);
  for (int n = 0; n < agents; ++n) out[n] = n % regions;
  return out;
}

std::shared_ptr<const FederatedObjective> make_synthetic_objective(const ReferenceConfig& config) {
  return std::make_shared<const SyntheticObjective>(
      make_synthetic_objectives(config.objective, config.agents, config.seed, config.has_peers()),
      std::sqrt(config.noise_variance));
}

ReferenceResult run_reference(const ReferenceConfig& config) {
  config.validate();
  return run_reference(config, *make_synthetic_objective(config));
}

ReferenceResult run_reference(const ReferenceConfig& config, const FederatedObjective& objective) {
  config.validate();
  const int N = config.agents, T = config.iterations, P = config.effective_regions();
  const int learners = config.learners();  // agents 0..learners-1 optimise; the rest are peers
  check_fbo_objective(objective, N);
  const SearchDomain& domain = objective.domain();
  const auto context = make_agent_context(config, domain);
  const std::vector<int> assignment = assign_regions(N, P);
  std::vector<FboAgent> agents;
  agents.reserve(N);
  for (int n = 0; n < N; ++n) agents.emplace_back(n, assignment[n], context);

  ReferenceResult result;
  result.delta = config.effective_delta();
  result.observations.reserve(static_cast<size_t>(learners) * (config.n_init + T));
  result.mean_simple_regret.assign(T + 1, 0.0);
  std::vector<double> best(N, -std::numeric_limits<double>::infinity());
  std::vector<double> best_y(N, -std::numeric_limits<double>::infinity());
  std::vector<RandomStream> noise;
  noise.reserve(N);
  for (int n = 0; n < N; ++n) noise.emplace_back(config.seed, streams::agent_noise, n);
  const StepSettings step = config.step_settings();
  constexpr double absent = std::numeric_limits<double>::quiet_NaN();

  auto query = [&](int n, int iteration, const Choice& c) {
    const Evaluation e = evaluate(agents[n], objective, n, iteration, c.point, noise[n]);
    const double f = e.f.value_or(absent);
    // Once an f is unknown the best is too: no regret without every f (NaN stays NaN).
    best[n] = std::isnan(f) || std::isnan(best[n]) ? absent : std::max(best[n], f);
    best_y[n] = std::max(best_y[n], e.y);
    const double regret = objective.optimum(n).value_or(absent) - best[n];
    result.observations.push_back({n, iteration, c.point.index, domain.to_bounds(c.point.x), e.y,
                                   f, regret, best_y[n], c.branch, c.source});
    if (iteration >= 0) result.mean_simple_regret[iteration] += regret / learners;
  };

  // Round 0 (t = 0): the initial design; a peer's t_n observations are its history, observed
  // but not recorded.
  for (int n = 0; n < N; ++n) {
    const bool peer = n >= learners;
    const int count = peer ? config.peer_observations : config.n_init;
    const auto design =
        initial_design(agents[n], count, config.explore_own_region && P > 1, config.seed, n);
    for (int k = 0; k < count; ++k) {
      if (!peer) {
        query(n, k - count + 1, {design[k], Branch::init, -1});
        continue;
      }
      evaluate(agents[n], objective, n, k - count + 1, design[k], noise[n]);
    }
  }

  const bool sends = traits(config.algorithm).sends_messages;
  std::vector<Eigen::VectorXd> messages(sends ? N : 0);
  std::vector<const Eigen::VectorXd*> inbox(N, nullptr);
  auto collect = [&](int t) {
    for (int n = 0; n < N; ++n) {
      messages[n] = sample_message(agents[n], config.seed, n, t);
      inbox[n] = &messages[n];
    }
  };

  std::unique_ptr<DeServer> server;
  std::optional<dp::Ledger> accountant;
  if (config.uses_server()) server = std::make_unique<DeServer>(config.server_config(), assignment,
                                                                config.features);
  if (config.is_private()) accountant.emplace(config.accountant);
  Eigen::MatrixXd joint;
  auto release = [&](int t) {
    RandomStream rng(config.seed, streams::server_round, t);
    RoundRecord r{t, {}, 0.0};
    joint = server->aggregate(t, inbox, rng, &r.stats);
    if (accountant) {
      accountant->add_subsampled_gaussian(config.q, config.z, 1);
      const dp::LedgerEpsilon e = accountant->epsilon(result.delta);
      r.epsilon = e.named;
      r.epsilon_rdp = e.rdp;
      r.epsilon_pld = e.pld;
    }
    result.rounds.push_back(r);
  };

  std::vector<FtsMessagePool> pools;
  // FTS: the relayed messages of the round, one after another, and their senders (every agent,
  // in order), which every agent's pool views; one-shot FTS keeps the ones sent before start.
  std::vector<double> relayed;
  std::vector<std::int32_t> relay_sources;
  auto relay = [&] {
    relayed.clear();
    relay_sources.clear();
    for (int m = 0; m < N; ++m) {
      relayed.insert(relayed.end(), messages[m].data(), messages[m].data() + messages[m].size());
      relay_sources.push_back(m);
    }
    for (int n = 0; n < static_cast<int>(pools.size()); ++n)
      pools[n].reset(relayed.data(), relay_sources.data(), relay_sources.size(), config.features, n);
  };
  if (sends) {
    collect(0);
    if (server) release(0);
    if (traits(config.algorithm).server == ServerKind::relay) {
      pools.assign(N, FtsMessagePool(config.fts_one_shot));
      relay();
    }
  }

  for (int t = 1; t <= T; ++t) {
    const Eigen::Ref<const Eigen::MatrixXd> broadcast(joint);
    for (int n = 0; n < learners; ++n) {
      ServerInput input;
      if (server) input.joint = &broadcast;
      if (!pools.empty()) input.pool = &pools[n];
      query(n, t, choose_query(step, agents[n], n, t, input));
    }
    // Every broadcast is used by the next iteration: the last one (t = T) would go unused,
    // so it is not released and costs no privacy. One-shot FTS uses only the first messages.
    const bool one_shot = !pools.empty() && config.fts_one_shot;
    if (!sends || t == T || one_shot) continue;
    collect(t);
    if (server) release(t);
    if (!pools.empty()) relay();  // the pools' views are reset before any draw
  }

  result.final_simple_regret = result.mean_simple_regret[T];
  for (int n = 0; n < learners; ++n) result.mean_best_observed += best_y[n] / learners;
  if (accountant) {
    const dp::LedgerEpsilon e = accountant->epsilon(result.delta);
    result.epsilon = e.named;
    result.epsilon_rdp = e.rdp;
    result.epsilon_pld = e.pld;
  }
  return result;
}

}  // namespace fedsim::fbo
