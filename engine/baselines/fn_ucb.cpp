#include "engine/baselines/fn_ucb.hpp"

#include <cmath>
#include <stdexcept>

namespace fedsim::baselines {

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void require_fn_ucb(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("fn-ucb: " + what);
}

void append(std::vector<double>& out, const Eigen::MatrixXd& a) {
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) out.push_back(a(i, j));
}

void append(std::vector<double>& out, const Eigen::VectorXd& v) {
  out.insert(out.end(), v.data(), v.data() + v.size());
}

Eigen::MatrixXd matrix_at(const std::vector<double>& v, std::size_t at, int p) {
  return Eigen::Map<const RowMajor>(v.data() + at, p, p);
}

Eigen::VectorXd vector_at(const std::vector<double>& v, std::size_t at, int p) {
  return Eigen::Map<const Eigen::VectorXd>(v.data() + at, p);
}

std::vector<double> flat(const Eigen::MatrixXd& a) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(a.size()));
  append(out, a);
  return out;
}

std::vector<double> flat(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

/// log det of a symmetric positive definite matrix; NaN when it is not.
double logdet(const Eigen::MatrixXd& a) {
  const Eigen::LLT<Eigen::MatrixXd> llt(a);
  if (llt.info() != Eigen::Success) return std::nan("");
  return 2.0 * llt.matrixLLT().diagonal().array().log().sum();
}

bool symmetric(const Eigen::MatrixXd& a) {
  const double tol = 1e-9 * (1.0 + a.cwiseAbs().maxCoeff());
  return (a - a.transpose()).cwiseAbs().maxCoeff() <= tol;
}

bool positive_definite(const Eigen::MatrixXd& a) {
  return Eigen::LLT<Eigen::MatrixXd>(a).info() == Eigen::Success;
}

/// Symmetric positive semi-definite up to rounding: a + eps I is positive definite.
bool positive_semidefinite(const Eigen::MatrixXd& a) {
  const double eps = 1e-9 * std::max(1.0, a.diagonal().cwiseAbs().sum());
  return positive_definite(a + eps * Eigen::MatrixXd::Identity(a.rows(), a.cols()));
}

std::string check_payload(const std::vector<double>& payload, int p, bool with_variance,
                          bool with_network, double lambda, const char* w_name,
                          const char* inv_name) {
  const std::size_t want = fn_ucb_payload_length(p, with_variance, with_network);
  if (payload.size() != want)
    return "wrong length: " + std::to_string(payload.size()) + " numbers, expected " +
           std::to_string(want);
  for (std::size_t i = 0; i < payload.size(); ++i)
    if (!std::isfinite(payload[i])) return "non-finite entry at " + std::to_string(i);
  const Eigen::MatrixXd w = matrix_at(payload, 0, p);
  if (!symmetric(w)) return std::string(w_name) + " is not symmetric";
  if (!positive_semidefinite(w)) return std::string(w_name) + " is not positive semi-definite";
  if (with_variance) {
    const std::size_t at = static_cast<std::size_t>(p) * p + p;
    const Eigen::MatrixXd inv = matrix_at(payload, at, p);
    if (!symmetric(inv)) return std::string(inv_name) + " is not symmetric";
    if (!positive_definite(inv)) return std::string(inv_name) + " is not positive definite";
    // V >= lambda I, so V^-1 <= I / lambda, up to the rounding of V's many rank-1 updates:
    // measured 4e-9 relative after 1e4 pulls, allowed 1e-6.
    const Eigen::MatrixXd slack = Eigen::MatrixXd::Identity(p, p) * (1.0 + 1e-6) / lambda - inv;
    if (!positive_semidefinite(slack))
      return std::string(inv_name) + " has an eigenvalue above 1/lambda";
  }
  return "";
}

}  // namespace

