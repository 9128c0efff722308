#include "engine/xarmed/partition_tree.hpp"

#include <stdexcept>

namespace fedsim::xarmed {

SplitRule parse_split_rule(const std::string& name) {
  if (name == "random") return SplitRule::random_axis;
  if (name == "cyclic") return SplitRule::cyclic;
  throw std::invalid_argument("unknown split rule '" + name + "': allowed random, cyclic");
}

std::string to_string(SplitRule rule) {
  switch (rule) {
    case SplitRule::random_axis: return "random";
    case SplitRule::cyclic: return "cyclic";
  }
  throw std::logic_error("to_string: not a SplitRule value");
}

PointRule parse_point_rule(const std::string& name) {
  if (name == "centre" || name == "center") return PointRule::centre;
  if (name == "uniform") return PointRule::uniform;
  throw std::invalid_argument("unknown point rule '" + name + "': allowed centre, uniform");
}

std::string to_string(PointRule rule) {
  switch (rule) {
    case PointRule::centre: return "centre";
    case PointRule::uniform: return "uniform";
  }
  throw std::logic_error("to_string: not a PointRule value");
}

PartitionTree::PartitionTree(Box box, int k, SplitRule rule, std::uint64_t seed)
    : box_(std::move(box)), k_(k), rule_(rule), seed_(seed), max_depth_(0) {
  box_.validate();
  if (k < 2) throw std::invalid_argument("PartitionTree: arity k must be >= 2");
  // Largest h with k^h <= 2^63, so indices (and k * index) stay exact in 64 bits.
  std::uint64_t width = 1;
  while (width <= (std::uint64_t{1} << 63) / static_cast<std::uint64_t>(k)) {
    width *= static_cast<std::uint64_t>(k);
    ++max_depth_;
  }
}

void PartitionTree::check(NodeId node) const {
  if (node.depth < 0 || node.depth > max_depth_ || node.index < 1)
    throw std::out_of_range("PartitionTree: node outside the tree");
  std::uint64_t width = 1;
  for (int h = 0; h < node.depth; ++h) width *= static_cast<std::uint64_t>(k_);
  if (node.index > width) throw std::out_of_range("PartitionTree: index outside 1..k^h");
}

NodeId PartitionTree::child(NodeId node, int j) const {
  if (node.depth >= max_depth_) throw std::out_of_range("PartitionTree: deeper than max_depth");
  if (j < 0 || j >= k_) throw std::out_of_range("PartitionTree: child number outside 0..k-1");
  const auto k = static_cast<std::uint64_t>(k_);
  return NodeId{node.depth + 1, k * (node.index - 1) + 1 + static_cast<std::uint64_t>(j)};
}

std::vector<NodeId> PartitionTree::children(NodeId node) const {
  std::vector<NodeId> out;
  out.reserve(static_cast<std::size_t>(k_));
  for (int j = 0; j < k_; ++j) out.push_back(child(node, j));
  return out;
}

NodeId PartitionTree::parent(NodeId node) const {
  if (node.depth <= 0) throw std::out_of_range("PartitionTree: the root has no parent");
  const auto k = static_cast<std::uint64_t>(k_);
  return NodeId{node.depth - 1, (node.index - 1) / k + 1};
}

int PartitionTree::split_axis(NodeId node) const {
  const int d = dim();
  if (d == 1) return 0;
  if (rule_ == SplitRule::cyclic) return node.depth % d;
  RandomStream rng(seed_, "xarmed.partition", static_cast<std::uint64_t>(node.depth), node.index);
  return static_cast<int>(rng.uniform_index(static_cast<std::uint64_t>(d)));
}

Box PartitionTree::child_cell(const Box& cell, NodeId node, int j) const {
  const int axis = split_axis(node);
  const double lo = cell.lower(axis), hi = cell.upper(axis);
  Box out = cell;
  // Same formula on both sides of a cut, so neighbours share their boundary exactly.
  out.lower(axis) = lo + (hi - lo) * j / k_;
  out.upper(axis) = (j + 1 == k_) ? hi : lo + (hi - lo) * (j + 1) / k_;
  return out;
}

Box PartitionTree::cell(NodeId node) const {
  check(node);
  const auto k = static_cast<std::uint64_t>(k_);
  // Digits of (i - 1) in base k, most significant first, give the path from the root.
  std::uint64_t span = 1;  // k^(remaining depth)
  for (int h = 0; h < node.depth; ++h) span *= k;
  Box out = box_;
  NodeId at = root();
  const std::uint64_t offset = node.index - 1;
  for (int h = 0; h < node.depth; ++h) {
    span /= k;
    const int j = static_cast<int>((offset / span) % k);
    out = child_cell(out, at, j);
    at = child(at, j);
  }
  return out;
}

void PartitionTree::point(const Box& cell, PointRule rule, RandomStream& rng,
                          Eigen::VectorXd& out) {
  const int d = cell.dim();
  out.resize(d);
  if (rule == PointRule::centre) {
    out = 0.5 * (cell.lower + cell.upper);
    return;
  }
  for (int a = 0; a < d; ++a) out(a) = rng.uniform(cell.lower(a), cell.upper(a));
}

}  // namespace fedsim::xarmed
