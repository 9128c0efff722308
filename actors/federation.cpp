#include "actors/federation.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "actors/accountant.hpp"
#include "actors/agent.hpp"
#include "actors/conductor.hpp"
#include "actors/fed_pne_client.hpp"
#include "actors/failure.hpp"
#include "actors/fed_pne_server.hpp"
#include "actors/logging.hpp"
#include "actors/policy/liveness.hpp"
#include "actors/policy/registry.hpp"
#include "actors/run_keys.hpp"
#include "actors/server.hpp"
#include "actors/world_objective.hpp"

namespace fedsim::actors {

void add_fedsim_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::fedsim>();
}

void configure_scheduler(caf::actor_system_config& cfg, int threads) {
  // One worker has no one to share with: CAF's default policy costs it less (the shared queue's
  // lock is taken for every job).
  if (threads != 1) cfg.set("scheduler.policy", caf::atom("sharing"));
  // A lone worker has no one to steal from, and its "moderate" polling sleeps 50 us between
  // looks at its queue: every hand-over from a thread outside the scheduler (a run's driver,
  // CAF's clock, the network layer) waited up to that long. Without that phase an idle worker
  // goes from a short spin straight to its condition variable, which an enqueue signals.
  else cfg.set("work-stealing.moderate-poll-attempts", 0);
  if (threads > 0) cfg.set("scheduler.max-threads", threads);
}

