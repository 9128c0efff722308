#include "engine/baselines/fed1_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedsim::baselines {

namespace {

void require_fed1_ucb(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("fed1-ucb: " + what);
}

bool is_integer(double v) { return std::isfinite(v) && v == std::floor(v); }

/// 2^53: integers up to here are exact in a double.
constexpr double max_exact = 9007199254740992.0;

}  // namespace

void Fed1UcbParams::validate() const {
  require_fed1_ucb(arms_per_dim >= 1, "arms_per_dim must be >= 1");
  require_fed1_ucb(std::isfinite(kappa) && kappa > 0, "kappa must be a finite number > 0");
  require_fed1_ucb(std::isfinite(sigma) && sigma > 0, "sigma must be a finite number > 0");
  // The reference loop keeps one double per step: T is bounded as FN-UCB's.
  require_fed1_ucb(budget >= 1 && budget <= 1000000000, "budget must be in [1, 1e9]");
  require_fed1_ucb(clients >= 1, "clients must be >= 1");
}

std::int64_t Fed1UcbParams::phase_length(std::int64_t /*phase*/) const {
  // The original code's int(kappa * log(T)): a floor (its README writes a ceiling).
  const double f = std::floor(kappa * std::log(static_cast<double>(budget)));
  if (!(f >= 1.0)) return 1;
  return f >= max_exact ? static_cast<std::int64_t>(max_exact) : static_cast<std::int64_t>(f);
}

double Fed1UcbParams::confidence_width(std::int64_t pulls_per_client, int reporters) const {
  if (pulls_per_client < 1 || reporters < 1)
    throw std::invalid_argument("fed1-ucb: confidence width needs pulls >= 1 and reporters >= 1");
  return std::sqrt(4.0 * sigma * sigma * std::log(static_cast<double>(budget)) /
                   (static_cast<double>(reporters) * static_cast<double>(pulls_per_client)));
}

std::size_t fed1_ucb_broadcast_length(std::size_t active) { return 2 + active; }

std::vector<double> encode(const Fed1UcbBroadcast& b) {
  std::vector<double> out;
  out.reserve(fed1_ucb_broadcast_length(b.active.size()));
  out.push_back(static_cast<double>(b.phase));
  out.push_back(static_cast<double>(b.pulls_per_arm));
  for (const std::int64_t a : b.active) out.push_back(static_cast<double>(a));
  return out;
}

std::string check_fed1_ucb_broadcast(const std::vector<double>& payload, std::int64_t arms) {
  if (payload.size() < 3)
    return "wrong length: " + std::to_string(payload.size()) +
           " numbers, a broadcast has 2 + (active arms >= 1)";
  if (payload.size() >
      fed1_ucb_broadcast_length(static_cast<std::size_t>(std::max<std::int64_t>(arms, 0))))
    return "wrong length: " + std::to_string(payload.size()) + " numbers for " +
           std::to_string(arms) + " arms";
  for (std::size_t i = 0; i < payload.size(); ++i)
    if (!std::isfinite(payload[i])) return "non-finite entry at " + std::to_string(i);
  for (std::size_t i = 0; i < payload.size(); ++i)
    if (!is_integer(payload[i]) || std::fabs(payload[i]) > max_exact)
      return "entry " + std::to_string(i) + " is not an integer";
  if (payload[0] < 1) return "phase must be >= 1";
  if (payload[1] < 1) return "pulls_per_arm must be >= 1";
  for (std::size_t i = 2; i < payload.size(); ++i) {
    if (payload[i] < 0 || payload[i] >= static_cast<double>(arms))
      return "arm " + std::to_string(static_cast<long long>(payload[i])) + " outside [0, " +
             std::to_string(arms) + ")";
    if (i > 2 && !(payload[i] > payload[i - 1])) return "active arms not strictly ascending";
  }
  return "";
}

Fed1UcbBroadcast decode_fed1_ucb_broadcast(const std::vector<double>& payload, std::int64_t arms) {
  const std::string why = check_fed1_ucb_broadcast(payload, arms);
  if (!why.empty()) throw std::invalid_argument("fed1-ucb broadcast: " + why);
  Fed1UcbBroadcast b;
  b.phase = static_cast<std::int64_t>(payload[0]);
  b.pulls_per_arm = static_cast<std::int64_t>(payload[1]);
  for (std::size_t i = 2; i < payload.size(); ++i)
    b.active.push_back(static_cast<std::int64_t>(payload[i]));
  return b;
}

