#include "engine/fbo/algorithms.hpp"

#include <algorithm>
#include <stdexcept>

namespace fedsim::fbo {

std::string to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::ts: return "ts";
    case Algorithm::fts: return "fts";
    case Algorithm::fts_de: return "fts-de";
    case Algorithm::dp_fts: return "dp-fts";
    case Algorithm::dp_fts_de: return "dp-fts-de";
  }
  throw std::logic_error("to_string: not a Algorithm value");
}

std::string to_string(Branch branch) {
  switch (branch) {
    case Branch::init: return "init";
    case Branch::local: return "local";
    case Branch::federated: return "federated";
  }
  throw std::logic_error("to_string: not a Branch value");
}

Choice ts_choose(const FboAgent& agent, RandomStream& rng) {
  return {agent.argmax_local_ts(rng), Branch::local, -1};
}

Choice de_choose(const FboAgent& agent, int t, const Eigen::Ref<const Eigen::MatrixXd>* joint,
                 PSchedule schedule, bool p1_equals_p2, RandomStream& rng) {
  const double r = rng.uniform();
  if (joint == nullptr || r <= p_local(schedule, t, p1_equals_p2)) return ts_choose(agent, rng);
  return {agent.argmax_joint(*joint, rng), Branch::federated, -1};
}

void FtsMessagePool::reset(const double* joint, const std::int32_t* sources, std::size_t count,
                           int dim, int exclude) {
  for (std::size_t k = 1; k < count; ++k)
    if (!(sources[k - 1] < sources[k]))
      throw std::invalid_argument("FTS message pool: the sources are not in strictly ascending "
                                  "agent order");
  joint_ = joint;
  sources_ = sources;
  count_ = count;
  dim_ = dim;
  const std::int32_t* own = std::lower_bound(sources, sources + count, exclude);
  exclude_ = (own != sources + count && *own == exclude) ? own - sources : -1;
  used_.assign(remove_after_use_ ? count : 0, false);
  total_ = static_cast<double>(count - (exclude_ >= 0 ? 1 : 0));
}

std::vector<double> FtsMessagePool::weights() const {
  std::vector<double> w(count_);
  for (std::size_t k = 0; k < count_; ++k) w[k] = drawable(k) ? 1.0 : 0.0;
  return w;
}

void FtsMessagePool::restore_weights(const std::vector<double>& weights, double total) {
  if (weights.size() != count_)
    throw std::invalid_argument("FtsMessagePool: restored weights do not match the messages");
  for (std::size_t k = 0; k < count_; ++k) {
    const bool own = static_cast<std::ptrdiff_t>(k) == exclude_;
    if (weights[k] != (own ? 0.0 : 1.0) && !(remove_after_use_ && weights[k] == 0.0))
      throw std::invalid_argument("FtsMessagePool: a restored weight is not one the pool draws with");
    if (remove_after_use_) used_[k] = !own && weights[k] == 0.0;
  }
  total_ = total;  // as saved, not re-summed: draws stay bit-identical
}

Eigen::Map<const Eigen::VectorXd> FtsMessagePool::draw(RandomStream& rng, int* source) {
  if (empty()) throw std::logic_error("FTS message pool is empty");
  // P_N: each drawable message weighs 1, in agent order; the first whose running sum passes u.
  const double u = rng.uniform() * total_;
  double acc = 0.0;
  std::size_t pick = count_;
  for (std::size_t k = 0; k < count_; ++k) {
    if (!drawable(k)) continue;
    pick = k;  // the last drawable message absorbs rounding at the top end
    acc += 1.0;
    if (u < acc) break;
  }
  if (pick == count_) throw std::logic_error("FTS message pool: no message left to draw");
  if (remove_after_use_) {
    total_ -= 1.0;
    used_[pick] = true;
  }
  if (source) *source = sources_[pick];
  return Eigen::Map<const Eigen::VectorXd>(joint_ + pick * static_cast<std::size_t>(dim_), dim_);
}

Choice fts_choose(const FboAgent& agent, int t, FtsMessagePool& pool, PSchedule schedule,
                  bool p1_equals_p2, RandomStream& rng) {
  const double r = rng.uniform();
  if (pool.empty() || r <= p_local(schedule, t, p1_equals_p2)) return ts_choose(agent, rng);
  int source = -1;
  const auto omega = pool.draw(rng, &source);
  return {agent.argmax_omega(omega, rng), Branch::federated, source};
}

}  // namespace fedsim::fbo
