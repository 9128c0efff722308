#include "engine/fbo/algorithms.hpp"

#include <stdexcept>

namespace fedsim::fbo {

Algorithm parse_algorithm(const std::string& name) {
  if (name == "ts") return Algorithm::ts;
  if (name == "fts") return Algorithm::fts;
  if (name == "fts-de") return Algorithm::fts_de;
  if (name == "dp-fts") return Algorithm::dp_fts;
  if (name == "dp-fts-de") return Algorithm::dp_fts_de;
  throw std::invalid_argument("unknown algorithm '" + name +
                              "': allowed ts, fts, fts-de, dp-fts, dp-fts-de");
}

std::string to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::ts: return "ts";
    case Algorithm::fts: return "fts";
    case Algorithm::fts_de: return "fts-de";
    case Algorithm::dp_fts: return "dp-fts";
    case Algorithm::dp_fts_de: return "dp-fts-de";
  }
  return "?";
}

std::string to_string(Branch branch) {
  switch (branch) {
    case Branch::init: return "init";
    case Branch::local: return "local";
    case Branch::federated: return "federated";
  }
  return "?";
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

void FtsMessagePool::reset(const std::vector<const double*>& messages, int dim, int exclude) {
  messages_ = messages;
  dim_ = dim;
  weights_.assign(messages.size(), 0.0);
  total_ = 0.0;
  for (size_t m = 0; m < messages.size(); ++m) {
    if (messages[m] == nullptr || static_cast<int>(m) == exclude) continue;
    weights_[m] = 1.0;
    total_ += 1.0;
  }
}

void FtsMessagePool::reset(const std::vector<const Eigen::VectorXd*>& messages, int exclude) {
  std::vector<const double*> views(messages.size(), nullptr);
  int dim = 0;
  for (size_t m = 0; m < messages.size(); ++m) {
    if (messages[m] == nullptr) continue;
    if (dim > 0 && messages[m]->size() != dim)
      throw std::invalid_argument("FTS message pool: messages of different sizes");
    dim = static_cast<int>(messages[m]->size());
    views[m] = messages[m]->data();
  }
  reset(views, dim, exclude);
}

void FtsMessagePool::restore_weights(std::vector<double> weights, double total) {
  if (weights.size() != messages_.size())
    throw std::invalid_argument("FtsMessagePool: restored weights do not match the messages");
  weights_ = std::move(weights);
  total_ = total;  // as saved, not re-summed: draws stay bit-identical
}

Eigen::Map<const Eigen::VectorXd> FtsMessagePool::draw(RandomStream& rng, int* source) {
  if (empty()) throw std::logic_error("FTS message pool is empty");
  const double u = rng.uniform() * total_;
  double acc = 0.0;
  size_t pick = 0;
  for (size_t m = 0; m < weights_.size(); ++m) {
    if (weights_[m] <= 0.0) continue;
    pick = m;  // the last positive weight absorbs rounding at the top end
    acc += weights_[m];
    if (u < acc) break;
  }
  if (remove_after_use_) {
    total_ -= weights_[pick];
    weights_[pick] = 0.0;
  }
  if (source) *source = static_cast<int>(pick);
  return Eigen::Map<const Eigen::VectorXd>(messages_[pick], dim_);
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
