#include "engine/fbo/de_server.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace fedsim::fbo {

void DeServerConfig::validate() const {
  if (num_regions < 1) throw std::invalid_argument("number of sub-regions P must be >= 1");
  if (!(q > 0.0 && q <= 1.0))
    throw std::invalid_argument("subsampling probability q must be in (0, 1], got " +
                                std::to_string(q));
  if (privatise) {
    if (!(z > 0.0) || !std::isfinite(z))
      throw std::invalid_argument("noise multiplier z must be a finite number > 0");
    if (!(clip > 0.0) || !std::isfinite(clip))
      throw std::invalid_argument("clipping threshold S must be a finite number > 0");
  }
  if (!(a > 0.0)) throw std::invalid_argument("weight constant a must be > 0");
}

Eigen::MatrixXd de_weights(const std::vector<int>& assignment, int num_regions, double temperature,
                           double a) {
  const int N = static_cast<int>(assignment.size());
  std::vector<int> count(num_regions, 0);
  for (int r : assignment) ++count.at(r);
  // Divide numerator and denominator by exp(1/T): weight ratio r = exp(a/T) (1 at T = inf).
  const double ratio = std::isinf(temperature) ? 1.0 : std::exp(a / temperature);
  Eigen::MatrixXd w(N, num_regions);
  for (int i = 0; i < num_regions; ++i) {
    const double z = count[i] * ratio + (N - count[i]);
    for (int n = 0; n < N; ++n) w(n, i) = (assignment[n] == i ? ratio : 1.0) / z;
  }
  return w;
}

DeServer::DeServer(DeServerConfig config, std::vector<int> assignment, int num_features)
    : config_(config), assignment_(std::move(assignment)), num_features_(num_features) {
  config_.validate();
  if (assignment_.empty()) throw std::invalid_argument("the server needs at least one agent");
  for (int r : assignment_)
    if (r < 0 || r >= config_.num_regions)
      throw std::invalid_argument("agent assigned to a sub-region outside [0, P)");
}

Eigen::MatrixXd DeServer::aggregate(int t, const std::vector<const Eigen::VectorXd*>& messages,
                                    RandomStream& rng, RoundStats* stats) const {
  if (static_cast<int>(messages.size()) != num_agents())
    throw std::invalid_argument("aggregate: one message slot per agent expected");
  const int P = config_.num_regions;
  const Eigen::MatrixXd w = de_weights(assignment_, P, temperature(config_.temperature, t, config_.a),
                                       config_.a);
  RoundStats s;
  s.phi_max = w.maxCoeff();
  Eigen::MatrixXd joint = Eigen::MatrixXd::Zero(num_features_, P);
  const double bound = config_.clip / std::sqrt(static_cast<double>(P));
  Eigen::VectorXd clipped(num_features_);
  for (int n = 0; n < num_agents(); ++n) {
    // Every agent's coin is tossed, present or not, so selection never depends on arrivals.
    const bool chosen = config_.q >= 1.0 || rng.uniform() < config_.q;
    const Eigen::VectorXd* m = messages[n];
    if (m == nullptr) continue;
    if (m->size() != num_features_ || !m->allFinite()) {
      ++s.rejected;
      continue;
    }
    ++s.received;
    if (!chosen) continue;
    ++s.selected;
    double scale = 1.0;
    if (config_.privatise) {
      const double norm = m->norm();
      if (norm > bound) {
        scale = bound / norm;
        ++s.clipped;
      }
    }
    clipped = scale * *m;
    for (int i = 0; i < P; ++i) joint.col(i) += (w(n, i) / config_.q) * clipped;
  }
  if (config_.privatise) {
    s.noise_std = config_.z * s.phi_max * config_.clip / config_.q;
    for (Eigen::Index k = 0; k < joint.size(); ++k) joint.data()[k] += s.noise_std * rng.normal();
  }
  if (stats) *stats = s;
  return joint;
}

}  // namespace fedsim::fbo
