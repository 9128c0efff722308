#include "external/external_objective.hpp"

#include <climits>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedsim::external {

Settings settings_of(const SyntheticConfig& config, const std::filesystem::path& log_folder) {
  Settings s;
  switch (config.kind) {
    case SyntheticConfig::Kind::command:
      s.kind = WorkerKind::command;
      break;
    case SyntheticConfig::Kind::tcp:
      s.kind = WorkerKind::tcp;
      break;
    case SyntheticConfig::Kind::perturbed:
    case SyntheticConfig::Kind::mixture:
    case SyntheticConfig::Kind::branin:
    case SyntheticConfig::Kind::hartmann3:
    case SyntheticConfig::Kind::hartmann6:
    case SyntheticConfig::Kind::ackley:
    case SyntheticConfig::Kind::tuning:
      throw std::invalid_argument("external objective: world.objective.kind is not command or tcp");
  }
  s.command = config.command;
  s.address = config.address;
  s.workers = config.workers;
  s.timeout = config.timeout;
  switch (config.on_failure) {
    case SyntheticConfig::OnFailure::skip:
      s.on_failure = OnFailure::skip;
      break;
    case SyntheticConfig::OnFailure::retry:
      s.on_failure = OnFailure::retry;
      break;
    case SyntheticConfig::OnFailure::abort:
      s.on_failure = OnFailure::abort;
      break;
  }
  s.max_retries = config.max_retries;
  s.log_folder = log_folder;
  return s;
}

ExternalObjective::ExternalObjective(Settings settings, Box bounds, double optimum)
    : abort_on_failure_(settings.on_failure == OnFailure::abort), optimum_(optimum) {
  if (bounds.dim() < 1) throw std::invalid_argument("external objective: dimension must be >= 1");
  if (std::isinf(optimum))
    throw std::invalid_argument("external objective: the optimum must be finite (or NaN: unknown)");
  bounds.validate();
  domain_.box = Box::unit(bounds.dim());
  domain_.bounds = std::move(bounds);
  evaluator_ = std::make_unique<ExternalEvaluator>(std::move(settings));
}

ExternalObjective::~ExternalObjective() = default;

int ExternalObjective::agents() const { return INT_MAX; }

void ExternalObjective::submit(const Query& query,
                               std::function<void(EvaluationOutcome)> done) const {
  Request request;
  request.id = next_id_.fetch_add(1, std::memory_order_relaxed);
  request.agent = query.agent;
  request.iteration = query.iteration;
  if (query.x.size() != dimension()) {
    EvaluationOutcome out;
    out.failure_kind = std::string(failure_kind_name(FailureKind::invalid_request));
    out.failure_message = "the point has " + std::to_string(query.x.size()) +
                          " coordinates, the objective " + std::to_string(dimension());
    out.fatal = abort_on_failure_;
    out.attempts = 0;
    done(std::move(out));
    return;
  }
  const Eigen::VectorXd x = domain_.to_bounds(query.x);
  request.x.assign(x.data(), x.data() + x.size());
  const bool abort = abort_on_failure_;
  evaluator_->evaluate(std::move(request), [this, done = std::move(done), abort](Outcome outcome) {
    EvaluationOutcome out;
    if (outcome.ok()) {
      answered_.store(true);
      const external::Answer& a = outcome.answer();
      out.answer = fedsim::Answer{a.y, a.f, a.cost};
      out.attempts = a.attempts;
      out.wall_seconds = a.wall_seconds;
    } else {
      const Failure& f = outcome.failure();
      out.failure_kind = std::string(failure_kind_name(f.kind));
      out.failure_message = f.message;
      out.attempts = f.attempts;
      // A command that cannot start or a service that cannot be reached before anything was
      // ever answered is a setup error, not a flaky worker: skipping every evaluation of the
      // run would only hide it.
      const bool unreachable =
          f.kind == FailureKind::spawn_failed || f.kind == FailureKind::connect_failed;
      if (abort) out.failure_message += " (on_failure = abort)";
      else if (unreachable && !answered_.load())
        out.failure_message += " (the objective has not answered once: is the command right, "
                               "is the service running?)";
      out.fatal = abort || (unreachable && !answered_.load());
    }
    done(std::move(out));
  });
}

fedsim::Answer ExternalObjective::evaluate(const Query& query, RandomStream& /*noise*/) const {
  std::promise<EvaluationOutcome> promise;
  std::future<EvaluationOutcome> future = promise.get_future();
  submit(query, [&promise](EvaluationOutcome outcome) { promise.set_value(std::move(outcome)); });
  const EvaluationOutcome outcome = future.get();
  if (!outcome.answer)
    throw std::runtime_error("external objective: the evaluation of agent " +
                             std::to_string(query.agent) + " at iteration " +
                             std::to_string(query.iteration) + " failed (" +
                             outcome.failure_kind + "): " + outcome.failure_message);
  return *outcome.answer;
}

}  // namespace fedsim::external