void FnUcbParams::validate() const {
  require_fn_ucb(arms_per_dim >= 1, "arms_per_dim must be >= 1");
  require_fn_ucb(width >= 1 && width <= 4096, "width must be in [1, 4096]");
  require_fn_ucb(std::isfinite(lambda) && lambda > 0, "lambda must be a finite number > 0");
  require_fn_ucb(std::isfinite(nu_gp) && nu_gp >= 0, "nu_gp must be a finite number >= 0");
  require_fn_ucb(std::isfinite(nu_nn) && nu_nn >= 0, "nu_nn must be a finite number >= 0");
  require_fn_ucb(std::isfinite(sync_threshold) && sync_threshold >= 0,
          "sync_threshold (D) must be a finite number >= 0");
  require_fn_ucb(alpha_delay >= 0, "alpha_delay must be >= 0");
  require_fn_ucb(alpha_ramp >= 1, "alpha_ramp must be >= 1");
  require_fn_ucb(train_steps >= 1, "train_steps must be >= 1");
  require_fn_ucb(std::isfinite(learning_rate) && learning_rate > 0,
          "learning_rate must be a finite number > 0");
  require_fn_ucb(stop_training_after >= 0, "stop_training_after must be >= 0");
  require_fn_ucb(budget >= 1 && budget <= 1000000000, "budget must be in [1, 1e9]");
  require_fn_ucb(clients >= 1, "clients must be >= 1");
}

FnUcbParams FnUcbParams::authors() {
  FnUcbParams p;
  p.width = 20;
  p.train_steps = 30;
  p.stop_training_after = 2000;
  return p;
}

double FnUcbParams::alpha(std::int64_t t) const {
  const double a = static_cast<double>(t - 1 - alpha_delay) / static_cast<double>(alpha_ramp);
  return a <= 0.0 ? 0.0 : (a >= 1.0 ? 1.0 : a);
}

FnUcbModel make_fn_ucb_model(const Box& domain, const FnUcbParams& params, RandomStream& mesh_rng,
                             RandomStream& init_rng) {
  params.validate();
  ArmMesh mesh = make_arm_mesh(domain, params.arms_per_dim, mesh_rng);
  Eigen::MatrixXd inputs = mesh.points;
  for (int j = 0; j < domain.dim(); ++j)
    inputs.col(j) = (inputs.col(j).array() - domain.lower(j)) / (domain.upper(j) - domain.lower(j));
  trainers::RegressionMlp net =
      trainers::RegressionMlp::gaussian(domain.dim(), params.width, init_rng);
  Eigen::MatrixXd features = net.gradients(inputs) / std::sqrt(static_cast<double>(params.width));
  return FnUcbModel{std::move(mesh), std::move(inputs), std::move(net), std::move(features)};
}

std::size_t fn_ucb_payload_length(int p, bool with_variance, bool with_network) {
  const auto q = static_cast<std::size_t>(p);
  return q * q + q + (with_variance ? q * q : 0) + (with_network ? q : 0);
}

std::string check_fn_ucb_report(const std::vector<double>& payload, int p, bool with_variance,
                                bool with_network, double lambda) {
  return check_payload(payload, p, with_variance, with_network, lambda, "W_new", "V_local^-1");
}

std::string check_fn_ucb_broadcast(const std::vector<double>& payload, int p, bool with_variance,
                                   bool with_network, double lambda) {
  return check_payload(payload, p, with_variance, with_network, lambda, "W_sync", "V_ring^-1");
}

// ---------------------------------------------------------------------------------------------
// Client

FnUcbClient::FnUcbClient(int id, const FnUcbParams& params, std::shared_ptr<const FnUcbModel> model)
    : params_(params),
      model_(std::move(model)),
      id_(id),
      local_(model_ ? model_->initial : trainers::RegressionMlp(1, 1, Eigen::VectorXd::Zero(4))),
      sync_(local_) {
  params_.validate();
  require_fn_ucb(model_ != nullptr, "client needs a model");
  require_fn_ucb(id >= 0, "client id must be >= 0");
  const int p = model_->parameters();
  const Eigen::MatrixXd lambda_i = params_.lambda * Eigen::MatrixXd::Identity(p, p);
  w_new_ = Eigen::MatrixXd::Zero(p, p);
  w_sync_ = Eigen::MatrixXd::Zero(p, p);
  v_local_ = lambda_i;
  v_ring_inv_ = Eigen::MatrixXd::Identity(p, p) / params_.lambda;
  b_new_ = Eigen::VectorXd::Zero(p);
  b_sync_ = Eigen::VectorXd::Zero(p);
  logdet_last_ = logdet(lambda_i);
}

Eigen::MatrixXd FnUcbClient::v_bar() const {
  const int p = model_->parameters();
  return params_.lambda * Eigen::MatrixXd::Identity(p, p) + w_sync_ + w_new_;
}