std::size_t fed1_ucb_report_length(std::size_t active) { return active; }

std::string check_fed1_ucb_report(const std::vector<double>& payload, std::size_t active) {
  if (payload.size() != fed1_ucb_report_length(active))
    return "wrong length: " + std::to_string(payload.size()) + " numbers, expected " +
           std::to_string(fed1_ucb_report_length(active));
  for (std::size_t i = 0; i < payload.size(); ++i)
    if (!std::isfinite(payload[i])) return "non-finite entry at " + std::to_string(i);
  return "";
}

// ---------------------------------------------------------------------------------------------
// Client

Fed1UcbClient::Fed1UcbClient(int id, std::int64_t arms) : id_(id) {
  require_fed1_ucb(id >= 0, "client id must be >= 0");
  require_fed1_ucb(arms >= 1 && arms <= max_exact, "arms must be in [1, 2^53]");
  sums_.assign(static_cast<std::size_t>(arms), 0.0);
  counts_.assign(static_cast<std::size_t>(arms), 0);
}

void Fed1UcbClient::start_phase(const Fed1UcbBroadcast& b) {
  const std::string why = check_fed1_ucb_broadcast(encode(b), arms());
  if (!why.empty()) throw std::invalid_argument("fed1-ucb client: " + why);
  if (b.phase <= broadcast_.phase)
    throw std::invalid_argument("fed1-ucb client: phase " + std::to_string(b.phase) +
                                " is not after phase " + std::to_string(broadcast_.phase));
  broadcast_ = b;
  done_ = 0;
}

std::int64_t Fed1UcbClient::phase_pulls() const {
  return static_cast<std::int64_t>(broadcast_.active.size()) * broadcast_.pulls_per_arm;
}

std::int64_t Fed1UcbClient::next_arm() const {
  if (broadcast_.phase < 1 || done_ >= phase_pulls())
    throw std::logic_error("fed1-ucb client: no pull left in the phase");
  return broadcast_.active[static_cast<std::size_t>(done_ / broadcast_.pulls_per_arm)];
}

void Fed1UcbClient::observe(double reward) {
  const std::int64_t arm = next_arm();
  if (!std::isfinite(reward)) throw std::invalid_argument("fed1-ucb client: non-finite reward");
  sums_[static_cast<std::size_t>(arm)] += reward;
  ++counts_[static_cast<std::size_t>(arm)];
  ++done_;
}

std::vector<double> Fed1UcbClient::report() const {
  if (!phase_done()) throw std::logic_error("fed1-ucb client: report before the phase is done");
  std::vector<double> means;
  means.reserve(broadcast_.active.size());
  for (const std::int64_t a : broadcast_.active)
    means.push_back(sums_[static_cast<std::size_t>(a)] /
                    static_cast<double>(counts_[static_cast<std::size_t>(a)]));
  return means;
}

Fed1UcbClient::State Fed1UcbClient::state() const {
  return State{id_, broadcast_, done_, sums_, counts_};
}

