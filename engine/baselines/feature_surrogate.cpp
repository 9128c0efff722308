#include "engine/baselines/feature_surrogate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace fedsim::baselines {

std::size_t surrogate_payload_length(int num_features, SurrogatePayload kind) {
  const auto m = static_cast<std::size_t>(num_features > 0 ? num_features : 0);
  return m + m * m + (kind == SurrogatePayload::taf ? 1 : 0);
}

namespace {

std::string name_of_entry(std::size_t i, std::size_t m) {
  if (i < m) return "nu[" + std::to_string(i) + "]";
  if (i < m + m * m) {
    const std::size_t k = i - m;
    return "Sigma^-1[" + std::to_string(k / m) + "][" + std::to_string(k % m) + "]";
  }
  return "the incumbent";
}

/// Why the M x M matrix A is not symmetric positive definite within the stated tolerances;
/// "" when it is. L receives the Cholesky factor when it is.
std::string check_spd(const Eigen::Ref<const Eigen::MatrixXd>& A, Eigen::MatrixXd* L) {
  const double scale = A.cwiseAbs().maxCoeff();
  const double asymmetry = (A - A.transpose()).cwiseAbs().maxCoeff();
  if (asymmetry > symmetry_tolerance * scale)
    return "Sigma^-1 is not symmetric: max |A_ij - A_ji| = " + std::to_string(asymmetry) +
           " > " + std::to_string(symmetry_tolerance) + " * max |A_ij| = " +
           std::to_string(symmetry_tolerance * scale);
  const Eigen::LLT<Eigen::MatrixXd> llt(A);
  if (llt.info() != Eigen::Success)
    return "Sigma^-1 is not positive definite: its Cholesky factorisation fails";
  const Eigen::MatrixXd factor = llt.matrixL();
  const double smallest = factor.diagonal().array().square().minCoeff();
  const double largest = A.diagonal().maxCoeff();
  if (!(smallest >= definiteness_tolerance * largest))
    return "Sigma^-1 is not positive definite to working precision: smallest squared Cholesky "
           "pivot " + std::to_string(smallest) + " < " + std::to_string(definiteness_tolerance) +
           " * largest diagonal entry " + std::to_string(largest);
  if (L) *L = factor;
  return "";
}

}  // namespace

std::string check_surrogate_payload(const std::vector<double>& payload, int num_features,
                                    SurrogatePayload kind) {
  if (num_features <= 0) return "the receiver's number of features M must be > 0";
  const std::size_t m = static_cast<std::size_t>(num_features);
  const std::size_t want = surrogate_payload_length(num_features, kind);
  if (payload.size() != want)
    return "length " + std::to_string(payload.size()) + ", expected " + std::to_string(want) +
           " (M + M*M" + (kind == SurrogatePayload::taf ? " + 1" : "") + " with M = " +
           std::to_string(m) + ")";
  for (std::size_t i = 0; i < payload.size(); ++i)
    if (!std::isfinite(payload[i]))
      return "entry " + std::to_string(i) + " (" + name_of_entry(i, m) + ") is not finite";
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
      A(payload.data() + m, num_features, num_features);
  return check_spd(A, nullptr);
}

FeatureSurrogate::FeatureSurrogate(Eigen::VectorXd nu, Eigen::MatrixXd sigma_inv, double lambda,
                                   double incumbent)
    : nu_(std::move(nu)), sigma_inv_(std::move(sigma_inv)), lambda_(lambda),
      incumbent_(incumbent) {
  if (!(lambda > 0) || !std::isfinite(lambda))
    throw std::invalid_argument("surrogate lambda (noise variance) must be a finite number > 0");
  const int m = num_features();
  if (m <= 0 || sigma_inv_.rows() != m || sigma_inv_.cols() != m)
    throw std::invalid_argument("surrogate: nu has " + std::to_string(m) +
                                " entries and Sigma^-1 is " + std::to_string(sigma_inv_.rows()) +
                                " x " + std::to_string(sigma_inv_.cols()) +
                                ": expected M >= 1 and M x M");
  if (!nu_.allFinite() || !sigma_inv_.allFinite())
    throw std::invalid_argument("surrogate: nu or Sigma^-1 has a non-finite entry");
  const std::string why = check_spd(sigma_inv_, &factor_);
  if (!why.empty()) throw std::invalid_argument("surrogate: " + why);
}

double FeatureSurrogate::mean(const Eigen::Ref<const Eigen::VectorXd>& phi) const {
  return phi.dot(nu_);
}

double FeatureSurrogate::variance(const Eigen::Ref<const Eigen::VectorXd>& phi) const {
  return std::max(0.0, lambda_ * phi.dot(sigma_inv_ * phi));
}

