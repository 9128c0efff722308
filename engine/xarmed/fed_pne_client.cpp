#include "engine/xarmed/fed_pne_client.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::xarmed {

FedPneClient::FedPneClient(int id, PartitionTree tree, PointRule rule, double dp_noise_std)
    : id_(id), tree_(std::move(tree)), rule_(rule), dp_noise_std_(dp_noise_std) {
  if (!(std::isfinite(dp_noise_std) && dp_noise_std >= 0.0))
    throw std::invalid_argument("fed-pne client: DP noise std must be finite and >= 0");
}

void FedPneClient::start_phase(const PhaseBroadcast& b) {
  if (b.indices.empty() || b.pulls_per_node < 1 || b.phase < 1)
    throw std::invalid_argument("fed-pne client: malformed broadcast");
  std::vector<Box> cells;
  cells.reserve(b.size());
  try {
    for (std::size_t j = 0; j < b.size(); ++j) cells.push_back(tree_.cell(b.node(j)));
  } catch (const std::out_of_range&) {
    throw std::invalid_argument("fed-pne client: broadcast names a node outside the partition");
  }
  cells_ = std::move(cells);
  broadcast_ = b;
  phase_ = b.phase;
  pulls_per_node_ = b.pulls_per_node;
  total_ = b.length();
  done_ = 0;
  sums_.assign(cells_.size(), 0.0);
  counts_.assign(cells_.size(), 0);
  pending_ = false;
}

FedPneClient::Snapshot FedPneClient::snapshot() const {
  Snapshot out;
  out.broadcast = broadcast_;
  out.done = done_;
  out.sums = sums_;
  out.counts = counts_;
  out.point.assign(point_.data(), point_.data() + point_.size());
  out.pending = pending_;
  return out;
}

void FedPneClient::restore(const Snapshot& snap) {
  if (snap.broadcast.phase > 0) {
    start_phase(snap.broadcast);
    if (snap.sums.size() != cells_.size() || snap.counts.size() != cells_.size() ||
        snap.done < 0 || snap.done > total_)
      throw std::invalid_argument("fed-pne client: snapshot does not match its phase");
    done_ = snap.done;
    sums_ = snap.sums;
    counts_ = snap.counts;
    pending_ = snap.pending;
  }
  point_ = Eigen::Map<const Eigen::VectorXd>(snap.point.data(),
                                             static_cast<Eigen::Index>(snap.point.size()));
}

const Eigen::VectorXd& FedPneClient::propose(RandomStream& rng) {
  if (phase_ == 0 || done_ >= total_) throw std::logic_error("fed-pne client: no pull due");
  if (pending_) throw std::logic_error("fed-pne client: previous pull not observed");
  PartitionTree::point(cells_[next_slot()], rule_, rng, point_);
  pending_ = true;
  return point_;
}

void FedPneClient::observe(double reward, RandomStream& rng) {
  if (!pending_) throw std::logic_error("fed-pne client: observe without a pending pull");
  const std::size_t slot = next_slot();
  // Algorithm 3 line 8: noise on every reward, before the local mean.
  sums_[slot] += dp_noise_std_ > 0.0 ? reward + dp_noise_std_ * rng.normal() : reward;
  ++counts_[slot];
  ++done_;
  pending_ = false;
}

ClientReport FedPneClient::report() const {
  if (!phase_done()) throw std::logic_error("fed-pne client: report before the phase is done");
  ClientReport r;
  r.client = id_;
  r.phase = phase_;
  r.means.resize(cells_.size());
  for (std::size_t j = 0; j < cells_.size(); ++j)
    r.means[j] = sums_[j] / static_cast<double>(counts_[j]);
  r.pulls = counts_;
  return r;
}

}  // namespace fedsim::xarmed
