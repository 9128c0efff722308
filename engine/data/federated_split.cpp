#include "engine/data/federated_split.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>

#include "engine/data/dirichlet.hpp"
#include "engine/rng.hpp"

namespace fedsim::data {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

/// One attempt: per class, shuffled indices cut at the cumulative proportions.
std::vector<std::vector<int>> draw_split(const std::vector<std::vector<int>>& by_class,
                                         const SplitConfig& c, RandomStream& rng) {
  const int n = c.agents;
  Eigen::VectorXd weight = Eigen::VectorXd::Ones(n);
  if (c.quantity_sigma > 0)
    for (int a = 0; a < n; ++a) weight(a) = std::exp(c.quantity_sigma * rng.normal());
  std::vector<std::vector<int>> out(n);
  for (std::vector<int> members : by_class) {
    Eigen::VectorXd p = std::isinf(c.alpha)
                            ? Eigen::VectorXd::Constant(n, 1.0 / n)
                            : dirichlet_variate(rng, Eigen::VectorXd::Constant(n, c.alpha));
    p = p.cwiseProduct(weight);
    p /= p.sum();
    shuffle(members, rng);
    const double m = static_cast<double>(members.size());
    double cumulative = 0.0;
    std::size_t begin = 0;
    for (int a = 0; a < n; ++a) {
      cumulative += p(a);
      // The last agent's cut is the end exactly: no sample lost to rounding.
      const std::size_t end =
          a == n - 1 ? members.size()
                     : std::min(members.size(), static_cast<std::size_t>(std::llround(cumulative * m)));
      for (std::size_t k = begin; k < std::max(begin, end); ++k) out[a].push_back(members[k]);
      begin = std::max(begin, end);
    }
  }
  for (auto& v : out) std::sort(v.begin(), v.end());
  return out;
}

}  // namespace

void SplitConfig::validate() const {
  require(agents >= 1, "split: agents must be >= 1");
  require(alpha > 0 && !std::isnan(alpha), "split: alpha must be > 0 (infinity: proportional shares)");
  require(std::isfinite(quantity_sigma) && quantity_sigma >= 0,
          "split: quantity_sigma must be a finite number >= 0");
  require(min_per_agent >= 0, "split: min_per_agent must be >= 0");
  require(max_attempts >= 1, "split: max_attempts must be >= 1");
}

std::vector<std::vector<int>> federated_split(const std::vector<int>& labels, int classes,
                                              const SplitConfig& config, std::uint64_t seed) {
  config.validate();
  require(classes >= 1, "split: classes must be >= 1");
  std::vector<std::vector<int>> by_class(classes);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const int y = labels[i];
    require(y >= 0 && y < classes, "split: sample " + std::to_string(i) + " has label " +
                                       std::to_string(y) + ", outside 0.." +
                                       std::to_string(classes - 1));
    by_class[y].push_back(static_cast<int>(i));
  }
  const std::size_t needed =
      static_cast<std::size_t>(config.agents) * static_cast<std::size_t>(config.min_per_agent);
  if (labels.size() < needed)
    throw std::runtime_error("split: " + std::to_string(labels.size()) + " samples cannot give " +
                             std::to_string(config.agents) + " agents " +
                             std::to_string(config.min_per_agent) + " each");
  for (int attempt = 0; attempt < config.max_attempts; ++attempt) {
    RandomStream rng(seed, "data.split", static_cast<std::uint64_t>(attempt));
    auto split = draw_split(by_class, config, rng);
    const bool enough = std::all_of(split.begin(), split.end(), [&](const std::vector<int>& v) {
      return v.size() >= static_cast<std::size_t>(config.min_per_agent);
    });
    if (enough) return split;
  }
  throw std::runtime_error("split: no draw in " + std::to_string(config.max_attempts) +
                           " attempts gave each of " + std::to_string(config.agents) +
                           " agents at least " + std::to_string(config.min_per_agent) +
                           " of the " + std::to_string(labels.size()) +
                           " samples: use fewer agents or a larger alpha");
}

Shard halve(const std::vector<int>& indices, std::uint64_t seed, int agent) {
  std::vector<int> v = indices;
  RandomStream rng(seed, "data.halve", static_cast<std::uint64_t>(agent));
  shuffle(v, rng);
  Shard s;
  const std::size_t train = (v.size() + 1) / 2;
  s.train.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(train));
  s.validation.assign(v.begin() + static_cast<std::ptrdiff_t>(train), v.end());
  return s;
}

}  // namespace fedsim::data