Fed1UcbClient Fed1UcbClient::from_state(const State& s) {
  Fed1UcbClient c(s.id, static_cast<std::int64_t>(s.sums.size()));
  require_fed1_ucb(s.counts.size() == s.sums.size(), "state: counts and sums differ in size");
  for (std::size_t a = 0; a < s.sums.size(); ++a)
    require_fed1_ucb(std::isfinite(s.sums[a]) && s.counts[a] >= 0, "state: bad sum or count");
  if (s.broadcast.phase != 0) {
    const std::string why = check_fed1_ucb_broadcast(encode(s.broadcast), c.arms());
    require_fed1_ucb(why.empty(), "state: " + why);
  } else {
    require_fed1_ucb(s.broadcast == Fed1UcbBroadcast{} && s.done == 0, "state: phase 0 with pulls");
  }
  c.broadcast_ = s.broadcast;
  require_fed1_ucb(s.done >= 0 && s.done <= c.phase_pulls(), "state: done outside the phase");
  c.done_ = s.done;
  c.sums_ = s.sums;
  c.counts_ = s.counts;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Server

Fed1UcbServer::Fed1UcbServer(const Fed1UcbParams& params, std::int64_t arms)
    : params_(params), arms_(arms) {
  params_.validate();
  require_fed1_ucb(arms >= 1 && arms <= max_exact, "arms must be in [1, 2^53]");
  broadcast_.phase = 1;
  for (std::int64_t a = 0; a < arms; ++a) broadcast_.active.push_back(a);
  broadcast_.pulls_per_arm = arms == 1 ? params_.budget : params_.phase_length(1);
  reports_.assign(static_cast<std::size_t>(params_.clients), {});
  received_.assign(static_cast<std::size_t>(params_.clients), false);
}

std::string Fed1UcbServer::receive(int client, const std::vector<double>& payload) {
  if (client < 0 || client >= params_.clients) return "unknown client " + std::to_string(client);
  if (committed()) return "no report is expected once one arm is left";
  if (received_[static_cast<std::size_t>(client)]) return "duplicate report";
  const std::string why = check_fed1_ucb_report(payload, broadcast_.active.size());
  if (!why.empty()) return why;
  reports_[static_cast<std::size_t>(client)] = payload;
  received_[static_cast<std::size_t>(client)] = true;
  ++received_count_;
  return "";
}

Fed1UcbPhaseOutcome Fed1UcbServer::close_phase() {
  if (!ready()) throw std::logic_error("fed1-ucb server: close_phase before every report");
  return close(params_.clients);
}

Fed1UcbPhaseOutcome Fed1UcbServer::close_phase_with_reports() { return close(1); }

Fed1UcbPhaseOutcome Fed1UcbServer::close(int min_reporters) {
  if (committed()) throw std::logic_error("fed1-ucb server: nothing to close after commitment");
  if (received_count_ < min_reporters)
    throw std::logic_error("fed1-ucb server: close_phase without a report");
  const std::size_t n = broadcast_.active.size();
  Fed1UcbPhaseOutcome out;
  out.phase = broadcast_.phase;
  out.reporters = received_count_;
  out.global_means.assign(n, 0.0);
  for (std::size_t m = 0; m < reports_.size(); ++m)
    if (received_[m])
      for (std::size_t j = 0; j < n; ++j) out.global_means[j] += reports_[m][j];
  for (double& v : out.global_means) v /= static_cast<double>(out.reporters);
  // Every active arm has been active in phases 1..p: n = sum_q f(q) pulls per client.
  std::int64_t pulls = 0;
  for (std::int64_t q = 1; q <= broadcast_.phase; ++q) pulls += params_.phase_length(q);
  out.confidence_width = params_.confidence_width(pulls, out.reporters);
  const double best = *std::max_element(out.global_means.begin(), out.global_means.end());
  const double bar = best - out.confidence_width;
  out.eliminated.assign(n, false);
  for (std::size_t j = 0; j < n; ++j) {
    out.eliminated[j] = out.global_means[j] + out.confidence_width < bar;
    if (!out.eliminated[j]) out.survivors.push_back(broadcast_.active[j]);
  }
  start_ += static_cast<std::int64_t>(n) * broadcast_.pulls_per_arm;
  broadcast_.phase += 1;
  broadcast_.active = out.survivors;
  broadcast_.pulls_per_arm = committed() ? std::max<std::int64_t>(1, params_.budget - start_)
                                         : params_.phase_length(broadcast_.phase);
  for (auto& r : reports_) r.clear();
  received_.assign(received_.size(), false);
  received_count_ = 0;
  return out;
}

Fed1UcbServer::State Fed1UcbServer::state() const {
  return State{broadcast_, start_, reports_, received_};
}

void Fed1UcbServer::restore(const State& s) {
  const std::string why = check_fed1_ucb_broadcast(encode(s.broadcast), arms_);
  require_fed1_ucb(why.empty(), "state: " + why);
  require_fed1_ucb(s.start >= 0, "state: negative phase start");
  const auto m = static_cast<std::size_t>(params_.clients);
  require_fed1_ucb(s.reports.size() == m && s.received.size() == m, "state: client count differs");
  int count = 0;
  for (std::size_t i = 0; i < m; ++i) {
    if (s.received[i]) {
      ++count;
      require_fed1_ucb(check_fed1_ucb_report(s.reports[i], s.broadcast.active.size()).empty(),
              "state: a stored report does not fit the phase");
    } else {
      require_fed1_ucb(s.reports[i].empty(), "state: a report stored without its flag");
    }
  }
  broadcast_ = s.broadcast;
  start_ = s.start;
  reports_ = s.reports;
  received_ = s.received;
  received_count_ = count;
}

}  // namespace fedsim::baselines