void FeatureSurrogate::predict(const Eigen::Ref<const Eigen::MatrixXd>& Phi, Eigen::VectorXd& mean,
                               Eigen::VectorXd& variance) const {
  mean = Phi * nu_;
  variance = (lambda_ * (Phi * sigma_inv_).cwiseProduct(Phi).rowwise().sum()).cwiseMax(0.0);
}

Eigen::MatrixXd FeatureSurrogate::sample_weights(int count, RandomStream& rng) const {
  const int m = num_features();
  Eigen::MatrixXd z(m, count);
  for (int s = 0; s < count; ++s)
    for (int i = 0; i < m; ++i) z(i, s) = rng.normal();
  Eigen::MatrixXd omega = factor_.triangularView<Eigen::Lower>() * z;
  omega *= std::sqrt(lambda_);
  omega.colwise() += nu_;
  return omega;
}

std::vector<double> FeatureSurrogate::encode(SurrogatePayload kind) const {
  const int m = num_features();
  std::vector<double> out;
  out.reserve(surrogate_payload_length(m, kind));
  out.insert(out.end(), nu_.data(), nu_.data() + m);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) out.push_back(sigma_inv_(i, j));
  if (kind == SurrogatePayload::taf) out.push_back(incumbent_);
  return out;
}

FeatureSurrogate FeatureSurrogate::decode(const std::vector<double>& payload, int num_features,
                                          double lambda, SurrogatePayload kind) {
  const std::string why = check_surrogate_payload(payload, num_features, kind);
  if (!why.empty()) throw std::invalid_argument("malformed surrogate payload: " + why);
  const int m = num_features;
  Eigen::VectorXd nu = Eigen::Map<const Eigen::VectorXd>(payload.data(), m);
  Eigen::MatrixXd A =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          payload.data() + m, m, m);
  const double incumbent = kind == SurrogatePayload::taf
                               ? payload.back()
                               : std::numeric_limits<double>::quiet_NaN();
  return FeatureSurrogate(std::move(nu), std::move(A), lambda, incumbent);
}

FeatureSurrogate make_surrogate(const FeaturePosterior& posterior, double incumbent) {
  const int m = posterior.num_features();
  Eigen::MatrixXd A = posterior.factor().solve(Eigen::MatrixXd::Identity(m, m));
  Eigen::MatrixXd symmetric = 0.5 * (A + A.transpose());
  return FeatureSurrogate(posterior.mean(), std::move(symmetric), posterior.lambda(), incumbent);
}

Eigen::MatrixXd observed_features(const fbo::FboAgent& agent, const fbo::AgentContext& context) {
  const auto history = agent.history();
  Eigen::MatrixXd Phi(static_cast<Eigen::Index>(history.size()), context.features.num_features());
  for (std::size_t s = 0; s < history.size(); ++s) {
    const fbo::Point& p = history[s].first;
    if (p.index >= 0)
      Phi.row(static_cast<Eigen::Index>(s)) = context.grid_features.row(p.index);
    else
      Phi.row(static_cast<Eigen::Index>(s)) = context.features.features(p.x).transpose();
  }
  return Phi;
}

Eigen::VectorXd observed_values(const fbo::FboAgent& agent) {
  const auto history = agent.history();
  Eigen::VectorXd y(static_cast<Eigen::Index>(history.size()));
  for (std::size_t s = 0; s < history.size(); ++s) y(static_cast<Eigen::Index>(s)) = history[s].second;
  return y;
}

FeatureSurrogate make_surrogate(const fbo::FboAgent& agent, const fbo::AgentContext& context) {
  const Eigen::MatrixXd Phi = observed_features(agent, context);
  const Eigen::VectorXd y = observed_values(agent);
  FeaturePosterior posterior(context.features.num_features(), context.lambda);
  for (Eigen::Index s = 0; s < Phi.rows(); ++s) posterior.observe(Phi.row(s).transpose(), y(s));
  const double incumbent = y.size() > 0 ? y.maxCoeff() : std::numeric_limits<double>::quiet_NaN();
  return make_surrogate(posterior, incumbent);
}

void require_weighable(const std::vector<FeatureSurrogate>& base,
                       const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                       const Eigen::Ref<const Eigen::VectorXd>& y) {
  if (Phi.rows() != y.size())
    throw std::invalid_argument("ranking weights: " + std::to_string(Phi.rows()) +
                                " feature rows for " + std::to_string(y.size()) + " values");
  for (const FeatureSurrogate& model : base)
    if (model.num_features() != Phi.cols())
      throw std::invalid_argument("ranking weights: a surrogate of " +
                                  std::to_string(model.num_features()) + " features, the target's " +
                                  std::to_string(Phi.cols()));
}

}  // namespace fedsim::baselines
