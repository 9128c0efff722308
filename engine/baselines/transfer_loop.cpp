#include "engine/baselines/transfer_loop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/fbo/agent_step.hpp"
#include "engine/fbo/streams.hpp"

namespace fedsim::baselines {

TransferAlgorithm parse_transfer_algorithm(const std::string& name) {
  for (TransferAlgorithm a : {TransferAlgorithm::rgpe, TransferAlgorithm::taf})
    if (name == to_string(a)) return a;
  throw std::invalid_argument("unknown transfer algorithm '" + name + "': allowed rgpe, taf");
}

std::string to_string(TransferAlgorithm algorithm) {
  switch (algorithm) {
    case TransferAlgorithm::rgpe:
      return "rgpe";
    case TransferAlgorithm::taf:
      return "taf";
  }
  throw std::logic_error("to_string: not a TransferAlgorithm value");
}

SurrogatePayload payload_kind(TransferAlgorithm algorithm) {
  switch (algorithm) {
    case TransferAlgorithm::rgpe:
      return SurrogatePayload::rgpe;
    case TransferAlgorithm::taf:
      return SurrogatePayload::taf;
  }
  throw std::logic_error("payload_kind: not a TransferAlgorithm value");
}

std::vector<double> surrogate_message(const fbo::FboAgent& peer, const fbo::AgentContext& context,
                                      TransferAlgorithm algorithm) {
  return make_surrogate(peer, context).encode(payload_kind(algorithm));
}

TransferStep transfer_choose(TransferAlgorithm algorithm, const fbo::FboAgent& target,
                             const fbo::AgentContext& context, const SurrogateInbox& inbox,
                             const RgpeParams& rgpe, const TafParams& taf, std::uint64_t seed,
                             int id, int t) {
  if (inbox.kind() != payload_kind(algorithm))
    throw std::invalid_argument("transfer_choose: the inbox holds payloads of another kind than " +
                                to_string(algorithm) + "'s");
  RandomStream rng(seed, fbo::streams::agent_choose, static_cast<std::uint64_t>(id),
                   static_cast<std::uint64_t>(t));
  TransferStep step;
  switch (algorithm) {
    case TransferAlgorithm::rgpe: {
      RgpeChoice c = rgpe_choose(target, context, inbox.surrogates(), rgpe, rng);
      step = {c.point, c.acquisition, std::move(c.weights), c.dropped};
      return step;
    }
    case TransferAlgorithm::taf: {
      TafChoice c = taf_choose(target, context, inbox.surrogates(), taf, rng);
      step = {c.point, c.acquisition, std::move(c.weights), 0};
      return step;
    }
  }
  throw std::logic_error("transfer_choose: not a TransferAlgorithm value");
}

namespace {
void require_transfer(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}
}  // namespace

void TransferLoopConfig::validate() const {
  require_transfer(agents >= 1, "agents (the target and its peers) must be >= 1");
  require_transfer(iterations >= 1, "iterations must be >= 1");
  require_transfer(n_init >= 1, "n_init (the target's initial points) must be >= 1");
  require_transfer(peer_observations >= 1, "peer observations t_n must be >= 1");
  require_transfer(features >= 1, "features M must be >= 1");
  require_transfer(lambda > 0 && std::isfinite(lambda), "lambda must be a finite number > 0");
  require_transfer(noise_variance >= 0 && std::isfinite(noise_variance), "noise variance must be >= 0");
  require_transfer(kernel_lengthscale > 0, "kernel lengthscale must be > 0");
  require_transfer(acquisition_candidates >= 1, "acquisition_candidates must be >= 1");
  require_transfer(acquisition_refine >= 0, "acquisition_refine must be >= 0");
  rgpe.validate();
  taf.validate();
  objective.validate();
}

fbo::ReferenceConfig TransferLoopConfig::fbo_config() const {
  fbo::ReferenceConfig c;
  c.algorithm = fbo::Algorithm::ts;
  c.agents = agents;
  c.iterations = iterations;
  c.n_init = n_init;
  c.features = features;
  c.subregions = 1;
  c.lambda = lambda;
  c.noise_variance = noise_variance;
  c.kernel_lengthscale = kernel_lengthscale;
  c.peer_observations = agents >= 2 ? peer_observations : 0;
  c.acquisition_candidates = acquisition_candidates;
  c.acquisition_refine = acquisition_refine;
  c.seed = seed;
  c.objective = objective;
  return c;
}

TransferResult run_transfer(const TransferLoopConfig& config) {
  config.validate();
  return run_transfer(config, *fbo::make_synthetic_objective(config.fbo_config()));
}

TransferResult run_transfer(const TransferLoopConfig& config, const FederatedObjective& objective) {
  config.validate();
  const int agents = config.agents, T = config.iterations;
  check_fbo_objective(objective, agents);
  const SearchDomain& domain = objective.domain();
  const auto context = fbo::make_agent_context(config.fbo_config(), domain);
  constexpr double absent = std::numeric_limits<double>::quiet_NaN();

  TransferResult result;
  result.payload_length = surrogate_payload_length(config.features, payload_kind(config.algorithm));
  SurrogateInbox inbox(config.features, config.lambda, payload_kind(config.algorithm));
  // Peers: their t_n observations (the FTS loop's streams), then one message each.
  for (int n = 1; n < agents; ++n) {
    fbo::FboAgent peer(n, 0, context);
    RandomStream noise(config.seed, fbo::streams::agent_noise, static_cast<std::uint64_t>(n));
    const int count = config.peer_observations;
    const auto design = fbo::initial_design(peer, count, false, config.seed, n);
    for (int k = 0; k < count; ++k)
      fbo::evaluate(peer, objective, n, k - count + 1, design[k], noise);
    inbox.receive(n, surrogate_message(peer, *context, config.algorithm));
  }
  result.accepted = inbox.size();
  result.rejected = inbox.rejected();

  fbo::FboAgent target(0, 0, context);
  RandomStream noise(config.seed, fbo::streams::agent_noise, 0);
  double best_f = -std::numeric_limits<double>::infinity();
  double best_y = -std::numeric_limits<double>::infinity();
  auto query = [&](int iteration, const fbo::Point& p, double acquisition,
                   std::vector<double> weights, int dropped) {
    const fbo::Evaluation e = fbo::evaluate(target, objective, 0, iteration, p, noise);
    const double f = e.f.value_or(absent);
    best_f = std::isnan(f) || std::isnan(best_f) ? absent : std::max(best_f, f);
    best_y = std::max(best_y, e.y);
    const double regret = objective.optimum(0).value_or(absent) - best_f;
    result.records.push_back({iteration, p.index, domain.to_bounds(p.x), e.y, f, regret, best_y,
                              acquisition, std::move(weights), dropped});
  };
  const auto design = fbo::initial_design(target, config.n_init, false, config.seed, 0);
  for (int k = 0; k < config.n_init; ++k) query(k - config.n_init + 1, design[k], absent, {}, 0);
  for (int t = 1; t <= T; ++t) {
    TransferStep step = transfer_choose(config.algorithm, target, *context, inbox, config.rgpe,
                                        config.taf, config.seed, 0, t);
    query(t, step.point, step.acquisition, std::move(step.weights), step.dropped);
  }
  result.final_simple_regret = result.records.back().simple_regret;
  return result;
}

}  // namespace fedsim::baselines