Eigen::VectorXd FnUcbClient::scores(std::int64_t t) const {
  if (t < 1) throw std::invalid_argument("fn-ucb: rounds start at 1");
  const Eigen::MatrixXd& g = model_->features;  // K x p
  const double sqrt_lambda = std::sqrt(params_.lambda);
  // U_b: the GP-UCB part on the features, with what the server shared and the client's own.
  const Eigen::LLT<Eigen::MatrixXd> llt(v_bar());
  if (llt.info() != Eigen::Success)
    throw std::logic_error("fn-ucb: V_bar is not positive definite");
  const Eigen::VectorXd theta_bar = llt.solve(b_sync_ + b_new_);
  const Eigen::MatrixXd z = llt.matrixL().solve(g.transpose());  // p x K
  Eigen::VectorXd u = g * theta_bar;
  u.array() += params_.nu_gp * sqrt_lambda * z.colwise().squaredNorm().transpose().array().sqrt();
  const double a = params_.alpha(t);
  if (a <= 0.0) return u;
  // U_a: the aggregated network and the mean of the clients' inverses.
  Eigen::VectorXd ua = sync_.values(model_->inputs);
  const Eigen::VectorXd var = (g * v_ring_inv_).cwiseProduct(g).rowwise().sum();
  ua.array() += params_.nu_nn * sqrt_lambda * var.array().max(0.0).sqrt();
  return a * ua + (1.0 - a) * u;
}

std::int64_t FnUcbClient::choose(std::int64_t t) const {
  const Eigen::VectorXd s = scores(t);
  Eigen::Index best = 0;
  for (Eigen::Index k = 1; k < s.size(); ++k)
    if (s(k) > s(best)) best = k;
  return static_cast<std::int64_t>(best);
}

void FnUcbClient::observe(std::int64_t t, std::int64_t arm, double reward) {
  require_fn_ucb(t > t_,
          "observe: round " + std::to_string(t) + " is not after round " + std::to_string(t_));
  require_fn_ucb(arm >= 0 && arm < model_->arms(), "observe: arm outside the mesh");
  require_fn_ucb(std::isfinite(reward), "observe: non-finite reward");
  const Eigen::VectorXd g = model_->features.row(arm).transpose();
  w_new_.noalias() += g * g.transpose();
  v_local_.noalias() += g * g.transpose();
  b_new_ += reward * g;
  arms_.push_back(arm);
  rewards_.push_back(reward);
  t_ = t;
  criterion_ = static_cast<double>(t - t_last_) * (logdet(v_bar()) - logdet_last_);
}

std::vector<double> FnUcbClient::sync_report(std::int64_t t) {
  if (t != t_ || t < 1) throw std::logic_error("fn-ucb: sync report for a round not observed last");
  const bool variance = params_.sends_variance(t), network = params_.trains_network(t);
  if (network) {
    const auto n = static_cast<Eigen::Index>(arms_.size());
    Eigen::MatrixXd x(n, model_->inputs.cols());
    for (Eigen::Index j = 0; j < n; ++j)
      x.row(j) = model_->inputs.row(arms_[static_cast<std::size_t>(j)]);
    const Eigen::Map<const Eigen::VectorXd> y(rewards_.data(), n);
    trainers::train_regression(local_, x, y, model_->initial.theta(),
                               {params_.train_steps, params_.learning_rate, params_.lambda});
  }
  std::vector<double> out;
  out.reserve(fn_ucb_payload_length(model_->parameters(), variance, network));
  append(out, w_new_);
  append(out, b_new_);
  if (variance) {
    const Eigen::MatrixXd inv =
        v_local_.llt().solve(Eigen::MatrixXd::Identity(v_local_.rows(), v_local_.cols()));
    append(out, Eigen::MatrixXd(0.5 * (inv + inv.transpose())));  // exactly symmetric
  }
  if (network) append(out, local_.theta());
  return out;
}

void FnUcbClient::apply_broadcast(const std::vector<double>& payload, std::int64_t t) {
  if (t <= t_last_)
    throw std::invalid_argument("fn-ucb broadcast: round " + std::to_string(t) +
                                " is not after the last synchronisation (round " +
                                std::to_string(t_last_) + ")");
  const int p = model_->parameters();
  const bool variance = params_.sends_variance(t), network = params_.trains_network(t);
  const std::string why = check_fn_ucb_broadcast(payload, p, variance, network, params_.lambda);
  if (!why.empty()) throw std::invalid_argument("fn-ucb broadcast: " + why);
  const auto q = static_cast<std::size_t>(p);
  w_sync_ = matrix_at(payload, 0, p);
  b_sync_ = vector_at(payload, q * q, p);
  std::size_t at = q * q + q;
  if (variance) {
    v_ring_inv_ = matrix_at(payload, at, p);
    at += q * q;
  }
  if (network) sync_.set_theta(vector_at(payload, at, p));
  w_new_.setZero();
  b_new_.setZero();
  t_last_ = t;
  logdet_last_ = logdet(v_bar());
  criterion_ = 0.0;
}

