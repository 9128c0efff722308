#include "engine/xarmed/hct_pyxab.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedsim::xarmed {
namespace {
constexpr double pyxab_inf = std::numeric_limits<double>::infinity();
}  // namespace

PyxabHct::PyxabHct(PartitionTree tree, const HctParams& params, PointRule rule)
    : tree_(std::move(tree)), params_(params), rule_(rule) {
  params_.validate();
  nodes_.push_back(Node{PartitionTree::root(), -1, {}, 0, 0.0, pyxab_inf, pyxab_inf});
  cells_.push_back(tree_.box());
  layers_.push_back({0});
  expand(0);
}

double PyxabHct::delta_tilde(double cap) const {
  return std::min(cap, params_.c1() * params_.delta / static_cast<double>(t_plus(t_)));
}

void PyxabHct::compute_u(Node& n, double dt) const {
  if (n.pulls == 0) {
    n.u = pyxab_inf;
    return;
  }
  const double pulls = static_cast<double>(n.pulls);
  n.u = n.sum / pulls + params_.nu1 * std::pow(params_.rho, n.id.depth) +
        std::sqrt(params_.c * params_.c * std::log(1.0 / dt) / pulls);
}

void PyxabHct::update_b_all() {
  // updateBackwardTree: layers depth .. 1 (the root's B is never read), each node's B from its
  // current children (computed earlier in this sweep: they are one layer deeper).
  for (std::size_t h = layers_.size(); h-- > 1;)
    for (std::size_t slot : layers_[h]) {
      Node& n = nodes_[slot];
      if (n.children.empty()) {
        n.b = n.u;
        continue;
      }
      double best = -pyxab_inf;
      for (std::size_t c : n.children) best = std::max(best, nodes_[c].b);
      n.b = std::min(n.u, best);
    }
}

void PyxabHct::expand(std::size_t slot) {
  const NodeId id = nodes_[slot].id;
  if (id.depth >= tree_.max_depth()) return;
  if (!nodes_[slot].children.empty()) ++re_expansions_;
  std::vector<std::size_t> children;
  for (int j = 0; j < tree_.arity(); ++j) {
    const std::size_t c = nodes_.size();
    nodes_.push_back(Node{tree_.child(id, j), static_cast<std::int64_t>(slot), {}, 0, 0.0, pyxab_inf, pyxab_inf});
    cells_.push_back(tree_.child_cell(cells_[slot], id, j));
    if (layers_.size() <= static_cast<std::size_t>(id.depth + 1)) layers_.emplace_back();
    layers_[static_cast<std::size_t>(id.depth + 1)].push_back(c);
    children.push_back(c);
  }
  nodes_[slot].children = std::move(children);  // the old ones, if any, are orphans now
}

const Eigen::VectorXd& PyxabHct::propose(RandomStream& rng) {
  if (pending_) throw std::logic_error("hct: previous pull not observed");
  // optTraverse: the thresholds of every layer at this t+, then the descent.
  const double log_term = std::log(1.0 / delta_tilde(0.5));
  tau_.assign(layers_.size(), 0.0);
  for (std::size_t h = 1; h < layers_.size(); ++h)
    tau_[h] = std::ceil(params_.c * params_.c * log_term * std::pow(params_.rho, -2.0 * double(h)) /
                        (params_.nu1 * params_.nu1));
  path_.assign(1, 0);
  std::size_t at = 0;
  while (static_cast<double>(nodes_[at].pulls) >= tau_[static_cast<std::size_t>(nodes_[at].id.depth)] &&
         !nodes_[at].children.empty()) {
    const auto& children = nodes_[at].children;
    std::size_t best = children.front();
    for (std::size_t j = 1; j < children.size(); ++j)
      if (nodes_[children[j]].b >= nodes_[best].b) best = children[j];  // ties: the last
    at = best;
    path_.push_back(at);
  }
  PartitionTree::point(cells_[at], rule_, rng, point_);
  pending_ = true;
  return point_;
}

void PyxabHct::observe(double reward) {
  if (!pending_) throw std::logic_error("hct: observe without a pending pull");
  // updateAllTree.
  const double dt = delta_tilde(1.0);  // at this (pre-increment) iteration's t+
  if (t_ == t_plus(t_)) {
    for (Node& n : nodes_) compute_u(n, dt);
    update_b_all();
  }
  const std::size_t slot = path_.back();
  Node& n = nodes_[slot];
  ++n.pulls;
  n.sum += reward;
  ++t_;
  compute_u(n, dt);
  update_b_all();
  if (static_cast<double>(n.pulls) >= tau_[static_cast<std::size_t>(n.id.depth)]) expand(slot);
  pending_ = false;
}

bool PyxabHct::reachable(std::size_t slot) const {
  for (std::size_t at = slot; at != 0;) {
    const auto parent = static_cast<std::size_t>(nodes_[at].parent);
    const auto& c = nodes_[parent].children;
    if (std::find(c.begin(), c.end(), at) == c.end()) return false;
    at = parent;
  }
  return true;
}

PyxabHct::NodeView PyxabHct::node(std::size_t slot) const {
  const Node& n = nodes_.at(slot);
  NodeView v;
  v.id = n.id;
  v.pulls = n.pulls;
  v.mean = n.pulls > 0 ? n.sum / static_cast<double>(n.pulls) : 0.0;
  v.u = n.u;
  v.b = n.b;
  v.leaf = n.children.empty();
  v.reachable = reachable(slot);
  return v;
}

std::size_t PyxabHct::most_pulled() const {
  std::size_t best = 0;
  for (std::size_t s = 1; s < nodes_.size(); ++s)
    if (nodes_[s].pulls >= nodes_[best].pulls && reachable(s)) best = s;
  return best;
}

}  // namespace fedsim::xarmed
