#include "engine/baselines/gp_bo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/acquisition.hpp"
#include "engine/baselines/expected_improvement.hpp"
#include "engine/baselines/local_penalization.hpp"

namespace fedsim::baselines {

namespace {

void require_gp_bo(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("gp_bo: " + what);
}

GpHyperparameters gpy_initial(int lengthscales) {
  GpHyperparameters h;
  h.lengthscales = Eigen::VectorXd::Ones(lengthscales);
  h.signal_variance = 1.0;
  h.noise_variance = 0.01;  // GPyOpt: Y.var() * 0.01 on standardised Y
  return h;
}

}  // namespace

void GpBoParams::validate() const {
  require_gp_bo(initial_design >= 1, "initial_design must be an integer >= 1");
  require_gp_bo(std::isfinite(xi) && xi >= 0.0, "xi must be a finite number >= 0");
  require_gp_bo(refit_every >= 1, "refit_every must be an integer >= 1");
  require_gp_bo(fit_restarts >= 1, "fit_restarts must be an integer >= 1");
  require_gp_bo(fit_max_evaluations >= 1, "fit_max_evaluations must be an integer >= 1");
  require_gp_bo(acquisition_samples >= 1, "acquisition_samples must be an integer >= 1");
  require_gp_bo(acquisition_refine >= 0, "acquisition_refine must be an integer >= 0");
  require_gp_bo(acquisition_max_evaluations >= 1, "acquisition_max_evaluations must be an integer >= 1");
  require_gp_bo(batch_size >= 1, "batch_size must be an integer >= 1");
  require_gp_bo(lipschitz_samples >= 0, "lipschitz_samples must be an integer >= 0");
  require_gp_bo(std::isfinite(lipschitz_fallback) && lipschitz_fallback > 0.0,
          "lipschitz_fallback must be a finite number > 0");
  try {
    bounds.validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("gp_bo: bounds: ") + e.what() +
                                " (need 0 < min < max < infinity)");
  }
}

GpBo::GpBo(GpBoParams params, Box domain) : params_(params), domain_(std::move(domain)) {
  params_.validate();
  domain_.validate();
  h_ = gpy_initial(params_.ard ? domain_.dim() : 1);
}

void GpBo::observe(const Eigen::Ref<const Eigen::VectorXd>& x, double y) {
  require_gp_bo(x.size() == domain_.dim(), "observed point has the wrong dimension");
  require_gp_bo(x.allFinite(), "observed point must be finite");
  require_gp_bo(std::isfinite(y), "observed value must be finite");
  inputs_.emplace_back(x);
  values_.push_back(y);
}

Eigen::VectorXd GpBo::standardised_values() const {
  Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(values_.data(),
                                                        static_cast<Eigen::Index>(values_.size()));
  if (!params_.normalize_y) return y;
  // GPyOpt's normalize(Y, 'stats'): subtract the mean, divide by the population sd if > 0.
  y.array() -= y.mean();
  const double sd = std::sqrt(y.squaredNorm() / static_cast<double>(y.size()));
  if (sd > 0.0) y /= sd;
  return y;
}

bool GpBo::fit_due() const {
  return !fitted_ || num_observations() - fitted_at_ >= params_.refit_every;
}

SeGpRegression GpBo::model(RandomStream& rng) {
  require_gp_bo(num_observations() >= 1, "the model needs at least one observation");
  Eigen::MatrixXd X(num_observations(), domain_.dim());
  for (int i = 0; i < num_observations(); ++i) X.row(i) = inputs_[i].transpose();
  const Eigen::VectorXd y = standardised_values();
  if (fit_due()) {
    HyperparameterFitOptions options;
    options.per_dimension = params_.ard;
    options.bounds = params_.bounds;
    options.restarts = params_.fit_restarts;
    options.max_evaluations = params_.fit_max_evaluations;
    options.start = h_;  // GPy's optimize_restarts starts from the current values
    options.restart_draw = RestartDraw::softplus_normal;
    try {
      h_ = fit_hyperparameters(X, y, rng, options).hyperparameters;
    } catch (const std::runtime_error&) {
      // No start gave a finite likelihood: a batch of nearly equal points after a fit at the
      // bounds leaves K + noise I without a Cholesky factor there (batched BO on the locals
      // with fit_restarts = 1). GPy's likelihood adds jitter and goes on; so does this model,
      // keeping the hyperparameters it has (the regression below adds its own jitter).
    }
    fitted_ = true;
    fitted_at_ = num_observations();
  }
  return SeGpRegression(std::move(X), y, h_);
}

double GpBo::incumbent(const SeGpRegression& model) {
  double best = -std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < model.inputs().rows(); ++i)
    best = std::max(best, model.mean(model.inputs().row(i).transpose()));
  return best;
}

double GpBo::acquisition(const SeGpRegression& model, double incumbent,
                         const Eigen::Ref<const Eigen::VectorXd>& x,
                         Eigen::VectorXd* gradient) const {
  double mean = 0.0, variance = 0.0;
  Eigen::VectorXd dmean, dvariance;
  model.predict(x, mean, variance, gradient ? &dmean : nullptr, gradient ? &dvariance : nullptr);
  // GPyOpt predicts with the likelihood's noise and clips the variance at 1e-10.
  const double predictive = std::max(variance + model.hyperparameters().noise_variance, 1e-10);
  const double sd = std::sqrt(predictive);
  const ExpectedImprovement ei = expected_improvement(mean, sd, incumbent, params_.xi);
  if (gradient) *gradient = ei.d_mean * dmean + (ei.d_sd / (2.0 * sd)) * dvariance;
  return ei.value;
}