FnUcbClient::State FnUcbClient::state() const {
  return State{id_,
               t_,
               t_last_,
               logdet_last_,
               criterion_,
               flat(w_new_),
               flat(b_new_),
               flat(v_local_),
               flat(w_sync_),
               flat(b_sync_),
               flat(v_ring_inv_),
               flat(local_.theta()),
               flat(sync_.theta()),
               arms_,
               rewards_};
}

void FnUcbClient::restore(const State& s) {
  const int p = model_->parameters();
  const auto pp = static_cast<std::size_t>(p) * p, q = static_cast<std::size_t>(p);
  require_fn_ucb(s.id == id_, "state: another client's");
  require_fn_ucb(s.t >= 0 && s.t_last >= 0 && s.t_last <= s.t, "state: rounds out of order");
  require_fn_ucb(s.w_new.size() == pp && s.v_local.size() == pp && s.w_sync.size() == pp &&
              s.v_ring_inv.size() == pp && s.b_new.size() == q && s.b_sync.size() == q &&
              s.theta_local.size() == q && s.theta_sync.size() == q,
          "state: sizes do not fit the model");
  require_fn_ucb(s.arms.size() == s.rewards.size() && s.arms.size() == static_cast<std::size_t>(s.t),
          "state: one pull per round");
  for (const std::int64_t a : s.arms)
    require_fn_ucb(a >= 0 && a < model_->arms(), "state: arm outside the mesh");
  for (const auto* v : {&s.w_new, &s.b_new, &s.v_local, &s.w_sync, &s.b_sync, &s.v_ring_inv,
                        &s.theta_local, &s.theta_sync, &s.rewards})
    for (const double x : *v) require_fn_ucb(std::isfinite(x), "state: non-finite entry");
  require_fn_ucb(std::isfinite(s.logdet_last) && std::isfinite(s.criterion), "state: non-finite value");
  t_ = s.t;
  t_last_ = s.t_last;
  logdet_last_ = s.logdet_last;
  criterion_ = s.criterion;
  w_new_ = matrix_at(s.w_new, 0, p);
  b_new_ = vector_at(s.b_new, 0, p);
  v_local_ = matrix_at(s.v_local, 0, p);
  w_sync_ = matrix_at(s.w_sync, 0, p);
  b_sync_ = vector_at(s.b_sync, 0, p);
  v_ring_inv_ = matrix_at(s.v_ring_inv, 0, p);
  local_.set_theta(vector_at(s.theta_local, 0, p));
  sync_.set_theta(vector_at(s.theta_sync, 0, p));
  arms_ = s.arms;
  rewards_ = s.rewards;
}

// ---------------------------------------------------------------------------------------------
// Server

FnUcbServer::FnUcbServer(const FnUcbParams& params, const FnUcbModel& model)
    : params_(params), p_(model.parameters()) {
  params_.validate();
  require_fn_ucb(model.initial.theta().size() == p_, "server: theta_0 does not fit the features");
  w_sync_ = Eigen::MatrixXd::Zero(p_, p_);
  b_sync_ = Eigen::VectorXd::Zero(p_);
  v_ring_inv_ = Eigen::MatrixXd::Identity(p_, p_) / params_.lambda;
  theta_sync_ = model.initial.theta();
  reports_.assign(static_cast<std::size_t>(params_.clients), {});
  received_.assign(static_cast<std::size_t>(params_.clients), false);
}

void FnUcbServer::begin_sync(std::int64_t t) {
  if (sync_open()) throw std::logic_error("fn-ucb server: a synchronisation is open");
  if (t <= last_round_) throw std::logic_error("fn-ucb server: synchronisation rounds must grow");
  round_ = t;
}

std::string FnUcbServer::receive(int client, const std::vector<double>& payload) {
  if (!sync_open()) return "no synchronisation is open";
  if (client < 0 || client >= params_.clients) return "unknown client " + std::to_string(client);
  if (received_[static_cast<std::size_t>(client)]) return "duplicate report";
  const std::string why = check_fn_ucb_report(payload, p_, params_.sends_variance(round_),
                                              params_.trains_network(round_), params_.lambda);
  if (!why.empty()) return why;
  reports_[static_cast<std::size_t>(client)] = payload;
  received_[static_cast<std::size_t>(client)] = true;
  ++received_count_;
  return "";
}

