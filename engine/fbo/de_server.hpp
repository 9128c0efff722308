#pragma once
/// The central server of DP-FTS-DE (Algorithm 1, lines 5-12): Poisson subsampling with q,
/// clipping each vector to S / sqrt(P), per-sub-region weighted sums with DE's softmax weights
/// divided by q, and Gaussian noise of std z * phi_max * S / q. FTS-DE is the same without
/// clipping and noise (and q = 1 by default); DP-FTS is P = 1.
#include <vector>

#include <Eigen/Dense>

#include "engine/fbo/schedules.hpp"
#include "engine/rng.hpp"

namespace fedsim::fbo {

struct DeServerConfig {
  int num_regions = 1;       ///< P
  double q = 1.0;            ///< probability that an agent is selected, in (0, 1]
  bool privatise = false;    ///< clip and add noise (DP-FTS-DE) or not (FTS-DE)
  double z = 1.0;            ///< noise multiplier, > 0
  double clip = 11.0;        ///< S, > 0: each vector is clipped to S / sqrt(P)
  double a = 15.0;           ///< softmax weight constant (a = 15 in all the paper's runs)
  TemperatureSchedule temperature = TemperatureSchedule::synthetic;
  void validate() const;
};

/// DE's weights phi_n^(i) = exp((a 1[n explores i] + 1)/T) / sum_n(...): N x P.
Eigen::MatrixXd de_weights(const std::vector<int>& assignment, int num_regions, double temperature,
                           double a);

/// What one round of aggregation did (for rounds.csv and the accountant).
struct RoundStats {
  int received = 0;   ///< well-formed vectors available
  int rejected = 0;   ///< malformed vectors (wrong size, NaN/Inf): counted, never aggregated
  int selected = 0;   ///< agents chosen by subsampling whose vector was available
  int clipped = 0;    ///< selected vectors whose norm exceeded S / sqrt(P)
  double phi_max = 0;
  double noise_std = 0;
};

class DeServer {
 public:
  /// assignment[n] = the sub-region agent n explores, in [0, P).
  DeServer(DeServerConfig config, std::vector<int> assignment, int num_features);

  /// One round t >= 0. messages[n] is agent n's omega_{n,t} (M), or nullptr if none arrived.
  /// Returns omega_t^joint as M x P (column i = omega_t^(i)).
  Eigen::MatrixXd aggregate(int t, const std::vector<const Eigen::VectorXd*>& messages,
                            RandomStream& rng, RoundStats* stats = nullptr) const;

  const DeServerConfig& config() const { return config_; }
  int num_agents() const { return static_cast<int>(assignment_.size()); }

 private:
  DeServerConfig config_;
  std::vector<int> assignment_;
  int num_features_;
};

}  // namespace fedsim::fbo