namespace {

/// Has every scheduler worker run something before the system is used, so that each thread's
/// first allocations (CAF's thread-local state, the allocator's arena for the thread) are
/// behind it: a worker whose first allocation came while memory was exhausted crashed inside
/// jemalloc (SIGSEGV) instead of failing loudly (issue 32). Each of n actors holds its worker
/// until all n have started (at most a second), so n distinct workers ran one.
void start_every_worker(caf::actor_system& system) {
  const std::size_t n = system.scheduler().num_workers();
  auto started = std::make_shared<std::atomic<std::size_t>>(0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  // (An argument of its own: CAF 0.17 binds a function actor spawned without one through a
  // null shared_ptr<tuple<>>, which UBSan reports.)
  for (std::size_t k = 0; k < n; ++k)
    system.spawn(
        [started, n, until](caf::event_based_actor* self, std::size_t) {
          ++*started;
          while (started->load() < n && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
          self->quit();
        },
        k);
  while (started->load() < n && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}

}  // namespace

FederationSystem::FederationSystem(int threads) {
  add_fedsim_types(config_);
  configure_scheduler(config_, threads);
  system_ = std::make_unique<caf::actor_system>(config_);
  start_every_worker(*system_);
}

RunResult run_federation(const scenario::ScenarioConfig& config, const RunOptions& options) {
  FederationSystem system(options.threads);
  return run_federation(system.get(), config, options);
}

namespace {

/// An observer of a live view: the network and the servers send it agent state changes and,
/// in virtual time, wave markers (NetworkWiring::live).
bool live(const RunObserver& o) { return o.agent || o.wave; }

/// FEDSIM_DEBUG_FAIL_AGENT=n makes agent (or client) n throw at its first evaluation, and
/// FEDSIM_DEBUG_OOM_AGENT=n makes agent n run out of memory there: test hooks for the failure
/// paths, outside the scenario (they are not part of an experiment). -1: none.
std::int64_t agent_from_environment(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  return (*end == '\0' && n >= 0) ? n : -1;
}

/// The federation's members, for checkpoints.
struct Members {
  caf::actor network, server, recorder, accountant;
  const std::vector<caf::actor>& agents;
};

/// Asks `dest` for something and returns it; a failure becomes RunFailure naming the member.
template <class T, class... Ts>
T ask(caf::scoped_actor& self, const caf::actor& dest, Ts&&... xs) {
  T out{};
  std::string failure;
  self->request(dest, caf::infinite, std::forward<Ts>(xs)...)
      .receive([&](T& x) { out = std::move(x); },
               [&](caf::error& e) { failure = describe_failure(e); });
  if (!failure.empty()) throw RunFailure(failure);
  return out;
}

/// Saves every member's state into a new checkpoint that replaces options.checkpoint_dir's.
/// The network is paused at a quiet moment, so every member is idle.
void take_checkpoint(caf::scoped_actor& self, const RunOptions& options, const Members& m,
                     std::int64_t rounds, double time) {
  namespace fs = std::filesystem;
  const fs::path target = fs::absolute(options.checkpoint_dir).lexically_normal();
  const fs::path staged = target.parent_path() / ("." + target.filename().string() + ".new");
  fs::remove_all(staged);
  fs::create_directories(staged);
  Checkpoint c;
  c.header = options.checkpoint_header;
  c.rounds = rounds;
  c.time = time;
  c.network = ask<std::vector<char>>(self, m.network, save_atom::value);
  c.server = ask<std::vector<char>>(self, m.server, save_atom::value);
  c.recorder = ask<std::vector<char>>(self, m.recorder, save_atom::value, staged.string());
  if (m.accountant) c.accountant = ask<std::vector<char>>(self, m.accountant, save_atom::value);
  c.members.reserve(m.agents.size());
  for (const auto& a : m.agents) c.members.push_back(ask<std::vector<char>>(self, a, save_atom::value));
  write_checkpoint_state(staged, c);
  publish_checkpoint(staged, target);
  logger("federation")->info("checkpoint after {} rounds, virtual time {:.3f}: {}", rounds, time,
                             target.string());
}

/// Puts every member's state back from options.resume. Each member decodes its state and
/// checks it against its invariants and the scenario as it restores it; a checkpoint of another
/// federation, or one a member cannot take, is refused (CheckpointRefused) before the run starts.
void restore_checkpoint(caf::scoped_actor& self, const RunOptions& options, const Members& m,
                        int dim) {
  const Checkpoint& c = *options.resume;
  const std::string where = "checkpoint " + c.location.string() + ": ";
  if (c.members.size() != m.agents.size() || c.accountant.empty() != !m.accountant)
    throw CheckpointRefused(where + "holds " + std::to_string(c.members.size()) + " members" +
                            (c.accountant.empty() ? "" : " and an accountant") +
                            ", the scenario has " + std::to_string(m.agents.size()) +
                            (m.accountant ? " and an accountant" : ""));
  try {
    ask<caf::ok_atom>(self, m.network, restore_atom::value, c.network);
    ask<caf::ok_atom>(self, m.server, restore_atom::value, c.server);
    ask<caf::ok_atom>(self, m.recorder, restore_atom::value, c.recorder, c.location.string(),
                      static_cast<std::int32_t>(m.agents.size()), static_cast<std::int32_t>(dim));
    if (m.accountant) ask<caf::ok_atom>(self, m.accountant, restore_atom::value, c.accountant);
    for (std::size_t n = 0; n < m.agents.size(); ++n)
      ask<caf::ok_atom>(self, m.agents[n], restore_atom::value, c.members[n]);
  } catch (const RunFailure& e) {  // a member that could not take its state: "agent 3: ..."
    throw CheckpointRefused(where + e.what());
  }
}

/// The network's checkpoint settings; `check_payload` checks the payloads of a restored queue
/// against their recipients' protocols (CheckpointSettings::check_payload).
CheckpointSettings checkpoint_settings(
    const RunOptions& options,
    std::function<std::string(node_id, const caf::message&)> check_payload) {
  CheckpointSettings out;
  if (!options.checkpoint_dir.empty()) {
    out.every = options.checkpoint_every;
    out.interrupt = options.interrupt;
  }
  if (options.resume) out.check_payload = std::move(check_payload);
  return out;
}

/// Runs the network to quiescence through a conductor (actors/conductor.hpp), which collects
/// the recorder's files and the results and stops the actors; takes the checkpoints the network
/// asks for. Throws RunFailure naming the member when one failed, RunInterrupted when it
/// stopped at a checkpoint.
RunResult drive(caf::actor_system& system, const scenario::ScenarioConfig& config,
                const RunOptions& options, const caf::actor& network, const caf::actor& server,
                const std::vector<caf::actor>& agents, const caf::actor& recorder,
                const caf::actor& accountant, int learners, int iterations, int dim) {
  caf::scoped_actor self{system};
  const Members members{network, server, recorder, accountant, agents};
  auto stop_all = [&](const std::string& failure) {
    stop_members(self.ptr(), agents, {network, server, recorder, accountant}, failure);
  };
  self->send(network, caf::put_atom::value, agents, server, recorder, accountant,
             config.output.logs_events(), config.output.logs_traffic(), live(options.observer));
  try {
    if (options.resume) restore_checkpoint(self, options, members, dim);
  } catch (...) {
    stop_all({});
    throw;
  }
  auto out = std::make_shared<ConductedRun>();
  const caf::actor conductor = system.spawn(
      conductor_actor,
      ConductorSetup{network, server, recorder, accountant, agents,
                     caf::actor_cast<caf::actor>(self), options.out_dir,
                     config.output.logs_events(), static_cast<std::int32_t>(learners),
                     static_cast<std::int32_t>(iterations), static_cast<std::int32_t>(dim), out});
  self->monitor(conductor);
  std::string failure;  // the driver's own: a checkpoint it could not take, a conductor that died
  std::optional<RunInterrupted> interrupted;
  int checkpoints_written = 0;
  bool finished = false;
  self->receive_while([&] { return !finished; })(
      [&](caf::ok_atom) { finished = true; },
      [&](checkpoint_atom, std::int64_t rounds, double time, std::int32_t signal) {
        try {
          take_checkpoint(self, options, members, rounds, time);
        } catch (const std::exception& e) {
          failure = e.what();
          finished = true;
          return;
        }
        ++checkpoints_written;
        if (signal != 0 || (options.stop_after_checkpoints > 0 &&
                            checkpoints_written >= options.stop_after_checkpoints)) {
          interrupted.emplace(signal, rounds, time, options.checkpoint_dir);
          finished = true;
          return;
        }
        self->send(network, resume_atom::value);
      },
      [&](caf::down_msg& d) {  // the conductor ended without telling: it failed
        failure = d.reason ? describe_failure(d.reason) : "conductor: stopped before the run ended";
        finished = true;
      });
  self->demonitor(conductor);
  if (interrupted || !failure.empty()) {
    self->send_exit(conductor, caf::exit_reason::user_shutdown);
    stop_all(failure);
    if (interrupted) throw *interrupted;
    throw RunFailure(failure);
  }
  if (!out->failure.empty()) throw RunFailure(out->failure);
  RunResult result;
  result.network = out->network;
  finish_summary& f = out->summary;
  result.mean_simple_regret = std::move(f.curve);
  result.last_query_time = f.last_time;
  result.agents_without_observations = f.without;
  result.mean_best_observed = f.mean_best_observed;
  result.failed_evaluations = f.failed_evaluations;
  // A run the network stopped (it could not make progress) is not complete, whatever the
  // server would say of it.
  result.completed = out->reason.empty() && out->stopped.empty();
  result.reason = std::move(out->stopped.empty() ? out->reason : out->stopped);
  if (out->spent) {
    result.epsilon = out->spent->epsilon;
    result.epsilon_rdp = out->spent->epsilon_rdp;
    result.epsilon_pld = out->spent->epsilon_pld;
    result.releases = out->spent->steps;
  }
  if (out->per_agent) {
    result.agent_releases = std::move(out->per_agent->releases);
    result.agent_epsilon = std::move(out->per_agent->epsilon);
    result.agent_filtered = std::move(out->per_agent->filtered);
  }
  return result;
}

/// A Fed-PNE / DP-Fed-PNE federation: client actors and the phase server through the network.
RunResult run_fed_pne_federation(caf::actor_system& system,
                                 const scenario::ScenarioConfig& config,
                                 const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const xarmed::FedPneConfig fp = scenario::fed_pne_config(config);
  auto shared = std::make_shared<FedPneShared>();
  shared->config = fp;
  shared->problem = make_xarmed_problem(fp.problem);
  shared->tree = std::make_shared<const xarmed::PartitionTree>(shared->problem->domain, fp.k,
                                                               fp.split, fp.problem.seed);
  std::optional<xarmed::FederatedDpGuarantee> guarantee;
  if (fp.is_private()) {
    guarantee = xarmed::dp_fed_pne_guarantee(fp.dp_epsilon, fp.dp_delta, fp.problem.clients);
    shared->dp_noise_std = guarantee->noise_std;
  }
  const int M = shared->problem->clients();
  logger("federation")->info("run '{}': {} clients, fed-pne, seed {}, output {}", config.name, M,
                             config.seed, options.out_dir);
  const caf::actor recorder = system.spawn(recorder_actor, options.observer, options.out_dir,
                                           options.recorder_rows, options.write_files);
  const caf::actor network =
      system.spawn(network_actor, make_network_plan(config),
                   checkpoint_settings(options,
                                       [tree = shared->tree](node_id to, const caf::message& m) {
                                         return to == server_node ? check_fed_pne_server_delivery(m)
                                                                  : check_client_delivery(m, *tree);
                                       }),
                   options.settle_timers);
  shared->network = network;
  shared->recorder = recorder;
  shared->log_states = live(options.observer);
  shared->fail_agent = agent_from_environment("FEDSIM_DEBUG_FAIL_AGENT");
  std::vector<caf::actor> clients;
  for (int m = 0; m < M; ++m)
    clients.push_back(system.spawn(fed_pne_client_actor, static_cast<node_id>(m),
                                   std::shared_ptr<const FedPneShared>(shared)));
  const caf::actor server = system.spawn(fed_pne_server_actor,
                                         std::shared_ptr<const FedPneShared>(shared), config.policy);
  RunResult result = drive(system, config, options, network, server, clients, recorder,
                           caf::actor{}, static_cast<int>(clients.size()), 0, 0);
  result.client_regret = std::move(result.mean_simple_regret);
  result.mean_simple_regret.clear();
  // Clients that never pulled have no regret to average (RunResult::agents_without_observations).
  double total = 0.0;
  for (double r : result.client_regret) total += r;
  const int pulled = M - result.agents_without_observations;
  result.average_cumulative_regret = pulled > 0 ? total / pulled : 0.0;
  if (guarantee) {
    result.epsilon = guarantee->epsilon;
    result.delta = guarantee->delta;
  }
  result.wall_time =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

/// Where a run's failed evaluations say why, for the breaker's line (actors/agent.hpp).
std::string failure_hint(const scenario::ScenarioConfig& config) {
  switch (config.world.objective.kind) {
    case SyntheticConfig::Kind::command:
      return "the workers' stderr is in workers/worker-<slot>.log of the run's folder";
    case SyntheticConfig::Kind::tcp:
      return "see the evaluation service's own log";
    case SyntheticConfig::Kind::perturbed:
    case SyntheticConfig::Kind::mixture:
    case SyntheticConfig::Kind::branin:
    case SyntheticConfig::Kind::hartmann3:
    case SyntheticConfig::Kind::hartmann6:
    case SyntheticConfig::Kind::ackley:
    case SyntheticConfig::Kind::tuning:
      return "";  // an embedding program's own objective (RunOptions::objective)
  }
  return "";
}

/// A run whose evaluations failed and in which some agent never observed anything is not
/// complete, even when every member finished (a breaker turned off, or failures too few in a
/// row to trip it).
void check_observed(RunResult& r) {
  if (!r.completed || r.failed_evaluations == 0 || r.agents_without_observations == 0) return;
  r.completed = false;
  r.reason = std::to_string(r.agents_without_observations) +
             " agent(s) never observed anything, and " + std::to_string(r.failed_evaluations) +
             " evaluation(s) failed (events.jsonl: evaluation_failed)";
}

}  // namespace

std::shared_ptr<AgentShared> make_agent_shared(const scenario::ScenarioConfig& config,
                                               std::shared_ptr<const FederatedObjective> objective,
                                               caf::actor network, caf::actor recorder) {
  const fbo::ReferenceConfig algo = scenario::reference_config(config);
  auto shared = std::make_shared<AgentShared>();
  shared->context = fbo::make_agent_context(algo, objective->domain());
  shared->objective = std::move(objective);
  shared->config = algo;
  shared->step = algo.step_settings();
  shared->wait_for_broadcast = policy::make_round_policy(config.policy)->agents_wait();
  shared->network = std::move(network);
  shared->recorder = std::move(recorder);
  shared->fail_agent = agent_from_environment("FEDSIM_DEBUG_FAIL_AGENT");
  shared->oom_agent = agent_from_environment("FEDSIM_DEBUG_OOM_AGENT");
  shared->max_consecutive_failures = config.run.max_consecutive_failures;
  shared->max_failure_rate = config.run.max_failure_rate;
  shared->failure_rate_after = scenario::RunClockConfig::failure_rate_after;
  shared->failure_hint = failure_hint(config);
  return shared;
}

RunResult run_federation(caf::actor_system& system, const scenario::ScenarioConfig& config,
                         const RunOptions& options) {
  if (config.xarmed.hct)  // tools/fedsim/loop_driver.cpp runs it; the actors have no HCT
    throw std::invalid_argument("key 'algorithm.name': \"hct\" runs on the loop driver only");
  if (config.run.wall() && (!options.checkpoint_dir.empty() || options.resume))
    throw std::invalid_argument(
        "key '" + run_keys::full(run_keys::time) + "': a run in wall-clock time takes and resumes "
        "no checkpoint (it has no quiet moment to save): leave RunOptions::checkpoint_dir and "
        "resume unset");
  for (const std::string& w : policy::liveness_warnings(config)) logger("federation")->warn("{}", w);
  if (config.xarmed.enabled) {
    if (options.server_host)
      throw std::invalid_argument("RunOptions::server_host: a server of one's own serves the FBO "
                                  "family's agents; Fed-PNE runs its own phase server");
    if (options.objective)
      throw std::invalid_argument("RunOptions::objective: a Fed-PNE run evaluates its scenario's "
                                  "objective (world.objective.kind); own objectives serve the FBO "
                                  "family");
    return run_fed_pne_federation(system, config, options);
  }
  const auto start = std::chrono::steady_clock::now();
  const fbo::ReferenceConfig algo = scenario::reference_config(config);
  const int N = algo.agents;
  const bool is_private = algo.is_private();

  if (options.server_host && is_private)
    throw std::invalid_argument("RunOptions::server_host: a server of one's own takes no private "
                                "algorithm (no accountant is involved); algorithm.name is " +
                                fbo::to_string(algo.algorithm));
  if (options.server_host && (!options.checkpoint_dir.empty() || options.resume))
    throw std::invalid_argument("RunOptions::server_host: a server of one's own takes no "
                                "checkpoint (it has no save/restore): leave checkpoint_dir and "
                                "resume unset");
  if (options.agent_host && options.objective)
    throw std::invalid_argument("RunOptions: an agent host's agents evaluate their own objective; "
                                "leave RunOptions::objective unset");
  // What the per-agent epsilon rests on; a pld filter under adaptive participation is refused
  // here, before anything is spawned.
  std::optional<PrivacyBasis> basis;
  if (is_private)
    basis = privacy_basis(config, {static_cast<bool>(options.agent_host),
                                   static_cast<bool>(options.objective)});
  // Engine objects, built once and shared read-only by every agent: the embedding program's
  // objective, or the scenario's (actors/world_objective.hpp); none when the agents live
  // elsewhere (they evaluate theirs there).
  std::shared_ptr<const FederatedObjective> objective;
  if (!options.agent_host) {
    objective = options.objective ? options.objective : make_world_objective(config, options.out_dir);
    check_fbo_objective(*objective, N);
  }
  const int dimension =
      objective ? objective->dimension() : config.world.objective.effective_dimension();
  const NetworkPlan plan = make_network_plan(config);

  const caf::actor recorder = system.spawn(recorder_actor, options.observer, options.out_dir,
                                           options.recorder_rows, options.write_files);
  caf::actor accountant;
  if (is_private)
    accountant = system.spawn(accountant_actor, config.privacy.accountant,
                              algo.effective_delta(), config.privacy.budget,
                              config.privacy.agent_budget, N, basis->rdp);
  const caf::actor network =
      system.spawn(network_actor, plan,
                   checkpoint_settings(options,
                                       [algo](node_id to, const caf::message& m) {
                                         return to == server_node
                                                    ? check_server_delivery(m)
                                                    : check_agent_delivery(m, algo, algo.effective_regions());
                                       }),
                   options.settle_timers);

  std::vector<caf::actor> agents;
  if (options.agent_host) {
    try {
      agents = options.agent_host(
          AgentSlots{network, recorder, N, algo.features, dimension});
      if (agents.size() != static_cast<std::size_t>(N))
        throw std::logic_error("RunOptions::agent_host: " + std::to_string(agents.size()) +
                               " agents for " + std::to_string(N) + " ids");
    } catch (...) {
      stop_members(caf::scoped_actor{system}.ptr(), {}, {network, recorder, accountant}, {});
      throw;
    }
  } else {
    const auto shared = make_agent_shared(config, objective, network, recorder);
    agents.reserve(N);
    for (int n = 0; n < N; ++n)
      agents.push_back(system.spawn(agent_actor, static_cast<node_id>(n), shared));
  }

  caf::actor server;
  if (options.server_host) {
    server = options.server_host(ServerSlots{network, recorder, N, algo.features,
                                             algo.effective_regions(), algo.iterations});
    if (!server) {
      stop_members(caf::scoped_actor{system}.ptr(), agents, {network, recorder, accountant}, {});
      throw std::invalid_argument("RunOptions::server_host returned no actor");
    }
  } else {
    auto server_shared = std::make_shared<ServerShared>();
    server_shared->config = algo;
    server_shared->policy = config.policy;
    server_shared->assignment = fbo::assign_regions(N, algo.effective_regions());
    server_shared->network = network;
    server_shared->recorder = recorder;
    server_shared->accountant = accountant;
    server_shared->log_states = live(options.observer);
    server = system.spawn(server_actor, std::shared_ptr<const ServerShared>(server_shared));
  }

  logger("federation")->info("run '{}': {} agents, {}, seed {}, output {}", config.name, N,
                             fbo::to_string(algo.algorithm), config.seed, options.out_dir);
  RunResult result = drive(system, config, options, network, server, agents, recorder,
                           accountant, algo.learners(), algo.iterations, dimension);
  check_observed(result);
  result.delta = algo.effective_delta();
  result.privacy_basis = basis;
  if (!result.mean_simple_regret.empty()) result.final_simple_regret = result.mean_simple_regret.back();
  result.wall_time =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  logger("federation")->info("run '{}' done: {} messages ({} dropped), virtual time {:.3f}, wall {:.2f}s",
                             config.name, result.network.sent, result.network.dropped,
                             result.last_query_time, result.wall_time);
  return result;
}

}  // namespace fedsim::actors