std::vector<double> FnUcbServer::close_sync() {
  if (!ready()) throw std::logic_error("fn-ucb server: close_sync before every report");
  return close(params_.clients);
}

std::vector<double> FnUcbServer::close_sync_with_reports() { return close(1); }

std::vector<double> FnUcbServer::close(int min_reporters) {
  if (!sync_open()) throw std::logic_error("fn-ucb server: no synchronisation is open");
  if (received_count_ < min_reporters)
    throw std::logic_error("fn-ucb server: close_sync without a report");
  const bool variance = params_.sends_variance(round_), network = params_.trains_network(round_);
  const auto q = static_cast<std::size_t>(p_);
  const double share = 1.0 / received_count_;
  Eigen::MatrixXd inv_sum = Eigen::MatrixXd::Zero(p_, p_);
  Eigen::VectorXd theta_sum = Eigen::VectorXd::Zero(p_);
  for (std::size_t m = 0; m < reports_.size(); ++m) {
    if (!received_[m]) continue;
    const std::vector<double>& r = reports_[m];
    w_sync_ += matrix_at(r, 0, p_);
    b_sync_ += vector_at(r, q * q, p_);
    std::size_t at = q * q + q;
    if (variance) {
      inv_sum += matrix_at(r, at, p_);
      at += q * q;
    }
    if (network) theta_sum += vector_at(r, at, p_);
  }
  if (variance) v_ring_inv_ = share * inv_sum;
  if (network) theta_sync_ = share * theta_sum;
  std::vector<double> out;
  out.reserve(fn_ucb_payload_length(p_, variance, network));
  append(out, w_sync_);
  append(out, b_sync_);
  if (variance) append(out, v_ring_inv_);
  if (network) append(out, theta_sync_);
  last_round_ = round_;
  round_ = 0;
  ++syncs_;
  for (auto& r : reports_) r.clear();
  received_.assign(received_.size(), false);
  received_count_ = 0;
  return out;
}

FnUcbServer::State FnUcbServer::state() const {
  return State{round_,
               last_round_,
               syncs_,
               flat(w_sync_),
               flat(b_sync_),
               flat(v_ring_inv_),
               flat(theta_sync_),
               reports_,
               received_};
}

void FnUcbServer::restore(const State& s) {
  const auto pp = static_cast<std::size_t>(p_) * p_, q = static_cast<std::size_t>(p_);
  require_fn_ucb(
      s.round >= 0 && s.last_round >= 0 && s.syncs >= 0 && (s.round == 0 || s.round > s.last_round),
      "state: rounds out of order");
  require_fn_ucb(s.w_sync.size() == pp && s.v_ring_inv.size() == pp && s.b_sync.size() == q &&
              s.theta_sync.size() == q,
          "state: sizes do not fit the model");
  for (const auto* v : {&s.w_sync, &s.b_sync, &s.v_ring_inv, &s.theta_sync})
    for (const double x : *v) require_fn_ucb(std::isfinite(x), "state: non-finite entry");
  const auto m = static_cast<std::size_t>(params_.clients);
  require_fn_ucb(s.reports.size() == m && s.received.size() == m, "state: client count differs");
  int count = 0;
  for (std::size_t i = 0; i < m; ++i) {
    if (s.received[i]) {
      ++count;
      require_fn_ucb(s.round > 0 && check_fn_ucb_report(s.reports[i], p_, params_.sends_variance(s.round),
                                                 params_.trains_network(s.round), params_.lambda)
                                 .empty(),
              "state: a stored report does not fit its synchronisation");
    } else {
      require_fn_ucb(s.reports[i].empty(), "state: a report stored without its flag");
    }
  }
  round_ = s.round;
  last_round_ = s.last_round;
  syncs_ = s.syncs;
  w_sync_ = matrix_at(s.w_sync, 0, p_);
  b_sync_ = vector_at(s.b_sync, 0, p_);
  v_ring_inv_ = matrix_at(s.v_ring_inv, 0, p_);
  theta_sync_ = vector_at(s.theta_sync, 0, p_);
  reports_ = s.reports;
  received_ = s.received;
  received_count_ = count;
}

}  // namespace fedsim::baselines
