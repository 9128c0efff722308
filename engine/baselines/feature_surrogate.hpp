#pragma once
/// One agent's GP surrogate with the shared random features, as the RGPE and TAF baselines of
/// FTS section 3.2 send it to the target agent: nu_n and Sigma_n^-1 of FTS eq. 3
/// (Sigma = Phi'Phi + lambda I, nu = Sigma^-1 Phi'y), so that the receiver evaluates the agent's
/// posterior mean phi(x)'nu_n and variance lambda phi(x)'Sigma_n^-1 phi(x) (FTS appendix B) at
/// any x. lambda (the noise variance / regulariser) and the features are shared configuration,
/// as for FTS, and not sent.
///
/// Payload (flat doubles, documented length):
///   [0, M)            nu_n
///   [M, M + M*M)      Sigma_n^-1, row-major (symmetric, so row- and column-major agree)
///   [M + M*M]         TAF only: the agent's incumbent, the largest value it has observed
/// length = M + M*M for RGPE, M + M*M + 1 for TAF (surrogate_payload_length).
#include <limits>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "engine/fbo/agent.hpp"
#include "engine/posterior.hpp"
#include "engine/rff.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

/// Whether a payload carries the incumbent (TAF) or not (RGPE).
enum class SurrogatePayload { rgpe, taf };

/// M + M*M (rgpe), M + M*M + 1 (taf).
std::size_t surrogate_payload_length(int num_features, SurrogatePayload kind);

/// The checker's tolerances (stated so that a test can probe both sides of each).
/// Symmetry: |A_ij - A_ji| <= symmetry_tolerance * max_ij |A_ij|.
inline constexpr double symmetry_tolerance = 1e-9;
/// Positive definiteness: the Cholesky factorisation (Eigen LLT) of A succeeds and its smallest
/// squared pivot L_ii^2 is >= definiteness_tolerance * max_i A_ii (below that A is singular to
/// working precision: a valid Sigma^-1 has every eigenvalue >= 1 / (lambda + t sigma_0^2)).
inline constexpr double definiteness_tolerance = 1e-14;

/// Why `payload` is not a valid surrogate message of M features and this kind; "" when it is.
/// Checked in order: length, non-finite entries (which, where), symmetry, positive
/// definiteness. A receiver never uses a payload this rejects.
std::string check_surrogate_payload(const std::vector<double>& payload, int num_features,
                                    SurrogatePayload kind);

/// An agent's surrogate: its feature posterior's mean and inverse precision, the shared
/// lambda, and (TAF) its incumbent. Holds the Cholesky factor C of Sigma^-1 (C C' = Sigma^-1)
/// to sample omega ~ N(nu, lambda Sigma^-1) = nu + sqrt(lambda) C z.
class FeatureSurrogate {
 public:
  /// Throws std::invalid_argument with check_surrogate_payload's reason when (nu, sigma_inv)
  /// is not a valid surrogate, or lambda is not a finite number > 0. incumbent: NaN when not
  /// sent (RGPE).
  FeatureSurrogate(Eigen::VectorXd nu, Eigen::MatrixXd sigma_inv, double lambda,
                   double incumbent = std::numeric_limits<double>::quiet_NaN());

  int num_features() const { return static_cast<int>(nu_.size()); }
  const Eigen::VectorXd& nu() const { return nu_; }
  const Eigen::MatrixXd& sigma_inv() const { return sigma_inv_; }
  double lambda() const { return lambda_; }
  double incumbent() const { return incumbent_; }

  /// phi'nu and lambda phi'Sigma^-1 phi at one point's features (M). O(M^2).
  double mean(const Eigen::Ref<const Eigen::VectorXd>& phi) const;
  double variance(const Eigen::Ref<const Eigen::VectorXd>& phi) const;
  /// Both at n points: Phi n x M -> mean, variance (n each). O(n M^2).
  void predict(const Eigen::Ref<const Eigen::MatrixXd>& Phi, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const;
  /// S draws of omega ~ N(nu, lambda Sigma^-1): M x S, column s the s-th, from S*M normals
  /// of rng in column order.
  Eigen::MatrixXd sample_weights(int count, RandomStream& rng) const;

  /// The flat payload (layout above); kind taf appends the incumbent.
  std::vector<double> encode(SurrogatePayload kind) const;
  /// The surrogate a payload describes. Throws std::invalid_argument with
  /// check_surrogate_payload's reason when it is malformed.
  static FeatureSurrogate decode(const std::vector<double>& payload, int num_features,
                                 double lambda, SurrogatePayload kind);

 private:
  Eigen::VectorXd nu_;
  Eigen::MatrixXd sigma_inv_;
  double lambda_;
  double incumbent_;
  Eigen::MatrixXd factor_;  ///< C, lower, C C' = Sigma^-1
};

/// The surrogate of a feature posterior (engine/posterior.hpp): nu = posterior.mean(),
/// Sigma^-1 = posterior.covariance() / lambda, symmetrised ((A + A') / 2: the solve leaves
/// rounding asymmetries). incumbent: the largest observed value, NaN when none.
FeatureSurrogate make_surrogate(const FeaturePosterior& posterior,
                                double incumbent = std::numeric_limits<double>::quiet_NaN());

/// The surrogate an FTS agent sends: its shared model (the context's features and lambda,
/// signal variance 1, never a refit's) over its whole history, and its largest observed y as
/// the incumbent (NaN with no observation). The same quantities FboAgent::sample_message
/// draws omega_n from. O(t M^2 + M^3).
FeatureSurrogate make_surrogate(const fbo::FboAgent& agent, const fbo::AgentContext& context);

/// Checks what RGPE's and TAF's ranking weights take: the target's n x M features Phi and its n
/// values y, and base surrogates on the same M features; std::invalid_argument otherwise.
void require_weighable(const std::vector<FeatureSurrogate>& base,
                       const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                       const Eigen::Ref<const Eigen::VectorXd>& y);

/// phi(x) of every observation of the agent, in order (t x M): the grid's cached row for a
/// candidate, else computed. And its observed values (t).
Eigen::MatrixXd observed_features(const fbo::FboAgent& agent, const fbo::AgentContext& context);
Eigen::VectorXd observed_values(const fbo::FboAgent& agent);

}  // namespace fedsim::baselines
