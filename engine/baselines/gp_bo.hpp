#pragma once
/// GP-BO and batched BO, the centralised baselines of Fed-PNE appendix E.1.6-E.1.7 (figure 4),
/// following GPyOpt's defaults (the library the paper names for BO; docs/baselines/gp-bo.md
/// lists each default and where this differs): a zero-mean GP on standardised outputs, its
/// hyperparameters refitted by maximum likelihood (engine/hyperparameters.hpp) before every
/// proposal, expected improvement with xi = 0.01 maximised by 1000 random anchors of which the
/// best 5 are refined by L-BFGS, after an initial design of 5 uniform random points. The batch
/// variant (batch_size q > 1) picks q points by local penalisation (Gonzalez et al. 2016,
/// engine/baselines/local_penalization.hpp), GPyOpt's evaluator_type = "local_penalization".
#include <vector>

#include <Eigen/Dense>

#include "engine/baselines/se_gp_regression.hpp"
#include "engine/domain.hpp"
#include "engine/hyperparameters.hpp"
#include "engine/rng.hpp"

namespace fedsim::baselines {

struct GpBoParams {
  int initial_design = 5;         ///< uniform random points before the GP is used (>= 1)
  double xi = 0.01;               ///< EI's jitter, in standardised output units (>= 0)
  int refit_every = 1;            ///< refit the hyperparameters every this many new observations
  int fit_restarts = 5;           ///< L-BFGS runs per fit (the first warm-started)
  int fit_max_evaluations = 300;  ///< LML evaluations per run
  bool normalize_y = true;        ///< standardise outputs (mean 0, population sd 1)
  bool ard = false;               ///< one lengthscale per axis instead of one shared
  int acquisition_samples = 1000;          ///< random anchors scored per maximisation
  int acquisition_refine = 5;              ///< best anchors refined by L-BFGS
  int acquisition_max_evaluations = 1000;  ///< per refinement
  int batch_size = 1;             ///< q points per propose_batch (1: sequential EI)
  int lipschitz_samples = 500;    ///< random points of the Lipschitz estimate
  double lipschitz_fallback = 10.0;  ///< L when the model is flat (estimate < 1e-7)
  /// ML bounds. GPy leaves the kernel's parameters unbounded and the noise in [1e-9, 1e6];
  /// these bounds are never reached on inputs of order 1 and standardised outputs.
  HyperparameterBounds bounds{1e-4, 1e4, 1e-6, 1e6, 1e-9, 1e6};

  /// Throws std::invalid_argument naming the parameter and its allowed range.
  void validate() const;
};

/// Everything that decides GpBo's future, given its params and domain.
struct GpBoState {
  int dim = 0;
  std::vector<double> inputs;  ///< observed points, row-major: n x dim
  std::vector<double> values;  ///< observed values: n
  bool fitted = false;         ///< hyperparameters below come from a fit
  int fitted_at = 0;           ///< observations at the last fit
  std::vector<double> lengthscales{1.0};  ///< the current hyperparameters (the warm start)
  double signal_variance = 1.0;
  double noise_variance = 0.01;
};

class GpBo {
 public:
  /// Throws std::invalid_argument on bad params or an invalid domain.
  GpBo(GpBoParams params, Box domain);

  const GpBoParams& params() const { return params_; }
  const Box& domain() const { return domain_; }
  int num_observations() const { return static_cast<int>(values_.size()); }
  /// The current hyperparameters (GPy's initial values, l = 1, s2 = 1, noise = 0.01, before
  /// the first fit).
  const GpHyperparameters& hyperparameters() const { return h_; }

  /// The next point (batch_size must be 1; else std::logic_error).
  Eigen::VectorXd propose(RandomStream& rng);
  /// The next batch: batch_size x d, rows are points. While fewer than initial_design points
  /// are observed, batch_size uniform random points; else the GP is refitted if due and the
  /// batch chosen by EI (q = 1) or EI with local penalisation (q > 1).
  Eigen::MatrixXd propose_batch(RandomStream& rng);
  /// Records y = f(x) + noise. Throws std::invalid_argument on a point of the wrong dimension
  /// or a non-finite coordinate or value.
  void observe(const Eigen::Ref<const Eigen::VectorXd>& x, double y);

  /// The GP on the (standardised) data with the current hyperparameters, refitting first if a
  /// fit is due (what propose_batch uses). Needs at least one observation.
  SeGpRegression model(RandomStream& rng);
  /// EI's incumbent (GPyOpt's get_fmin, mirrored): the best posterior mean at the observed points.
  static double incumbent(const SeGpRegression& model);
  /// The acquisition GPyOpt maximises, at x: EI of the predictive N(mu(x), sigma^2(x) + noise)
  /// over incumbent + xi; its gradient into `gradient` when non-null.
  double acquisition(const SeGpRegression& model, double incumbent,
                     const Eigen::Ref<const Eigen::VectorXd>& x,
                     Eigen::VectorXd* gradient = nullptr) const;

  GpBoState state() const;
  /// Throws std::invalid_argument (leaving this object unchanged) on a state that does not fit
  /// the domain (wrong dim, ragged inputs, non-finite entries, bad hyperparameters).
  void restore(const GpBoState& state);

 private:
  bool fit_due() const;
  Eigen::VectorXd standardised_values() const;

  GpBoParams params_;
  Box domain_;
  std::vector<Eigen::VectorXd> inputs_;
  std::vector<double> values_;
  bool fitted_ = false;
  int fitted_at_ = 0;
  GpHyperparameters h_;
};

}  // namespace fedsim::baselines
