#include "engine/xarmed/fed_pne_server.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::xarmed {

FedPneServer::FedPneServer(PartitionTree tree, const FedPneParams& params, int clients,
                           std::int64_t budget)
    : tree_(std::move(tree)), schedule_(params, clients, budget),
      means_(static_cast<std::size_t>(clients)), received_(static_cast<std::size_t>(clients)) {
  prepare(1, 0, {1});
}

void FedPneServer::prepare(std::int64_t phase, int depth, std::vector<std::uint64_t> indices) {
  const double m = clients();
  // The prose's stopping rule |K| tau_h >= M (the listing's "<= M" would also expand at
  // equality), plus the listing's tau_h <= 1. tau grows with depth, so this ends.
  while (static_cast<double>(indices.size()) * schedule_.tau(depth) < m ||
         schedule_.tau(depth) <= 1.0) {
    if (depth >= tree_.max_depth()) throw std::overflow_error("fed-pne: partition too deep");
    std::vector<std::uint64_t> next;
    next.reserve(indices.size() * static_cast<std::size_t>(tree_.arity()));
    for (const std::uint64_t i : indices)
      for (int j = 0; j < tree_.arity(); ++j) next.push_back(tree_.child({depth, i}, j).index);
    indices = std::move(next);
    ++depth;
  }
  broadcast_.phase = phase;
  broadcast_.depth = depth;
  broadcast_.indices = std::move(indices);
  broadcast_.pulls_per_node = schedule_.pulls_per_node(depth);
  for (auto& v : means_) v.clear();
  received_.assign(received_.size(), false);
  received_count_ = 0;
}

FedPneServer::Snapshot FedPneServer::snapshot() const {
  return Snapshot{broadcast_, means_, received_};
}

void FedPneServer::restore(const Snapshot& snap) {
  if (snap.means.size() != means_.size() || snap.received.size() != received_.size())
    throw std::invalid_argument("fed-pne server: snapshot of another number of clients");
  broadcast_ = snap.broadcast;
  means_ = snap.means;
  received_ = snap.received;
  received_count_ = 0;
  for (const bool r : received_) received_count_ += r ? 1 : 0;
}

ReportStatus FedPneServer::receive(const ClientReport& r) {
  if (r.client < 0 || r.client >= clients()) return ReportStatus::unknown_client;
  if (r.phase != broadcast_.phase) return ReportStatus::wrong_phase;
  if (r.means.size() != broadcast_.size() || r.pulls.size() != broadcast_.size())
    return ReportStatus::wrong_size;
  for (const std::int64_t p : r.pulls)
    if (p != broadcast_.pulls_per_node) return ReportStatus::wrong_pulls;
  for (const double v : r.means)
    if (!std::isfinite(v)) return ReportStatus::non_finite;
  const auto m = static_cast<std::size_t>(r.client);
  if (received_[m]) return ReportStatus::duplicate;
  received_[m] = true;
  means_[m] = r.means;
  ++received_count_;
  return ReportStatus::accepted;
}

PhaseOutcome FedPneServer::close_phase() {
  if (!ready()) throw std::logic_error("fed-pne: close_phase before every client reported");
  return close_phase_with_reports();
}

PhaseOutcome FedPneServer::close_phase_with_reports() {
  if (received_count_ == 0) throw std::logic_error("fed-pne: close_phase with no report");
  const std::size_t n = broadcast_.size();
  PhaseOutcome out;
  out.phase = broadcast_.phase;
  out.depth = broadcast_.depth;
  out.reporters = received_count_;
  out.global_means.assign(n, 0.0);
  // Client order, so arrival order never matters; only the clients that reported count.
  for (int m = 0; m < clients(); ++m)
    if (received_[m])
      for (std::size_t j = 0; j < n; ++j) out.global_means[j] += means_[m][j];
  for (double& v : out.global_means) v /= received_count_;
  // T_{h,i} = M t with every client; fewer reports mean fewer pulls and a wider band.
  const std::int64_t total_pulls = broadcast_.pulls_per_node * received_count_;
  out.confidence_width = schedule_.confidence_width(total_pulls);
  out.smoothness = schedule_.smoothness(broadcast_.depth);
  out.elimination = eliminate(out.global_means, out.confidence_width, out.smoothness);

  // K^{p+1}: all k children of each survivor (the listing's j in [k-1] would drop one).
  std::vector<std::uint64_t> next;
  next.reserve(out.elimination.survivors * static_cast<std::size_t>(tree_.arity()));
  for (std::size_t j = 0; j < n; ++j)
    if (!out.elimination.eliminated[j])
      for (int c = 0; c < tree_.arity(); ++c)
        next.push_back(tree_.child(broadcast_.node(j), c).index);
  prepare(broadcast_.phase + 1, broadcast_.depth + 1, std::move(next));
  return out;
}

}  // namespace fedsim::xarmed