Eigen::VectorXd GpBo::propose(RandomStream& rng) {
  if (params_.batch_size != 1)
    throw std::logic_error("gp_bo: propose() needs batch_size 1; use propose_batch()");
  return propose_batch(rng).row(0).transpose();
}

Eigen::MatrixXd GpBo::propose_batch(RandomStream& rng) {
  const int q = params_.batch_size;
  if (num_observations() < params_.initial_design) return uniform_in_box(domain_, q, rng);
  const SeGpRegression gp = model(rng);
  const double best = incumbent(gp);
  BoxMaximizerOptions options;
  options.num_random = params_.acquisition_samples;
  options.num_refine = params_.acquisition_refine;
  options.max_evaluations = params_.acquisition_max_evaluations;
  Eigen::MatrixXd batch(q, domain_.dim());
  if (q == 1) {
    const ValueAndGradient ei = [&](const Eigen::Ref<const Eigen::VectorXd>& x,
                                    Eigen::Ref<Eigen::VectorXd> gradient) {
      Eigen::VectorXd g;
      const double v = acquisition(gp, best, x, &g);
      gradient = g;
      return v;
    };
    batch.row(0) = maximize_on_box(ei, domain_, rng, options).x.transpose();
    return batch;
  }
  // GPyOpt's AcquisitionLP with transform "none": ln(EI + 1e-50) + sum_j ln phi(x; x_j).
  std::vector<PenaltyCentre> centres;
  double lipschitz = 0.0;
  const Eigen::VectorXd y = gp.targets();
  const double best_observed = y.maxCoeff();
  const ValueAndGradient penalised = [&](const Eigen::Ref<const Eigen::VectorXd>& x,
                                         Eigen::Ref<Eigen::VectorXd> gradient) {
    Eigen::VectorXd g, gj;
    const double ei = acquisition(gp, best, x, &g);
    double value = std::log(ei + 1e-50);
    Eigen::VectorXd total = g / (ei + 1e-50);
    for (const PenaltyCentre& c : centres) {
      value += log_penaliser(x, c, lipschitz, best_observed, &gj);
      total += gj;
    }
    gradient = total;
    return value;
  };
  for (int k = 0; k < q; ++k) {
    if (k == 1) lipschitz = estimate_lipschitz(gp, domain_, rng, params_.lipschitz_samples,
                                               params_.lipschitz_fallback);
    const Eigen::VectorXd x = maximize_on_box(penalised, domain_, rng, options).x;
    batch.row(k) = x.transpose();
    double mean = 0.0, variance = 0.0;
    gp.predict(x, mean, variance, nullptr, nullptr);
    const double predictive = std::max(variance + gp.hyperparameters().noise_variance, 1e-16);
    centres.push_back({x, mean, std::sqrt(predictive)});
  }
  return batch;
}

GpBoState GpBo::state() const {
  GpBoState s;
  s.dim = domain_.dim();
  s.inputs.reserve(inputs_.size() * static_cast<std::size_t>(s.dim));
  for (const Eigen::VectorXd& x : inputs_) s.inputs.insert(s.inputs.end(), x.data(), x.data() + s.dim);
  s.values = values_;
  s.fitted = fitted_;
  s.fitted_at = fitted_at_;
  s.lengthscales.assign(h_.lengthscales.data(), h_.lengthscales.data() + h_.lengthscales.size());
  s.signal_variance = h_.signal_variance;
  s.noise_variance = h_.noise_variance;
  return s;
}

void GpBo::restore(const GpBoState& s) {
  const int d = domain_.dim();
  const auto bad = [](const std::string& what) {
    return std::invalid_argument("gp_bo state: " + what);
  };
  if (s.dim != d) throw bad("dim differs from the domain's");
  if (s.inputs.size() != s.values.size() * static_cast<std::size_t>(d))
    throw bad("inputs must hold dim numbers per value");
  const auto finite = [](double v) { return std::isfinite(v); };
  if (!std::all_of(s.inputs.begin(), s.inputs.end(), finite) ||
      !std::all_of(s.values.begin(), s.values.end(), finite))
    throw bad("inputs and values must be finite");
  const int n = static_cast<int>(s.values.size());
  if (s.fitted_at < 0 || s.fitted_at > n) throw bad("fitted_at must be in [0, observations]");
  const std::size_t k = params_.ard ? static_cast<std::size_t>(d) : 1;
  if (s.lengthscales.size() != k) throw bad("wrong number of lengthscales");
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!std::all_of(s.lengthscales.begin(), s.lengthscales.end(), positive) ||
      !positive(s.signal_variance) || !positive(s.noise_variance))
    throw bad("hyperparameters must be finite and > 0");
  inputs_.clear();
  for (int i = 0; i < n; ++i)
    inputs_.emplace_back(Eigen::Map<const Eigen::VectorXd>(s.inputs.data() + i * d, d));
  values_ = s.values;
  fitted_ = s.fitted;
  fitted_at_ = s.fitted_at;
  h_.lengthscales = Eigen::Map<const Eigen::VectorXd>(s.lengthscales.data(),
                                                      static_cast<Eigen::Index>(k));
  h_.signal_variance = s.signal_variance;
  h_.noise_variance = s.noise_variance;
}

}  // namespace fedsim::baselines
