#include "engine/xarmed/hct.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedsim::xarmed {
namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
}  // namespace

std::int64_t t_plus(std::int64_t t) {
  std::int64_t p = 1;
  while (p < t) p <<= 1;
  return p;
}

std::string to_string(HctVariant variant) {
  switch (variant) {
    case HctVariant::azar: return "azar";
    case HctVariant::pyxab: return "pyxab";
  }
  throw std::logic_error("to_string: not a HctVariant value");
}

double HctParams::c1() const { return std::pow(rho / (3.0 * nu1), 1.0 / 8.0); }

void HctParams::validate() const {
  if (!(std::isfinite(nu1) && nu1 > 0.0)) throw std::invalid_argument("hct: nu1 must be > 0");
  if (!(rho > 0.0 && rho < 1.0)) throw std::invalid_argument("hct: rho must be in (0, 1)");
  if (!(std::isfinite(c) && c > 0.0)) throw std::invalid_argument("hct: c must be > 0");
  if (!(delta > 0.0 && delta < 1.0)) throw std::invalid_argument("hct: delta must be in (0, 1)");
}

Hct::Hct(PartitionTree tree, const HctParams& params, PointRule rule)
    : tree_(std::move(tree)), params_(params), rule_(rule) {
  params_.validate();
  nodes_.push_back(Node{PartitionTree::root(), -1, 0, 0.0, inf, inf});
  cells_.push_back(tree_.box());
  expand(0);
}

double Hct::smooth(int depth) const { return smooth_[static_cast<std::size_t>(depth)]; }

double Hct::tau(int depth) const {
  return std::ceil(params_.c * params_.c * log_term_ * std::pow(params_.rho, -2.0 * depth) /
                   (params_.nu1 * params_.nu1));
}

double Hct::upper_bound(const Node& n) const {
  if (n.pulls == 0) return inf;
  const double pulls = static_cast<double>(n.pulls);
  return n.sum / pulls + smooth(n.id.depth) +
         std::sqrt(params_.c * params_.c * log_term_ / pulls);
}

double Hct::b_value(const Node& n) const {
  if (n.first_child < 0) return n.u;
  double best = -inf;
  for (int j = 0; j < tree_.arity(); ++j)
    best = std::max(best, nodes_[static_cast<std::size_t>(n.first_child + j)].b);
  return std::min(n.u, best);
}

void Hct::expand(std::size_t slot) {
  const NodeId id = nodes_[slot].id;
  if (id.depth >= tree_.max_depth()) return;  // 2^63 leaves deep: never reached in practice
  nodes_[slot].first_child = static_cast<std::int64_t>(nodes_.size());
  for (int j = 0; j < tree_.arity(); ++j) {
    nodes_.push_back(Node{tree_.child(id, j), -1, 0, 0.0, inf, inf});
    cells_.push_back(tree_.child_cell(cells_[slot], id, j));
  }
  if (id.depth + 1 > depth_) depth_ = id.depth + 1;
  while (smooth_.size() <= static_cast<std::size_t>(depth_)) {
    const int h = static_cast<int>(smooth_.size());
    smooth_.push_back(params_.nu1 * std::pow(params_.rho, h));
    tau_.push_back(tau(h));
  }
}

void Hct::refresh() {
  const double delta_tilde = std::min(1.0, params_.c1() * params_.delta / static_cast<double>(t_plus_));
  log_term_ = std::log(1.0 / delta_tilde);
  for (std::size_t h = 0; h < tau_.size(); ++h) tau_[h] = tau(static_cast<int>(h));
  // Children are stored after their parent: one backward sweep recomputes B bottom-up.
  for (auto& n : nodes_) n.u = upper_bound(n);
  for (std::size_t s = nodes_.size(); s-- > 0;) nodes_[s].b = b_value(nodes_[s]);
}

const Eigen::VectorXd& Hct::propose(RandomStream& rng) {
  if (pending_) throw std::logic_error("hct: previous pull not observed");
  if (const std::int64_t tp = t_plus(t_); tp != t_plus_) {
    t_plus_ = tp;
    refresh();
  }
  path_.clear();
  std::size_t at = 0;
  path_.push_back(at);
  while (nodes_[at].first_child >= 0 &&
         (at == 0 || static_cast<double>(nodes_[at].pulls) >= tau_[nodes_[at].id.depth])) {
    auto best = static_cast<std::size_t>(nodes_[at].first_child);
    for (int j = 1; j < tree_.arity(); ++j) {
      const auto c = static_cast<std::size_t>(nodes_[at].first_child + j);
      if (nodes_[c].b > nodes_[best].b) best = c;
    }
    at = best;
    path_.push_back(at);
  }
  PartitionTree::point(cells_[at], rule_, rng, point_);
  pending_ = true;
  return point_;
}

void Hct::observe(double reward) {
  if (!pending_) throw std::logic_error("hct: observe without a pending pull");
  const std::size_t slot = path_.back();
  Node& n = nodes_[slot];
  ++n.pulls;
  n.sum += reward;
  n.u = upper_bound(n);
  if (n.first_child < 0 && static_cast<double>(n.pulls) >= tau_[n.id.depth]) expand(slot);
  // A new leaf's children have B = +inf, so its B stays U: update the path either way.
  for (std::size_t j = path_.size(); j-- > 0;) {
    Node& p = nodes_[path_[j]];
    p.b = b_value(p);
  }
  ++t_;
  pending_ = false;
}

Hct::NodeView Hct::node(std::size_t slot) const {
  const Node& n = nodes_.at(slot);
  NodeView v;
  v.id = n.id;
  v.pulls = n.pulls;
  v.mean = n.pulls > 0 ? n.sum / static_cast<double>(n.pulls) : 0.0;
  v.u = n.u;
  v.b = n.b;
  v.leaf = n.first_child < 0;
  return v;
}

std::size_t Hct::most_pulled() const {
  std::size_t best = 0;
  for (std::size_t s = 1; s < nodes_.size(); ++s)
    if (nodes_[s].pulls >= nodes_[best].pulls) best = s;
  return best;
}

}  // namespace fedsim::xarmed
